package runlog

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// batchLine is an OpenAI batch output line for a successful chat
// completion with no calls.
func batchLine(id string) string {
	return `{"id": "b", "custom_id": ` + id + `, "response": {"status_code": 200, "body": {"model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}}, "error": null}` + "\n"
}

// inspectLog is an EvalLog JSON document with the given samples.
func inspectLog(samples ...string) string {
	return "{\n\"version\": 2,\n\"status\": \"success\",\n\"eval\": {\"task\": \"t\", \"model\": \"m\", \"created\": \"2026-01-01T00:00:00Z\", \"config\": {\"epochs\": 1}},\n\"samples\": [\n" + strings.Join(samples, ",\n") + "\n]\n}\n"
}

// promptfooExport is a promptfoo export with the given results.
func promptfooExport(results ...string) string {
	return "{\n\"evalId\": \"e\",\n\"results\": {\"version\": 3, \"timestamp\": \"2026-01-01T00:00:00Z\", \"results\": [\n" + strings.Join(results, ",\n") + "\n]},\n\"config\": {}\n}\n"
}

func pfLine(id, provider, prompt string, extra string) string {
	return `{"provider": {"id": "` + provider + `"}, "promptId": "` + prompt + `", "testCase": {"metadata": {"case_id": "` + id + `"}}, "response": {"output": "ok"}` + extra + `}`
}

func TestBadInput(t *testing.T) {
	promptfoo, err := os.ReadFile(filepath.Join("testdata", "promptfoo-agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	support, err := os.ReadFile(filepath.Join("testdata", "inspect-support.json"))
	if err != nil {
		t.Fatal(err)
	}
	eval := evalArchive(t, support, zip.Deflate, true)
	batch, err := os.ReadFile(filepath.Join("testdata", "openai-batch.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var many []string
	for i := range 25 {
		many = append(many, fmt.Sprintf(`"unknown-%02d"`, i))
	}
	manyLines := ""
	for _, id := range append([]string{`"known"`}, many...) {
		manyLines += batchLine(id)
	}
	tests := []struct {
		name   string
		format Format
		data   string
		suite  []string
		want   string
	}{
		// Truncated and damaged files.
		{"cut promptfoo export", Promptfoo, string(promptfoo[:len(promptfoo)/2]), nil,
			"log:52: results.results[3].testIdx: the file ends in the middle of a JSON value: it is truncated"},
		{"cut Inspect log", Inspect, string(support[:len(support)-40]), nil,
			"log:82: samples[5].model_usage: the file ends in the middle of a JSON value"},
		{"cut .eval", Inspect, string(eval[:len(eval)-30]), nil,
			"log: not a complete zip archive (zip: not a valid zip file): the .eval log is truncated or damaged"},
		{"damaged .eval member", Inspect, string(damage(eval)), nil,
			"log (samples/a-1_epoch_1.json): damaged or cut off"},
		{"cut batch file", OpenAIBatch, string(batch[:len(batch)-25]), nil,
			"log:6: error.message: the file ends in the middle of a JSON value"},
		{"data after the log", Inspect, inspectLog() + "{}", nil,
			"log:9: unexpected data after the end of the JSON document"},
		{"invalid UTF-8", OpenAIBatch, batchLine("\"a\xffb\""), nil, "log:1: custom_id: invalid JSON: invalid UTF-8"},

		// Files of another format, or of none.
		{"promptfoo as inspect", Inspect, string(promptfoo), nil,
			"log: this looks like a promptfoo export, not an Inspect AI log; try `releasegate import promptfoo log`"},
		{"inspect as promptfoo", Promptfoo, string(support), nil,
			"log: this looks like an Inspect AI log, not a promptfoo export; try `releasegate import inspect log`"},
		{".eval as batch", AnthropicBatch, string(eval), nil,
			"this looks like an Inspect AI log, not an Anthropic Message Batches results file; try `releasegate import inspect log`"},
		{"openai as anthropic", AnthropicBatch, string(batch), nil,
			"this looks like an OpenAI Batch API output file, not an Anthropic Message Batches results file; try `releasegate import openai-batch log`"},
		{"anthropic as openai", OpenAIBatch, `{"custom_id":"a","result":{"type":"expired"}}` + "\n", nil,
			"this looks like an Anthropic Message Batches results file, not an OpenAI Batch API output file"},
		{"batch requests", OpenAIBatch, `{"custom_id": "r1", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "m"}}` + "\n", nil,
			"log: this is not an OpenAI Batch API output file: it is an OpenAI Batch API input file (the requests); import the output file the batch wrote"},
		{"empty", Promptfoo, "", nil, "log: this is not a promptfoo export: it is empty"},
		{"not JSON", Inspect, "id,epoch\n1,1\n", nil, "log: this is not an Inspect AI log: it is not JSON (nor a zip archive)"},
		{"JSON array", Promptfoo, "[{}]", nil, "it is a JSON array"},
		{"other zip", Inspect, string(otherZip(t)), nil, "it is a zip archive without header.json or samples/"},
		{"unknown object", OpenAIBatch, `{"hello": "world"}` + "\n", nil, "its first JSON object has none of the members that tell the formats apart"},

		// Records the importer cannot take.
		{"no custom_id", OpenAIBatch, batchLine(`"a"`) + `{"response": null, "error": {"code": "x"}}` + "\n", nil,
			"log:2: custom_id: missing: every batch request is named by its custom_id"},
		{"empty id", OpenAIBatch, batchLine(`""`), nil, "log:1: custom_id: must not be empty: give the case an id of 1 to 256 characters"},
		{"control character", AnthropicBatch, `{"custom_id":"a\u0007b","result":{"type":"expired"}}` + "\n", nil,
			`log:1: custom_id: "a\ab" holds the control character U+0007 at character 2; a case id may hold any character but a control character (U+0000–U+001F, U+007F–U+009F): remove it`},
		{"white space at the start", OpenAIBatch, batchLine(`" a"`), nil,
			`log:1: custom_id: " a" begins with white space (U+0020); a case id may neither begin nor end with white space: trim it`},
		{"id of the wrong type", OpenAIBatch, batchLine(`true`), nil, "log:1: custom_id: expected a string or a number, got a boolean"},
		{"unknown result type", AnthropicBatch, `{"custom_id":"a","result":{"type":"paused"}}` + "\n", nil,
			`log:1: result.type: unknown result type "paused": expected succeeded, errored, expired or canceled`},
		{"duplicate custom_id", OpenAIBatch, batchLine(`"a"`) + batchLine(`"b"`) + "\n" + batchLine(`"a"`), nil,
			`log: case "a" is answered twice (line 1 and line 4)`},
		{"sample without id", Inspect, inspectLog(`{"epoch": 1, "messages": []}`), nil,
			"log:6: samples[0]: a sample has no id"},
		{"negative time", Inspect, inspectLog(`{"id": 1, "epoch": 1, "total_time": -0.5}`), nil,
			"log:6: samples[0].total_time: -0.5 is negative"},
		{"epoch 0", Inspect, inspectLog(`{"id": 1, "epoch": 0}`), nil,
			"log:6: samples[0].epoch: epoch 0 is not a whole number from 1 to 1048576"},
		{"one sample twice", Inspect, inspectLog(`{"id": 1, "epoch": 1}`, `{"id": "1", "epoch": 1}`), nil,
			`log: case "1" is answered twice (samples[0] and samples[1])`},
		{"empty tool name", Inspect, inspectLog(`{"id": 1, "epoch": 1, "messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": "", "arguments": {}}]}]}`), nil,
			"log:6: samples[0].messages[0].tool_calls[0].function: the tool name is empty"},
		{"a call in no known shape", OpenAIBatch, `{"custom_id": "a", "response": {"status_code": 200, "body": {"choices": [{"message": {"tool_calls": [{"id": "x", "type": "web"}]}}]}}}` + "\n", nil,
			"log:1: response.body.choices[0].message.tool_calls[0]: not a tool call in a shape releasegate knows"},
		{"latency of the wrong type", Promptfoo, promptfooExport(pfLine("a", "p", "x", `, "latencyMs": "fast"`)), nil,
			`log:4: results.results[0].latencyMs: expected a number, got a string`},
		{"two prompts, one provider", Promptfoo, promptfooExport(pfLine("a", "p", "x", ""), pfLine("a", "p", "y", "")), nil,
			`log: case "a" of provider "p" is answered twice (results.results[0] and results.results[1]); a snapshot holds one answer per case and trial: promptfoo answers each test once per prompt, so export an eval of one prompt (promptfoo eval --filter-prompts)`},
		{"no results", Promptfoo, promptfooExport(), nil, "log: the export holds no results: nothing to import"},
		{"no samples", Inspect, inspectLog(), nil, "log: the log holds no samples"},
		{"no lines", AnthropicBatch, "\n\n", nil, "log: this is not an Anthropic Message Batches results file: it holds nothing but white space"},

		// Ids that are not in the suite: the first 20 and a count.
		{"unknown ids", OpenAIBatch, manyLines, []string{"known"}, `log: the run answers 25 cases whose ids are not in the suite: "unknown-00", "unknown-01", "unknown-02", "unknown-03", "unknown-04", "unknown-05", "unknown-06", "unknown-07", "unknown-08", "unknown-09", "unknown-10", "unknown-11", "unknown-12", "unknown-13", "unknown-14", "unknown-15", "unknown-16", "unknown-17", "unknown-18", "unknown-19" and 5 more; add them to cases.jsonl`},
		{"an unknown id of a failed record", Inspect, inspectLog(`{"id": 1, "epoch": 1}`, `{"id": 2, "epoch": 1, "error": {"message": "x"}}`), []string{"1"},
			`log: the run answers a case whose id is not in the suite: "2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Import(tt.format, bytesSource("log", []byte(tt.data)), Options{Suite: tt.suite})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n  %v\nwant one holding\n  %s", err, tt.want)
			}
		})
	}
}

// damage flips bytes in the middle of the first sample member's data.
func damage(eval []byte) []byte {
	out := bytes.Clone(eval)
	i := bytes.Index(out, []byte("samples/a-1_epoch_1.json")) + len("samples/a-1_epoch_1.json") + 40
	for j := i; j < i+8; j++ {
		out[j] ^= 0x5a
	}
	return out
}

func otherZip(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("readme.txt")
	w.Write([]byte("hello"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWrongFormatErrorTellsWhatItIs(t *testing.T) {
	_, err := Import(OpenAIBatch, bytesSource("my results.json", []byte(promptfooExport(pfLine("a", "p", "x", "")))), Options{})
	var wf *WrongFormatError
	if !errors.As(err, &wf) || wf.Looks != Promptfoo || wf.Want != OpenAIBatch {
		t.Fatalf("error %v, want a WrongFormatError saying promptfoo", err)
	}
	if want := "try `releasegate import promptfoo 'my results.json'`"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v: want the command quoted for a shell: %s", err, want)
	}
}

func TestByteOrderMark(t *testing.T) {
	bom := "\xef\xbb\xbf"
	for _, tt := range []struct {
		format Format
		data   string
	}{
		{OpenAIBatch, bom + batchLine(`"a"`)},
		{Inspect, bom + inspectLog(`{"id": 1, "epoch": 1}`)},
		{Promptfoo, bom + promptfooExport(pfLine("a", "p", "x", ""))},
	} {
		res, err := Import(tt.format, bytesSource("log", []byte(tt.data)), Options{})
		if err != nil || len(res.Snapshots) != 1 || res.Snapshots[0].Lines() != 1 {
			t.Errorf("%s with a byte order mark: %v", tt.format, err)
		}
	}
	_, err := Import(OpenAIBatch, bytesSource("log", []byte(bom+batchLine(`"a"`)+"{")), Options{})
	if err == nil || !strings.Contains(err.Error(), "log:2: ") {
		t.Errorf("error %v, want one on line 2", err)
	}
}
