package judge

import (
	"math/big"
	"slices"
	"testing"

	"github.com/releasegate/releasegate/evaluator/internal/jsontest"
	"github.com/releasegate/releasegate/evaluator/suite"
)

func decodeObject(s string) (suite.Object, bool) {
	v, err := jsontest.Decode([]byte(s))
	m, ok := v.(map[string]any)
	return suite.NewObject(m), err == nil && ok
}

func paths(ms []Mismatch) []string {
	var ps []string
	for _, m := range ms {
		ps = append(ps, m.String())
	}
	return ps
}

func FuzzCompareArguments(f *testing.F) {
	f.Add(`{"claim_id":"C-1","amount":1250}`, `{"claim_id":"C-1","amount":1250.0,"x":1}`)
	f.Add(`{"a":{"b":[1,2,{"c":null}]}}`, `{"a":{"b":[2,1,{"c":false}]}}`)
	f.Add(`{"n":1e400}`, `{"n":10e399}`)
	f.Add(`{"s":"\u00e9"}`, `{"s":"é"}`)
	f.Fuzz(func(t *testing.T, expected, actual string) {
		exp, ok1 := decodeObject(expected)
		act, ok2 := decodeObject(actual)
		if !ok1 || !ok2 {
			return
		}
		if self := CompareArguments(exp, suite.ToolCall{Arguments: exp}); len(self) != 0 {
			t.Fatalf("a value does not match itself: %v", paths(self))
		}
		want := paths(CompareArguments(exp, suite.ToolCall{Arguments: act}))
		// The allocation-free check agrees with the full comparison.
		var full []Mismatch
		compareObject("arguments", exp, act, false, &full)
		if objectMatches(exp, act) != (len(full) == 0) || !slices.Equal(paths(full), want) {
			t.Fatalf("fast check %v, full comparison %v", objectMatches(exp, act), paths(full))
		}
		e2, a2 := jsontest.Respace(exp.Map()), jsontest.Respace(act.Map())
		exp2, ok1 := decodeObject(string(e2))
		act2, ok2 := decodeObject(string(a2))
		if !ok1 || !ok2 {
			t.Fatalf("re-serialised JSON does not decode: %s / %s", e2, a2)
		}
		if got := paths(CompareArguments(exp2, suite.ToolCall{Arguments: act2})); !slices.Equal(got, want) {
			t.Fatalf("verdict changed after re-serialising:\n got %v\nwant %v", got, want)
		}
	})
}

// FuzzEqualNumbers checks the literal comparison against exact rational
// arithmetic, for numbers small enough to evaluate.
func FuzzEqualNumbers(f *testing.F) {
	f.Add("1250", "1250.0")
	f.Add("-0", "0e5")
	f.Add("1.5e+2", "150")
	f.Add("12e-1", "1.2")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !suite.ValidNumber(a) || !suite.ValidNumber(b) || len(a) > 40 || len(b) > 40 {
			return
		}
		ra, oka := new(big.Rat).SetString(a)
		rb, okb := new(big.Rat).SetString(b)
		if !oka || !okb {
			return // exponents too large for big.Rat; TestEqualNumbers covers those
		}
		if got, want := EqualNumbers(a, b), ra.Cmp(rb) == 0; got != want {
			t.Fatalf("EqualNumbers(%s, %s) = %v, want %v", a, b, got, want)
		}
	})
}
