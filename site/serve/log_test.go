package serve

import (
	"errors"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/suite"
)

func TestLogLine(t *testing.T) {
	names := func(ns ...string) changeSet { return changeSet{Names: ns} }
	three := wholeSite(map[string][]byte{"a": nil, "b": nil, "c": nil})
	broken := &suite.InputError{File: "data/outputs/candidate-v3.jsonl", Line: 4, Msg: "invalid JSON at column 6: unexpected EOF"}
	tests := []struct {
		name      string
		ch        changeSet
		took      time.Duration
		out       *outcome
		err       error
		first     bool
		recovered bool
		want      string
	}{
		{"first build", changeSet{}, 98*time.Millisecond + 400*time.Microsecond,
			&outcome{files: three, changed: true, decisions: []decisionChange{{Label: "baseline-v1", After: "BLOCK"}, {Label: "candidate-v3", After: "PASS"}}},
			nil, true, false, "built in 98ms: 3 files; baseline-v1 BLOCK, candidate-v3 PASS"},
		{"first build, case pages later", changeSet{}, 4600 * time.Millisecond,
			&outcome{files: three, changed: true, full: true, rendered: 1, decisions: []decisionChange{{Label: "candidate-v3", After: "PASS"}}},
			nil, true, false, "built in 4.6s: 3 files (2 case pages made in the background); candidate-v3 PASS"},
		{"first build fails", changeSet{}, 3 * time.Millisecond, nil, broken, true, false,
			"build failed in 3ms: data/outputs/candidate-v3.jsonl:4: invalid JSON at column 6: unexpected EOF"},
		{"decision changed", names("outputs/candidate-v3.jsonl"), 12 * time.Millisecond,
			&outcome{files: three, changed: true, decisions: []decisionChange{{Label: "candidate-v3", Before: "PASS", After: "BLOCK"}}},
			nil, false, false, "rebuilt (outputs/candidate-v3.jsonl) in 12ms; candidate-v3: PASS → BLOCK"},
		{"snapshots come and go", names("outputs/new.jsonl", "outputs/old.jsonl"), 1500 * time.Millisecond,
			&outcome{files: three, changed: true, decisions: []decisionChange{{Label: "new", After: "REVIEW"}, {Label: "old", Before: "PASS"}}},
			nil, false, false, "rebuilt (outputs/new.jsonl, outputs/old.jsonl) in 1.5s; new: added (REVIEW); old: removed"},
		{"nothing visible", names("HANDOFF.md"), 4 * time.Millisecond, &outcome{files: three}, nil, false, false,
			"rebuilt (HANDOFF.md) in 4ms; no page changed"},
		{"many files", names("a", "b", "c", "d", "e"), time.Millisecond, &outcome{files: three, changed: true}, nil, false, false,
			"rebuilt (a, b, c and 2 more) in 1ms"},
		{"bad edit", names("outputs/candidate-v3.jsonl"), 3 * time.Millisecond, nil, broken, false, false,
			"rebuild failed (outputs/candidate-v3.jsonl) in 3ms: data/outputs/candidate-v3.jsonl:4: invalid JSON at column 6: unexpected EOF; still serving the last good site"},
		{"multi-line error", names("templates/base.html"), 2 * time.Millisecond, nil, errors.New("template: base.html:3:\n\tunexpected EOF"), false, false,
			"rebuild failed (templates/base.html) in 2ms: template: base.html:3: unexpected EOF; still serving the last good site"},
		{"fixed", names("outputs/candidate-v3.jsonl"), 14 * time.Millisecond, &outcome{files: three}, nil, false, true,
			"rebuilt (outputs/candidate-v3.jsonl) in 14ms; the inputs are valid again; no page changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := logLine(tt.ch, tt.took, tt.out, tt.err, tt.first, tt.recovered); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
