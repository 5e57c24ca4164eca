package bundle

import "testing"

func TestCheckNames(t *testing.T) {
	tests := []struct {
		name   string
		inputs []input
		want   string // "" for no error
	}{
		{"distinct", []input{{"cases.jsonl", []byte("{\"case_id\":\"A-1\"}\n{\"case_id\":\"A-2\"}\n")}, {"outputs/v1.jsonl", nil}, {"outputs/v2.jsonl", nil}}, ""},
		// Their pages are named apart, so a bundle holds both.
		{"ids equal under case folding", []input{{"cases.jsonl", []byte("{\"case_id\":\"A-1\"}\n\n{\"case_id\":\"a-1\"}\n")}}, ""},
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
