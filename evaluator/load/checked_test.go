package load

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestCheckedOutputTakesSampleLines: every output line of the sample is
// read in one pass, as quickOutput reads it.
func TestCheckedOutputTakesSampleLines(t *testing.T) {
	d := newJSONDecoder()
	for _, l := range sampleOutputLines(t) {
		checked, ok := d.checkedOutput(l.text, l.line)
		if !ok {
			t.Fatalf("line %d: checkedOutput gave up on %s", l.line, l.text)
		}
		quick, _ := newJSONDecoder().quickOutput(l.text, l.line)
		if !reflect.DeepEqual(checked, quick) {
			t.Fatalf("line %d: checked %+v, quick %+v", l.line, checked, quick)
		}
	}
}

// TestCheckedOutputRefuses: a line that is not valid JSON, or that the
// one pass does not handle, is refused wherever the fault is, so that
// parseOutput reads it as before and words the error.
func TestCheckedOutputRefuses(t *testing.T) {
	const good = `{"case_id":"A","decision":"approve","tool_calls":[{"name":"n","arguments":{"a":[1,{"b":"c"}],"d":true}}],"citations":["x"],"latency_ms":10,"cost_usd":0.5,"extra":{"e":[null,false]}}`
	d := newJSONDecoder()
	if _, ok := d.checkedOutput([]byte(good), 1); !ok {
		t.Fatalf("checkedOutput gave up on %s", good)
	}
	for _, line := range []string{
		good + `x`,         // text after the object
		good[:len(good)-1], // cut short
		`{"case_id":"A" "decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`,  // no comma
		`{"case_id":"A","decision" "approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`,  // no colon
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1,}`, // comma before }
		`{"case_id":"A","decision":"approve","tool_calls":[,],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"citations":["x" "y"],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[{"name":"n","arguments":{"a":tru}}],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[{"name":"n","arguments":{"a":01}}],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[{"name":"n","arguments":{"a":1,"a":2}}],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1.,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":nul,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1,"case_id":"B"}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1,"x":[1,}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1,"x":{"y":1,"y":2}}`,
		"{\"case_id\":\"A\xff\",\"decision\":\"approve\",\"tool_calls\":[],\"latency_ms\":1,\"cost_usd\":1}",
		"{\"case_id\":\"A\x01\",\"decision\":\"approve\",\"tool_calls\":[],\"latency_ms\":1,\"cost_usd\":1}",
		`{"case_id":"A\q","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"\ud800","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`,
		// Valid, but names with escapes are left to the token decoder.
		`{"case\u005fid":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`,
		// Valid, but the format refuses it.
		`{"case_id":"A","decision":"","tool_calls":[],"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":{},"latency_ms":1,"cost_usd":1}`,
		`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":-1,"cost_usd":1}`,
	} {
		if o, ok := d.checkedOutput([]byte(line), 1); ok {
			t.Errorf("checkedOutput read %s as %+v (valid JSON: %v)", line, o, jsontext.Value(line).IsValid())
		}
	}
	// The decoder is left fit for the next line.
	if _, ok := d.checkedOutput([]byte(good), 1); !ok {
		t.Fatalf("checkedOutput gave up on %s after the lines it refused", good)
	}
}
