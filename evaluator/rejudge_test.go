package evaluator

import (
	"bytes"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestRejudgeIsEvaluatingAgain checks that judging again only the cases
// that changed gives the results file that evaluating the outputs file
// against the changed suite gives.
func TestRejudgeIsEvaluatingAgain(t *testing.T) {
	s, err := load.Suite(sampleDir, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*suite.Suite) *suite.Suite
		redo []int
	}{
		{"nothing", func(s *suite.Suite) *suite.Suite { return s }, nil},
		{"thresholds", func(s *suite.Suite) *suite.Suite {
			g := s.Gate
			g.Thresholds = maps.Clone(g.Thresholds)
			half, two := suite.MustNumber("0.5"), suite.MustNumber("2")
			g.Thresholds["min_pass_rate"], g.Thresholds["max_critical_failures"] = &half, &two
			e := suite.NewSuite(s.Policy, s.Cases, g)
			e.CasesSHA256, e.PolicySHA256, e.GateSHA256 = s.CasesSHA256, s.PolicySHA256, "edited"
			return e
		}, nil},
		{"a case's severity and expected decision", func(s *suite.Suite) *suite.Suite {
			cases := append([]*suite.Case(nil), s.Cases...)
			for _, i := range []int{3, 6} {
				c := *cases[i]
				c.Severity = suite.Minor
				c.Expected.Decision = suite.Decision("no_op")
				cases[i] = &c
			}
			e := suite.NewSuite(s.Policy, cases, s.Gate)
			e.CasesSHA256, e.PolicySHA256, e.GateSHA256 = "edited", s.PolicySHA256, s.GateSHA256
			return e
		}, []int{3, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := tc.edit(s)
			for _, label := range []string{"baseline-v1", "candidate-v2", "candidate-v3"} {
				path := filepath.Join(sampleDir, "outputs", label+".jsonl")
				old, err := EvaluateFile(s, label, path, Options{KeepOutputs: true})
				if err != nil {
					t.Fatal(err)
				}
				want, err := EvaluateFile(edited, label, path, Options{KeepOutputs: true})
				if err != nil {
					t.Fatal(err)
				}
				got := Rejudge(edited, old, tc.redo)
				if !bytes.Equal(got.JSON(), want.JSON()) {
					t.Errorf("%s: rejudged\n%s\nwant\n%s", label, got.JSON(), want.JSON())
				}
				if len(got.Outputs) != len(want.Outputs) {
					t.Errorf("%s: %d outputs kept, want %d", label, len(got.Outputs), len(want.Outputs))
				}
			}
		})
	}
}

// TestRearrangeIsEvaluatingAgain checks that judging a snapshot again
// after cases came, went or moved gives the results file that evaluating
// its outputs file against the new suite gives, with trials and without,
// and that an output of a case that went is left to reading the file.
func TestRearrangeIsEvaluatingAgain(t *testing.T) {
	// reordered is s with the cases at positions order (-1: a copy of
	// the first case under a new id, NEW-1, NEW-2, ...).
	reordered := func(s *suite.Suite, order ...int) (*suite.Suite, []int) {
		var cases []*suite.Case
		was := make([]int, len(order))
		added := 0
		for i, j := range order {
			was[i] = j
			if j < 0 {
				added++
				c := *s.Cases[0]
				c.ID = "NEW-" + strconv.Itoa(added)
				cases = append(cases, &c)
				continue
			}
			cases = append(cases, s.Cases[j])
		}
		e := suite.NewSuite(s.Policy, cases, s.Gate)
		e.CasesSHA256, e.PolicySHA256, e.GateSHA256 = "edited", s.PolicySHA256, s.GateSHA256
		return e, was
	}
	span := func(from, to int) []int {
		var out []int
		for i := from; i < to; i++ {
			out = append(out, i)
		}
		return out
	}
	for _, dir := range []struct{ name, path string }{{"sample", sampleDir}, {"trials", "../examples/airline"}} {
		s, err := load.Suite(dir.path, load.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := len(s.Cases)
		files, err := load.Snapshots(dir.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			order []int
		}{
			{"the same", span(0, n)},
			{"one added in the middle", slices.Concat(span(0, 3), []int{-1}, span(3, n))},
			{"two added, first and last", slices.Concat([]int{-1}, span(0, n), []int{-1})},
			{"the first moved last", slices.Concat(span(1, n), []int{0})},
			{"reversed", reversed(span(0, n))},
		} {
			t.Run(dir.name+"/"+tc.name, func(t *testing.T) {
				edited, was := reordered(s, tc.order...)
				for _, f := range files {
					old, err := EvaluateFile(s, f.Label, f.Path, Options{KeepOutputs: true})
					if err != nil {
						t.Fatal(err)
					}
					want, err := EvaluateFile(edited, f.Label, f.Path, Options{KeepOutputs: true})
					if err != nil {
						t.Fatal(err)
					}
					// The added cases are judged again; nothing else changed.
					var redo []int
					for i, j := range was {
						if j < 0 {
							redo = append(redo, i)
						}
					}
					got, ok := Rearrange(edited, old, was, redo)
					if !ok {
						t.Fatalf("%s: refused", f.Label)
					}
					if !bytes.Equal(got.JSON(), want.JSON()) {
						t.Errorf("%s: rearranged\n%s\nwant\n%s", f.Label, got.JSON(), want.JSON())
					}
					if !reflect.DeepEqual(got.Outputs, want.Outputs) || !reflect.DeepEqual(got.TrialOutputs, want.TrialOutputs) {
						t.Errorf("%s: outputs kept differ from a reading of the file", f.Label)
					}
					// Back: the added cases go again, unanswered.
					back := make([]int, n)
					for i, j := range was {
						if j >= 0 {
							back[j] = i
						}
					}
					again, ok := Rearrange(s, got, back, nil)
					if !ok || !bytes.Equal(again.JSON(), old.JSON()) {
						t.Errorf("%s: the added cases removed again: ok %v\n%s\nwant\n%s", f.Label, ok, again.JSON(), old.JSON())
					}
				}
			})
		}
		t.Run(dir.name+"/an answered case removed", func(t *testing.T) {
			edited, was := reordered(s, span(1, n)...)
			for _, f := range files {
				old, err := EvaluateFile(s, f.Label, f.Path, Options{KeepOutputs: true})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := Rearrange(edited, old, was, nil); ok != !answered(old, 0) {
					t.Errorf("%s: ok %v, although the removed case is answered: %v", f.Label, ok, answered(old, 0))
				}
			}
		})
	}
}

func reversed(s []int) []int {
	s = slices.Clone(s)
	slices.Reverse(s)
	return s
}
