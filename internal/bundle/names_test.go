package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestCaseIDReader(t *testing.T) {
	tests := []struct {
		line string
		id   string
		ok   bool
	}{
		{`{"case_id": "ER-001", "title": "x"}`, "ER-001", true},
		{"\xEF\xBB\xBF  {\"case_id\":\"ER-002\"}\r", "ER-002", true},
		// A nested case_id before the top-level one is not taken for it.
		{`{"input": {"case_id": "nested", "a": [1, {"case_id": "deeper"}]}, "case_id": "ER-003"}`, "ER-003", true},
		{`{"title": "\"case_id\": \"fake\"", "case_id": "ER-004"}`, "ER-004", true},
		{`{"case_id": "\u0045R-005"}`, "ER-005", true},
		{`{"case_id": 5}`, "", false},
		{`{"input": {"case_id": "nested"}}`, "", false},
		{`{"case_id": "ER-006"`, "ER-006", true}, // the rest is the evaluation's to refuse
		{`{"title": "x", "case_id" "ER-007"}`, "", false},
		{`["case_id", "ER-008"]`, "", false},
		{``, "", false},
		{`not json`, "", false},
	}
	var ids idReader
	for _, tt := range tests {
		id, ok := ids.caseID([]byte(tt.line))
		if id != tt.id || ok != tt.ok {
			t.Errorf("caseID(%q) = %q, %v; want %q, %v", tt.line, id, ok, tt.id, tt.ok)
		}
	}
}

func TestCheckNames(t *testing.T) {
	tests := []struct {
		name   string
		inputs []input
		want   string // "" for no error
	}{
		{"distinct", []input{{"cases.jsonl", []byte("{\"case_id\":\"A-1\"}\n{\"case_id\":\"A-2\"}\n")}, {"outputs/v1.jsonl", nil}, {"outputs/v2.jsonl", nil}}, ""},
		{"ids", []input{{"cases.jsonl", []byte("{\"case_id\":\"A-1\"}\n\n{\"case_id\":\"a-1\"}\n")}}, `d/cases.jsonl:3: case_id: "a-1" is the same as "A-1" (line 1) under case folding`},
		// The same id twice is a duplicate, which the evaluation words.
		{"duplicate", []input{{"cases.jsonl", []byte("{\"case_id\":\"A-1\"}\n{\"case_id\":\"A-1\"}\n")}}, ""},
		{"labels", []input{{"outputs/Run-1.jsonl", nil}, {"outputs/Run-1.meta.json", nil}, {"outputs/run-1.jsonl", nil}}, `d/outputs/run-1.jsonl: snapshot label "run-1" is the same as "Run-1" under case folding`},
	}
	for _, tt := range tests {
		err := checkNames("d", tt.inputs)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || len(err.Error()) < len(tt.want) || err.Error()[:len(tt.want)] != tt.want):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

// FuzzCaseIDReader holds the quick reader of case_id to a full decode:
// on a valid JSON object, it finds the same top-level string, or none.
func FuzzCaseIDReader(f *testing.F) {
	for _, s := range []string{
		`{"case_id": "ER-001"}`,
		`{"input": {"case_id": "x"}, "case_id": "ER-002"}`,
		`{"case_id": 1}`,
		`{"a": [1, 2, {"b": null}], "case_id": "\u00e9"}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	var ids idReader
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ok := ids.caseID(line)
		if !jsontext.Value(line).IsValid() {
			return // anything goes, as long as it does not panic
		}
		var whole map[string]any
		if json.Unmarshal(line, &whole) != nil {
			return // not an object
		}
		want, isString := whole["case_id"].(string)
		if ok != isString || id != want {
			t.Fatalf("caseID(%q) = %q, %v; a full decode gives %q, %v", line, id, ok, want, isString)
		}
	})
}

// BenchmarkCheckNames reads the case ids of a cases.jsonl of 10,000 lines
// in the sample's shape, the check a bundle makes before evaluating.
func BenchmarkCheckNames(b *testing.B) {
	src, err := os.ReadFile(filepath.Join(sampleData, "cases.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
	var cases []byte
	for i := range 10_000 {
		line := bytes.Replace(lines[i%len(lines)], []byte(`"case_id": "ER-`), fmt.Appendf(nil, `"case_id": "GEN-%06d-`, i), 1)
		cases = append(append(cases, line...), '\n')
	}
	inputs := []input{{"cases.jsonl", cases}, {"outputs/a.jsonl", nil}, {"outputs/b.jsonl", nil}}
	b.SetBytes(int64(len(cases)))
	for b.Loop() {
		if err := checkNames("d", inputs); err != nil {
			b.Fatal(err)
		}
	}
}
