package pages

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

func decode(t testing.TB, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJSONLines(t *testing.T) {
	v := decode(t, `{"b": [1, {"c": null}], "a": "x<y", "odd key": {}, "e": []}`)
	var got []string
	for _, l := range jsonLines("arguments", v) {
		got = append(got, l.Path+"\t"+l.Text)
	}
	want := []string{
		"arguments\t{",
		`arguments.a` + "\t" + `  "a": "x<y",`,
		`arguments.b` + "\t" + `  "b": [`,
		`arguments.b[0]` + "\t" + `    1,`,
		`arguments.b[1]` + "\t" + `    {`,
		`arguments.b[1].c` + "\t" + `      "c": null`,
		"\t    }",
		"\t  ],",
		`arguments.e` + "\t" + `  "e": [],`,
		`arguments["odd key"]` + "\t" + `  "odd key": {}`,
		"\t}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMismatchPathsAreShown(t *testing.T) {
	tests := []struct {
		name, expected, actual string
		marked                 []string // expected-side notes, in order
	}{
		{"value differs", `{"reason_code": "MISSING_INDEPENDENT_APPROVAL"}`, `{"reason_code": "SELF_APPROVAL"}`,
			[]string{`arguments.reason_code: actual: "SELF_APPROVAL"`}},
		{"nested key missing", `{"approver": {"id": "M-1", "role": "manager"}}`, `{"approver": {"id": "M-1"}}`,
			[]string{"arguments.approver.role: missing from the actual call"}},
		{"numbers by value", `{"amount": 1250}`, `{"amount": 1250.0}`, nil},
		{"array length", `{"ids": [1, 2]}`, `{"ids": [1]}`,
			[]string{"arguments.ids: expected an array of 2 items, got 1"}},
		{"type differs", `{"x": {"y": 1}}`, `{"x": 1}`, []string{"arguments.x: actual: 1"}},
		{"odd keys", `{"a b": {"<c>": 1}}`, `{"a b": {"<c>": 2}}`, []string{`arguments["a b"]["\u003cc\u003e"]: actual: 2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp, act := decode(t, tt.expected), decode(t, tt.actual)
			ms := judge.CompareArguments(suite.NewObject(exp), suite.ToolCall{Arguments: suite.NewObject(act)})
			lines := jsonLines("arguments", exp)
			markMismatches(lines, ms, true)
			var got []string
			for _, l := range lines {
				if l.Mark {
					got = append(got, l.Path+": "+l.Note)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.marked, "\n") {
				t.Errorf("marked:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.marked, "\n"))
			}
		})
	}
}

// FuzzMismatchPathsAreShown keeps the page's path notation in step with
// judge.CompareArguments: every mismatch the judge reports must mark a
// line on the expected side, and every one with an actual value a line
// on the actual side.
func FuzzMismatchPathsAreShown(f *testing.F) {
	f.Add(`{"a": 1, "b": {"c": [1, 2]}}`, `{"a": 2, "b": {"c": [1]}}`)
	f.Add(`{"odd key": {"<x>": "y"}}`, `{"odd key": {"<x>": "z"}}`)
	f.Add(`{"k": {"é": null}}`, `{"k": {"é": false}}`)
	f.Fuzz(func(t *testing.T, expected, actual string) {
		exp, err1 := decodeObject(expected)
		act, err2 := decodeObject(actual)
		if err1 != nil || err2 != nil {
			return
		}
		ms := judge.CompareArguments(suite.NewObject(exp), suite.ToolCall{Arguments: suite.NewObject(act)})
		expLines, actLines := jsonLines("arguments", exp), jsonLines("arguments", act)
		markMismatches(expLines, ms, true)
		markMismatches(actLines, ms, false)
		for _, m := range ms {
			if !markedAt(expLines, m.Path) {
				t.Errorf("mismatch at %s is not marked on the expected side", m.Path)
			}
			if !m.Missing && !markedAt(actLines, m.Path) {
				t.Errorf("mismatch at %s is not marked on the actual side", m.Path)
			}
		}
	})
}

func decodeObject(s string) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v map[string]any
	err := dec.Decode(&v)
	return v, err
}

func markedAt(lines []JSONLine, path string) bool {
	for _, l := range lines {
		if l.Path == path && l.Mark {
			return true
		}
	}
	return false
}

// TestDeepValuesStaySmall keeps a hostile, deeply nested value from
// blowing a page up: past maxIndentDepth it is written on one line.
func TestDeepValuesStaySmall(t *testing.T) {
	const depth = 5000
	raw := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	lines := jsonLines("arguments", decode(t, raw))
	size := 0
	for _, l := range lines {
		size += len(l.Text) + len(l.Path)
	}
	if len(lines) > 2*maxIndentDepth+1 || size > 40*len(raw) {
		t.Fatalf("%d lines, %d bytes for a %d-byte value", len(lines), size, len(raw))
	}
	if got := prettyInput([]byte(raw)); got != raw {
		t.Fatalf("deep input was re-laid out (%d bytes)", len(got))
	}
	if got := prettyInput([]byte(`{"a":{"b":[1,"x]}"]}}`)); !strings.Contains(got, "\n    \"b\": [") {
		t.Fatalf("shallow input not indented:\n%s", got)
	}
}
