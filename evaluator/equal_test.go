package evaluator

import (
	"reflect"
	"testing"

	"github.com/releasegate/releasegate/evaluator/judge"
)

func TestCaseResultEqualAsDeepEqual(t *testing.T) {
	if n := reflect.TypeFor[CaseResult]().NumField(); n != 6 {
		t.Fatalf("CaseResult has %d fields, Equal compares 6: compare the new ones", n)
	}
	base := CaseResult{CaseID: "A", Severity: "critical", Passed: false, Trials: 3, TrialsPassed: 1,
		Failures: []judge.Failure{{Code: judge.Decision, Detail: "d", Trial: 2}}}
	variants := []func(*CaseResult){
		func(*CaseResult) {},
		func(c *CaseResult) { c.CaseID = "B" },
		func(c *CaseResult) { c.Severity = "minor" },
		func(c *CaseResult) { c.Passed = true },
		func(c *CaseResult) { c.Trials = 0 },
		func(c *CaseResult) { c.TrialsPassed = 2 },
		func(c *CaseResult) { c.Failures = nil },
		func(c *CaseResult) { c.Failures = []judge.Failure{} },
		func(c *CaseResult) { c.Failures = []judge.Failure{{Code: judge.Decision, Detail: "e", Trial: 2}} },
		func(c *CaseResult) { c.Failures = append(c.Failures, judge.Failure{}) },
	}
	for i, vi := range variants {
		for j, vj := range variants {
			a, b := base, base
			a.Failures, b.Failures = append([]judge.Failure(nil), base.Failures...), append([]judge.Failure(nil), base.Failures...)
			vi(&a)
			vj(&b)
			if got, want := a.Equal(&b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("variants %d and %d: Equal = %v, reflect.DeepEqual = %v", i, j, got, want)
			}
		}
	}
}
