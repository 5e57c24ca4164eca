package pages

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// rawOutputMarshalled is rawOutput as it was, every value through
// json.Marshal: the reference the hand-written one is held to.
func rawOutputMarshalled(o *suite.Output) string {
	var b strings.Builder
	b.WriteByte('{')
	member := func(name string, value any) {
		if b.Len() > 1 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + name + `": `)
		j, err := json.Marshal(value)
		if err != nil {
			j = []byte("null")
		}
		b.Write(j)
	}
	member("case_id", o.CaseID)
	if o.Decision != "" {
		member("decision", o.Decision)
	}
	member("tool_calls", o.ToolCalls)
	member("citations", o.Citations)
	member("latency_ms", o.LatencyMS)
	member("cost_usd", o.CostUSD)
	b.WriteByte('}')
	return b.String()
}

// Every output of the sample, every example and generated suites without
// and with trials is written back as json.Marshal writes it.
func TestRawOutputAsMarshalled(t *testing.T) {
	n := 0
	for _, dir := range testDataDirs(t) {
		rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range rel.Snapshots {
			outs := s.Outputs
			for _, t := range s.TrialOutputs {
				outs = append(outs, t...)
			}
			for _, o := range outs {
				if o == nil {
					continue
				}
				n++
				if got, want := rawOutput(o), rawOutputMarshalled(o); got != want {
					t.Fatalf("%s %s: rawOutput\n%s\nwant\n%s", dir, s.Label(), got, want)
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d outputs compared", n)
	}
}

func FuzzRawOutput(f *testing.F) {
	f.Add(uint64(1), "approve", "<b>&amp;</b>")
	f.Add(uint64(2), "", "\xff\u2028x")
	f.Add(uint64(3), "no_op", "")
	f.Fuzz(func(t *testing.T, seed uint64, decision, text string) {
		r := rand.New(rand.NewPCG(seed, 7))
		o := randomOutput(r, decision, text)
		if got, want := rawOutput(o), rawOutputMarshalled(o); got != want {
			t.Fatalf("rawOutput\n%s\nwant\n%s", got, want)
		}
	})
}

// randomOutput is an output whose texts are drawn from text and a few
// that need escaping, with argument trees of every kind a tree holds,
// repeated names, and numbers near the ends of float64.
func randomOutput(r *rand.Rand, decision, text string) *suite.Output {
	texts := []string{text, "a", "<&>", "\u2028", "\xff", `"q"`, "b", ""}
	str := func() string { return texts[r.IntN(len(texts))] }
	numbers := []string{"0", "-0", "1.5", "212", "-1e-400", "1e300", "123456789012345678901234567890", "0.1", "1E2", "5e-7"}
	num := func() suite.Number {
		n, err := suite.ParseNumber(numbers[r.IntN(len(numbers))])
		if err != nil {
			panic(err)
		}
		return n
	}
	var value func(depth int) any
	object := func(depth int) suite.Object {
		if r.IntN(6) == 0 {
			return nil
		}
		var o suite.Object
		for range r.IntN(4) {
			o = append(o, suite.Member{Name: str(), Value: value(depth + 1)})
		}
		return o
	}
	value = func(depth int) any {
		switch k := r.IntN(8); {
		case depth > 3 || k == 0:
			return str()
		case k == 1:
			return nil
		case k == 2:
			return r.IntN(2) == 0
		case k == 3:
			return num()
		case k == 4:
			var l []any
			for range r.IntN(3) {
				l = append(l, value(depth+1))
			}
			return l
		case k == 5:
			return 1.5 // a type the trees never hold
		default:
			return object(depth)
		}
	}
	o := &suite.Output{CaseID: str(), Decision: suite.Decision(decision)}
	if r.IntN(4) > 0 {
		o.ToolCalls = []suite.ToolCall{}
		for range r.IntN(3) {
			o.ToolCalls = append(o.ToolCalls, suite.ToolCall{Name: str(), Arguments: object(0)})
		}
	}
	if r.IntN(3) > 0 {
		o.Citations = []string{str(), str()}
	}
	if r.IntN(3) > 0 {
		n := num()
		o.LatencyMS = &n
	}
	if r.IntN(3) > 0 {
		n := num()
		o.CostUSD = &n
	}
	return o
}

// BenchmarkFastPathRawOutput writes back the 30,000 outputs of 10,000
// generated cases × 3: /fast as a grouped page does, /plain through
// json.Marshal (see docs/design.md, Fast paths).
func BenchmarkFastPathRawOutput(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	if err := gensuite.Write(filepath.Join("..", "..", "data"), data, 10000); err != nil {
		b.Fatal(err)
	}
	rel, err := evaluator.EvaluateDir(data, evaluator.Options{KeepOutputs: true})
	if err != nil {
		b.Fatal(err)
	}
	var outs []*suite.Output
	for _, s := range rel.Snapshots {
		outs = append(outs, s.Outputs...)
	}
	for _, way := range []struct {
		name  string
		write func(*suite.Output) string
	}{{"fast", rawOutput}, {"plain", rawOutputMarshalled}} {
		b.Run(way.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range outs {
					_ = way.write(o)
				}
			}
		})
	}
}
