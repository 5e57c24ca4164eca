package ciout

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// TestStreamedReportsMatchWhole: the JUnit report and the step summary of
// a streamed release, which keeps each case's title and latencies, are
// those of the release evaluated whole with its outputs kept, byte for
// byte, for the whole release and for its latest snapshot alone, whatever
// order the snapshots are written in.
func TestStreamedReportsMatchWhole(t *testing.T) {
	generated := func(t *testing.T, write func(dir string) error, edit func(dir string) error) string {
		dir := filepath.Join(t.TempDir(), "data")
		if err := write(dir); err != nil {
			t.Fatal(err)
		}
		if edit != nil {
			if err := edit(dir); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	shuffle := func(dir string) error { return gensuite.Shuffle(dir, 5) }
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"sample", func(*testing.T) string { return sampleDir }},
		{"minimal", func(*testing.T) string { return "../../examples/minimal" }},
		{"noise", func(*testing.T) string { return "../../examples/noise" }},
		{"generated", func(t *testing.T) string {
			return generated(t, func(dir string) error { return gensuite.Write(sampleDir, dir, 600) }, nil)
		}},
		{"generated, shuffled, with a baseline and an output missing", func(t *testing.T) string {
			return generated(t, func(dir string) error { return gensuite.Write(sampleDir, dir, 600) }, func(dir string) error {
				gate := filepath.Join(dir, "gate.json")
				b, err := os.ReadFile(gate)
				if err != nil {
					return err
				}
				if err := os.WriteFile(gate, bytes.Replace(b, []byte("{"), []byte(`{"baseline": "baseline-v1",`), 1), 0o644); err != nil {
					return err
				}
				snap := filepath.Join(dir, "outputs", "candidate-v3.jsonl")
				if b, err = os.ReadFile(snap); err != nil {
					return err
				}
				if err := os.WriteFile(snap, b[bytes.IndexByte(b, '\n')+1:], 0o644); err != nil {
					return err
				}
				return shuffle(dir)
			})
		}},
		{"trials case by case", func(t *testing.T) string {
			return generated(t, func(dir string) error { return gensuite.WriteTrialsByCase(sampleDir, dir, 200, 3) }, nil)
		}},
		{"trials trial after trial, shuffled", func(t *testing.T) string {
			return generated(t, func(dir string) error { return gensuite.WriteTrials(sampleDir, dir, 200, 2) }, shuffle)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			whole, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []evaluator.StreamOptions{{Titles: true, Latencies: true}, {Titles: true}} {
				evaluatedWhole := false
				opts.BeforeWhole = func() { evaluatedWhole = true }
				streamed, err := evaluator.StreamDir(dir, opts)
				if err != nil {
					t.Fatal(err)
				}
				if evaluatedWhole {
					t.Fatal("the folder was not streamed")
				}
				latest := func(rel *evaluator.Release) *evaluator.Release { return rel.Only(rel.Snapshots[len(rel.Snapshots)-1]) }
				for _, pair := range []struct {
					what      string
					got, want *evaluator.Release
				}{{"release", streamed, whole}, {"latest snapshot", latest(streamed), latest(whole)}} {
					if opts.Latencies {
						if got, want := JUnit(pair.got), JUnit(pair.want); !bytes.Equal(got, want) {
							t.Errorf("%s: the JUnit reports differ:\n%s", pair.what, firstDiff(got, want))
						}
					} else if bytes.Contains(JUnit(pair.got), []byte(` time="`)) {
						t.Errorf("%s: times without the latencies kept", pair.what)
					}
					if got, want := Summary(pair.got), Summary(pair.want); !bytes.Equal(got, want) {
						t.Errorf("%s: the summaries differ:\n%s", pair.what, firstDiff(got, want))
					}
				}
			}
		})
	}
}

// firstDiff shows where got first differs from want.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return "got:  …" + string(got[from:min(len(got), i+200)]) + "\nwant: …" + string(want[from:min(len(want), i+200)])
}
