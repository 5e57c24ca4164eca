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
	b, err := appendRowTable(nil, nil)
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
			table, err := appendRowTable(nil, rowsOf([]pages.CaseFields{tt.row}))
			if err != nil {
				t.Fatal(err)
			}
			b, err := dataScriptOf("snapshot:s", table)
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

// The rows appended by hand are the bytes encoding/json writes for the
// same values as []any (rowTable, the way they were written before).
func TestRowTableAsEncodingJSON(t *testing.T) {
	rows := []pages.CaseFields{
		{Passed: true, Codes: "wrong tool", Search: "<&> \"q\" \u2028 \xff", Latency: "1 s", LatencySort: "1000.000000", Cost: "$1", CostSort: "1", Trials: pages.RowTrials{"", "-"}},
		{Latency: "no output", Cost: "no output"},
		{Latency: "x", Cost: "y", Trials: pages.RowTrials{}},
	}
	for i := range rows {
		checkRowTable(t, rows[:i])
	}
	checkRowTable(t, rows)
	for _, f := range caseFields {
		if f.kind == rowValue {
			t.Errorf("field %s is written by encoding/json: give its type a kind", f.name)
		}
	}
}

func FuzzRowTable(f *testing.F) {
	f.Add(true, "codes <b>", "search & \"", "1,200 ms", "1200.5", "$0.01", "0.01", "tool_args", 2)
	f.Add(false, "\xff", "\u2028", "", "", "", "", "", 0)
	f.Fuzz(func(t *testing.T, passed bool, codes, search, latency, latencySort, cost, costSort, trial string, trials int) {
		row := pages.CaseFields{Passed: passed, Codes: codes, Search: search, Latency: latency, LatencySort: pages.Decimal(latencySort),
			LatencyOver: !passed, Cost: cost, CostSort: pages.Decimal(costSort), CostOver: passed}
		for range trials % 4 {
			row.Trials = append(row.Trials, trial)
		}
		checkRowTable(t, []pages.CaseFields{row, {}, row})
	})
}

// rowsOf gives case-table rows their fields.
func rowsOf(fields []pages.CaseFields) []pages.CaseRow {
	rows := make([]pages.CaseRow, len(fields))
	for i, f := range fields {
		rows[i].CaseFields = f
	}
	return rows
}

func checkRowTable(t *testing.T, rows []pages.CaseFields) {
	t.Helper()
	got, err := appendRowTable(nil, rowsOf(rows))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(newRowTable(rows))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("rows written as\n%s\nencoding/json writes\n%s", got, want)
	}
}

// BenchmarkFastPathRowTable writes the case table data of 100,000 rows
// by hand ("fast") and through json.Marshal of []any ("plain"), in turn.
//
//	go test ./site/internal/render -run '^$' -bench FastPathRowTable -benchmem -count 5
func BenchmarkFastPathRowTable(b *testing.B) {
	rows := make([]pages.CaseFields, 100_000)
	for i := range rows {
		rows[i] = pages.CaseFields{Passed: i%7 != 0, Latency: "1,200 ms", LatencySort: "1200", Cost: "USD 0.0125", CostSort: "0.0125", LatencyOver: i%50 == 0}
		if !rows[i].Passed {
			rows[i].Codes, rows[i].Search = "wrong decision", "decision_mismatch expected approve, got escalate"
		}
	}
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(newRowTable(rows)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast", func(b *testing.B) {
		caseRows := rowsOf(rows)
		for b.Loop() {
			if _, err := appendRowTable(make([]byte, 0, 128*len(rows)), caseRows); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// rowTable is how the rows were written before appendRowTable: one
// json.Marshal of plain values, a Decimal as its string or nil. It is
// the reference appendRowTable is held to.
type rowTable struct {
	Fields []string `json:"fields"`
	Rows   [][]any  `json:"rows"`
}

func newRowTable(rows []pages.CaseFields) rowTable {
	t := rowTable{Fields: make([]string, len(caseFields)), Rows: make([][]any, len(rows))}
	for i, f := range caseFields {
		t.Fields[i] = f.name
	}
	for i := range rows {
		t.Rows[i] = rowValues(reflect.ValueOf(&rows[i]).Elem())
	}
	return t
}

// rowValues are one row's values, in the order of caseFields.
func rowValues(row reflect.Value) []any {
	n := len(caseFields)
	for n > 0 && caseFields[n-1].omitEmpty && row.Field(caseFields[n-1].index).IsZero() {
		n--
	}
	out := make([]any, n)
	for i, f := range caseFields[:n] {
		v := row.Field(f.index)
		switch {
		case f.kind == rowBool && v.Bool():
			out[i] = 1
		case f.kind == rowBool:
			out[i] = 0
		case f.kind == rowDecimal && v.String() == "":
			out[i] = nil
		case f.kind == rowDecimal:
			out[i] = v.String()
		default:
			out[i] = v.Interface()
		}
	}
	return out
}
