//go:build unix && e2e

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gateScript returns the shell script of the "Gate" step of the Action
// at the repository's root, which the starter gate workflow uses, as
// GitHub would run it.
func gateScript(t *testing.T) string {
	t.Helper()
	action, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(action), "\n")
	for i := range lines {
		if strings.TrimSpace(lines[i]) != "- name: Gate" {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) != "run: |" {
				continue
			}
			indent := strings.Repeat(" ", strings.Index(lines[j], "run")+2)
			var script []string
			for _, l := range lines[j+1:] {
				if l != "" && !strings.HasPrefix(l, indent) {
					break
				}
				script = append(script, strings.TrimPrefix(l, indent))
			}
			return strings.Join(script, "\n")
		}
	}
	t.Fatal("action.yml has no Gate step with a run block")
	return ""
}

// TestStarterGateWorkflowGatesTheLatest runs the Action's gate script,
// which the starter gate workflow uses, as a pull request would, in
// projects started from each template: with no candidates named it gates
// the latest snapshot, and with names it gates those; its exit status
// fails the check on BLOCK only.
func TestStarterGateWorkflowGatesTheLatest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildBinary(t)
	script := gateScript(t)
	tests := []struct {
		template, candidates string
		fails                bool
		summary              []string // the job summary must name these
	}{
		{"tools", "", false, []string{"run-2", "PASS"}},
		{"tools", "run-1", true, []string{"run-1", "BLOCK"}},
		{"tools", "run-1 run-2", true, []string{"run-1", "run-2"}},
		{"expense", "", false, []string{"candidate-v3", "PASS"}},
		{"expense", "candidate-v2", false, []string{"candidate-v2", "REVIEW"}},
	}
	for _, tt := range tests {
		t.Run(tt.template+"/"+tt.candidates, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "project")
			if code, _, stderr := runCmd(t, "init", "--template", tt.template, dir); code != exitOK {
				t.Fatalf("init: %s", stderr)
			}
			summary := filepath.Join(t.TempDir(), "summary.md")
			cmd := exec.Command("bash", "-e", "-c", script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(),
				"PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"DATA=data",
				"JUNIT=junit",
				"CANDIDATES="+tt.candidates,
				"RUNNER_TEMP="+t.TempDir(),
				"GITHUB_OUTPUT="+filepath.Join(t.TempDir(), "output"),
				"GITHUB_STEP_SUMMARY="+summary)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tt.fails {
				t.Errorf("the check failed: %v, want %v (%v)\n%s", failed, tt.fails, err, out)
			}
			s, err := os.ReadFile(summary)
			if err != nil {
				t.Fatal(err)
			}
			for _, words := range tt.summary {
				if !strings.Contains(string(s), words) {
					t.Errorf("the job summary does not name %q:\n%s", words, s)
				}
			}
			if junit, _ := filepath.Glob(filepath.Join(dir, "junit", "*.xml")); len(junit) == 0 {
				t.Error("no JUnit report for the artifact")
			}
		})
	}
}
