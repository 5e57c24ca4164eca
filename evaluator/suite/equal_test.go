package suite

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// Equal must compare every field: a field added to these types must be
// added to it too.
func TestEqualKnowsEveryField(t *testing.T) {
	for typ, fields := range map[reflect.Type]int{
		reflect.TypeFor[Output]():       9,
		reflect.TypeFor[ToolCall]():     4,
		reflect.TypeFor[Member]():       2,
		reflect.TypeFor[Case]():         7,
		reflect.TypeFor[Expected]():     5,
		reflect.TypeFor[ExpectedCall](): 2,
	} {
		if n := typ.NumField(); n != fields {
			t.Errorf("%s has %d fields, Equal compares %d: compare the new ones", typ, n, fields)
		}
	}
}

// randomOutput makes an output from a few choices per field, so that two
// outputs made from different seeds are often equal, or nearly.
func randomOutput(r *rand.Rand) *Output {
	if r.IntN(10) == 0 {
		return nil
	}
	pick := func(n int) int { return r.IntN(n) }
	o := &Output{CaseID: []string{"A", "B"}[pick(2)], Decision: []Decision{"", "approve"}[pick(2)], Trial: pick(2), Line: pick(2)}
	numbers := []*Number{nil, {lit: "1"}, {lit: "1.0"}}
	o.LatencyMS, o.CostUSD = numbers[pick(3)], numbers[pick(3)]
	o.Citations = [][]string{nil, {}, {"R1"}, {"R1", "R2"}}[pick(4)]
	o.Place = []LinePlace{{}, {}, {Offset: 1, Size: 9, Sum: 7}, {Offset: 1, Size: 9, Sum: 8}}[pick(4)]
	if pick(3) > 0 {
		o.ToolCalls = []ToolCall{}
		for range pick(3) {
			o.ToolCalls = append(o.ToolCalls, ToolCall{Name: []string{"a", "b"}[pick(2)], Unreadable: pick(4) == 0, Raw: []string{"", "{}"}[pick(2)], Arguments: randomObject(r, 2)})
		}
	}
	return o
}

func randomObject(r *rand.Rand, depth int) Object {
	if r.IntN(4) == 0 {
		return nil
	}
	o := Object{}
	for range r.IntN(3) {
		o = append(o, Member{Name: []string{"x", "y"}[r.IntN(2)], Value: randomValue(r, depth)})
	}
	return o
}

func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(8); {
	case n == 0:
		return nil
	case n == 1:
		return "s"
	case n == 2:
		return r.IntN(2) == 0
	case n == 3:
		return Number{lit: []string{"1", "2"}[r.IntN(2)]}
	case n == 4 && depth > 0:
		return randomObject(r, depth-1)
	case n == 5 && depth > 0:
		if r.IntN(3) == 0 {
			return []any(nil)
		}
		list := []any{}
		for range r.IntN(3) {
			list = append(list, randomValue(r, depth-1))
		}
		return list
	case n == 6:
		return 1.5 // not from the loader: compared by reflect.DeepEqual
	}
	return "t"
}

func FuzzOutputEqual(f *testing.F) {
	f.Add(uint64(1), uint64(1))
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		x, y := randomOutput(rand.New(rand.NewPCG(a, 0))), randomOutput(rand.New(rand.NewPCG(b, 0)))
		if got, want := x.Equal(y), reflect.DeepEqual(x, y); got != want {
			t.Fatalf("Equal = %v, reflect.DeepEqual = %v:\n%#v\n%#v", got, want, x, y)
		}
		if !x.Equal(x) {
			t.Fatalf("an output differs from itself: %#v", x)
		}
	})
}

// TestOutputEqualAsDeepEqual runs many pairs of the fuzz target's kind,
// so that plain go test covers the near misses.
func TestOutputEqualAsDeepEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	equal := 0
	for range 20_000 {
		x, y := randomOutput(r), randomOutput(r)
		got, want := x.Equal(y), reflect.DeepEqual(x, y)
		if got != want {
			t.Fatalf("Equal = %v, reflect.DeepEqual = %v:\n%#v\n%#v", got, want, x, y)
		}
		if want {
			equal++
		}
	}
	if equal == 0 {
		t.Fatal("no pair was equal: the test says nothing about Equal's true answers")
	}
	// The same seed makes the same output in new memory.
	for seed := range uint64(2000) {
		x, y := randomOutput(rand.New(rand.NewPCG(seed, 1))), randomOutput(rand.New(rand.NewPCG(seed, 1)))
		if !reflect.DeepEqual(x, y) || !x.Equal(y) {
			t.Fatalf("seed %d: Equal = %v, reflect.DeepEqual = %v:\n%#v", seed, x.Equal(y), reflect.DeepEqual(x, y), x)
		}
	}
}

// randomCase makes a case from a few choices per field, its expected
// arguments sometimes holding a matcher, which Equal leaves to
// reflect.DeepEqual.
func randomCase(r *rand.Rand) *Case {
	if r.IntN(10) == 0 {
		return nil
	}
	pick := func(n int) int { return r.IntN(n) }
	c := &Case{ID: []string{"A", "B"}[pick(2)], Title: []string{"", "t"}[pick(2)], Severity: []Severity{Critical, Minor}[pick(2)], Line: pick(2)}
	c.Input = [][]byte{nil, []byte("{}"), []byte(`{"a":1}`)}[pick(3)]
	c.InputPlace = []LinePlace{{}, {}, {Offset: 3, Size: 5, Sum: 1}}[pick(3)]
	c.Expected.Decision = []Decision{"", "approve"}[pick(2)]
	c.Expected.ToolMatch = []ToolMatch{"", MatchContains}[pick(2)]
	c.Expected.Citations = [][]string{nil, {}, {"R1"}}[pick(3)]
	c.Expected.ForbiddenTools = [][]string{nil, {"pay"}}[pick(2)]
	if pick(3) > 0 {
		c.Expected.ToolCalls = []ExpectedCall{}
		for range pick(3) {
			args := randomValue(r, 2)
			if pick(5) == 0 {
				raw := Object{{Name: "id", Value: Object{{Name: "$any", Value: []any{"C-1", []string{"C-2", "D-2"}[pick(2)]}}}}}
				compiled, err := CompileArguments(raw, "arguments")
				if err != nil {
					panic(err)
				}
				args = compiled
			}
			c.Expected.ToolCalls = append(c.Expected.ToolCalls, ExpectedCall{Name: []string{"a", "b"}[pick(2)], Arguments: args})
		}
	}
	return c
}

func TestCaseEqualAsDeepEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for range 20_000 {
		x, y := randomCase(r), randomCase(r)
		if got, want := x.Equal(y), reflect.DeepEqual(x, y); got != want {
			t.Fatalf("Equal = %v, reflect.DeepEqual = %v:\n%#v\n%#v", got, want, x, y)
		}
	}
	for seed := range uint64(2000) {
		x, y := randomCase(rand.New(rand.NewPCG(seed, 1))), randomCase(rand.New(rand.NewPCG(seed, 1)))
		if !reflect.DeepEqual(x, y) || !x.Equal(y) {
			t.Fatalf("seed %d: Equal = %v, reflect.DeepEqual = %v:\n%#v", seed, x.Equal(y), reflect.DeepEqual(x, y), x)
		}
	}
}
