package render

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/releasegate/releasegate/site/pages"
)

// TestCaseFieldNames holds the rule that lets the template and the table
// script share the fields of a case row: each JSON name is its Go name
// with a lower-case first letter, and the data file lists them all, in
// order.
func TestCaseFieldNames(t *testing.T) {
	typ := reflect.TypeFor[pages.CaseFields]()
	if len(caseFields) != typ.NumField() {
		t.Fatalf("%d data fields for %d Go fields", len(caseFields), typ.NumField())
	}
	for i, f := range caseFields {
		goName := typ.Field(i).Name
		r, size := utf8.DecodeRuneInString(goName)
		if want := string(unicode.ToLower(r)) + goName[size:]; f.name != want {
			t.Errorf("field %s is written as %q, want %q", goName, f.name, want)
		}
	}
	b, err := json.Marshal(newRowTable(nil))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Fields []string `json:"fields"`
		Rows   [][]any  `json:"rows"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if len(got.Fields) != len(caseFields) || got.Rows == nil || len(got.Rows) != 0 {
		t.Errorf("an empty table is %s", b)
	}
	for i, f := range caseFields {
		if i < len(got.Fields) && got.Fields[i] != f.name {
			t.Errorf("fields[%d] = %q, want %q", i, got.Fields[i], f.name)
		}
	}
}

// TestRowTableRows checks how a row is written: a value per field in
// order, bools as 1 and 0, a measure as its exact literal and a
// missing one as null, the trials left off
// without trials, and no raw markup.
func TestRowTableRows(t *testing.T) {
	tests := []struct {
		name string
		row  pages.CaseFields
		want string
	}{
		{"passed, measured",
			pages.CaseFields{Passed: true, Latency: "1,200 ms", LatencySort: "1200.50", Cost: "$0.0100", CostSort: "0.0100"},
			`[1,"","","1,200 ms","1200.50",0,"$0.0100","0.0100",0]`},
		{"no output",
			pages.CaseFields{Codes: "no output", Search: "missing_output", Latency: "no output", Cost: "no output"},
			`[0,"no output","missing_output","no output",null,0,"no output",null,0]`},
		{"over both limits",
			pages.CaseFields{Latency: "9 s", LatencySort: "9000", LatencyOver: true, Cost: "$2", CostSort: "2", CostOver: true},
			`[0,"","","9 s","9000",1,"$2","2",1]`},
		{"cost measured, latency not",
			pages.CaseFields{Latency: "not measured", Cost: "$1", CostSort: "1"},
			`[0,"","","not measured",null,0,"$1","1",0]`},
		{"trials",
			pages.CaseFields{Passed: true, Latency: "no output", Cost: "no output", Trials: pages.RowTrials{"", pages.NoOutputTrial, "tool_args"}},
			`[1,"","","no output",null,0,"no output",null,0,["","-","tool_args"]]`},
		{"markup in the details",
			pages.CaseFields{Search: "</script><b>&", Latency: "x", Cost: "y"},
			`[0,"","\u003c/script\u003e\u003cb\u003e\u0026","x",null,0,"y",null,0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := dataScript("snapshot:s", newRowTable([]pages.CaseFields{tt.row}))
			if err != nil {
				t.Fatal(err)
			}
			_, rows, ok := strings.Cut(string(b), `"rows":[`)
			if !ok {
				t.Fatalf("no rows: %s", b)
			}
			if got := strings.TrimSuffix(rows, "]};\n"); got != tt.want {
				t.Errorf("row written as\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestRowValuesAsTheFieldsMarshal holds the row encoder's shortcuts to
// what encoding/json writes for each field, but for bools (1 or 0).
func TestRowValuesAsTheFieldsMarshal(t *testing.T) {
	rows := []pages.CaseFields{
		{Passed: true, Codes: "wrong tool", Search: "<&>", Latency: "1 s", LatencySort: "1000.000000", Cost: "$1", CostSort: "1", Trials: pages.RowTrials{"", "-"}},
		{Latency: "no output", Cost: "no output"},
	}
	for _, row := range rows {
		values := rowValues(reflect.ValueOf(&row).Elem())
		field := reflect.ValueOf(row)
		for i, v := range values {
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			f := caseFields[i]
			if f.kind == rowBool {
				if want := map[bool]string{true: "1", false: "0"}[field.Field(f.index).Bool()]; string(got) != want {
					t.Errorf("%s: %s, want %s", f.name, got, want)
				}
				continue
			}
			want, err := json.Marshal(field.Field(f.index).Interface())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s: %s, want %s", f.name, got, want)
			}
		}
	}
}
