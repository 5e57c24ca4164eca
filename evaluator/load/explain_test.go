package load

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestCommonJSONMistakes: each mistake people make writing JSON Lines by
// hand is named, with its fix, at the column of the mistake.
func TestCommonJSONMistakes(t *testing.T) {
	good := `{"case_id": "A-1", "title": "t", "severity": "minor", "input": {}, "expected": {"tool_calls": [], "forbidden_tools": []}}`
	tests := []struct {
		name, in, want string
	}{
		{"trailing comma", good[:len(good)-1] + ",}",
			`cases.jsonl:1:121: invalid JSON: a comma before the closing '}' — delete the comma after the last item`},
		{"trailing comma in an array", strings.Replace(good, `"tool_calls": []`, `"tool_calls": [{"name": "x", "arguments": {}},]`, 1),
			`cases.jsonl:1:126: invalid JSON: a comma before the closing ']' — delete the comma after the last item`},
		{"single quotes", strings.Replace(good, `"title"`, `'title'`, 1),
			`cases.jsonl:1:20: invalid JSON: a string in single quotes — use double quotes: "like this"`},
		{"unquoted name", strings.Replace(good, `"title"`, `title`, 1),
			`cases.jsonl:1:20: invalid JSON: the name title is not in double quotes — write "title"`},
		{"line comment", good + " // the first case",
			`cases.jsonl:1:123: invalid JSON: JSON has no comments — delete the comment; keep notes in a member of their own, such as "note"`},
		{"block comment", strings.Replace(good, `"title"`, `/* why */ "title"`, 1),
			`cases.jsonl:1:20: invalid JSON: JSON has no comments — delete the comment; keep notes in a member of their own, such as "note"`},
		{"a JSON array on one line", "[" + good + ",",
			`cases.jsonl:1:1: invalid JSON: the file is a JSON array, but releasegate reads JSON Lines — write one object per line, with no [ ] around them and no commas between lines (jq -c '.[]' FILE converts it)`},
		{"a pretty-printed JSON array", "[\n  " + good + "\n]",
			`cases.jsonl:1:1: invalid JSON: the file is a JSON array, but releasegate reads JSON Lines — write one object per line, with no [ ] around them and no commas between lines (jq -c '.[]' FILE converts it)`},
		{"a pretty-printed object", "{\n  \"case_id\": \"A-1\",\n  \"title\": \"t\"\n}",
			`cases.jsonl:1:1: invalid JSON: this line is part of an object written over several lines (pretty-printed), but each line must hold a whole object — put each object on one line (jq -c . FILE converts a pretty-printed file)`},
		{"lines separated by commas", good + ",\n" + good,
			`cases.jsonl:1:122: invalid JSON: the line ends with a comma — delete the comma at the end of the line; lines of JSON Lines are not separated by commas`},
		{"two commas", strings.Replace(good, `"t",`, `"t",,`, 1),
			`cases.jsonl:1:33: invalid JSON: two commas in a row — delete one of them`},
		{"a byte-order mark inside the file", "\xef\xbb\xbf" + good + "\n\xef\xbb\xbf" + good,
			`cases.jsonl:2:1: invalid JSON: a byte-order mark in the middle of the file (were files joined together?) — delete the invisible character at this column, or save the file as UTF-8 without BOM`},
		{"Python's True", strings.Replace(good, `"input": {}`, `"input": {"urgent": True}`, 1),
			`cases.jsonl:1:75: invalid JSON: True is not a JSON value — use true, false, null or a number`},
		{"cut short", good[:40],
			`cases.jsonl:1:41: invalid JSON: the line ends before the value does — close every { and [ and every string on the same line; one JSON object per line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Cases("cases.jsonl", strings.NewReader(tt.in), nil, nil, false)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n  %v\nwant\n  %s", err, tt.want)
			}
		})
	}
}

// TestByteOrderMarkAccepted: a file saved with a byte-order mark is read
// as if it had none.
func TestByteOrderMarkAccepted(t *testing.T) {
	good := `{"case_id": "A-1", "title": "t", "severity": "minor", "input": {}, "expected": {"tool_calls": [], "forbidden_tools": []}}`
	if _, err := Cases("cases.jsonl", strings.NewReader("\xef\xbb\xbf"+good), nil, nil, false); err != nil {
		t.Fatal(err)
	}
}

// TestInputErrorForm: the one form of every input error.
func TestInputErrorForm(t *testing.T) {
	tests := []struct {
		e    suite.InputError
		want string
	}{
		{suite.InputError{File: "f", Msg: "m"}, "f: m"},
		{suite.InputError{File: "f", Line: 3, Msg: "m"}, "f:3: m"},
		{suite.InputError{File: "f", Line: 3, Col: 7, Msg: "m"}, "f:3:7: m"},
		{suite.InputError{File: "f", Col: 7, Msg: "m"}, "f: m"}, // a column needs a line
		{suite.InputError{File: "f", Line: 3, Col: 7, Field: "a.b", Msg: "m", Fix: "do x"}, "f:3:7: a.b: m — do x"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.e, got, tt.want)
		}
	}
	many := &suite.InputErrors{Problems: []*suite.InputError{{File: "f", Line: 1, Msg: "a"}, {File: "f", Line: 2, Msg: "b"}}, More: 3}
	if got, want := many.Error(), "f:1: a\nf:2: b\n… and 3 more problems"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func FuzzJSONMistake(f *testing.F) {
	f.Add([]byte(`{"a": 1,}`), 8, 1, false)
	f.Add([]byte(`{a: 1}`), 2, 1, false)
	f.Add([]byte(`[`), 1, 1, true)
	f.Fuzz(func(t *testing.T, text []byte, off, line int, early bool) {
		what, fix, at, ok := jsonMistake(text, off, line, early)
		if ok && (what == "" || fix == "" || at < 0 || at > len(text)) {
			t.Fatalf("jsonMistake(%q, %d) = %q, %q, %d", text, off, what, fix, at)
		}
	})
}
