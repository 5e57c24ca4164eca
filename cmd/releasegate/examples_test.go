package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildExamples builds each example data folder as a user would, with
// `releasegate build --data examples/NAME`.
func TestBuildExamples(t *testing.T) {
	tests := []struct {
		data    string
		stdout  []string // the summary table's decisions, in release order
		files   []string
		missing []string // pages a folder without the document has none of
	}{
		{"../../examples/airline", []string{"baseline", "REVIEW", "retrained", "BLOCK", "candidate", "PASS"},
			[]string{"index.html", "policy.html", "handoff.html", "snapshots/retrained/NA-003.html", "results/candidate.json"}, nil},
		{"../../examples/minimal", []string{"run-1", "REVIEW"},
			[]string{"index.html", "snapshots/run-1/home-1.html", "results/run-1.json"}, []string{"policy.html", "handoff.html"}},
		{"../../examples/noise", []string{"run-a", "baseline", "REVIEW", "run-b", "3 fixed, 6 regressed", "REVIEW", "run-c", "1 fixed, 14 regressed", "BLOCK"},
			[]string{"index.html", "compare.html", "snapshots/run-c/TK-061.html", "results/run-c.json"}, []string{"policy.html", "handoff.html"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.data), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "public")
			code, stdout, stderr := runCmd(t, "build", "--data", tt.data, "--out", out)
			if code != exitOK {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			rest := stdout
			for _, want := range tt.stdout {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("stdout lacks %q in order:\n%s", want, stdout)
				}
				rest = rest[i+len(want):]
			}
			for _, f := range tt.files {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("missing %s: %v", f, err)
				}
			}
			for _, f := range tt.missing {
				if _, err := os.Stat(filepath.Join(out, f)); err == nil {
					t.Errorf("%s should not exist", f)
				}
			}
		})
	}
}
