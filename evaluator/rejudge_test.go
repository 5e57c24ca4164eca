package evaluator

import (
	"bytes"
	"maps"
	"path/filepath"
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
