package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	code, stdout, stderr := runCmd(t, "build", "--data", sampleData, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	for _, want := range []string{"candidate-v3", "PASS", "wrote the site to " + out} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"index.html", "policy.html", "snapshots/candidate-v2/ER-007.html", "results/candidate-v3.json", "RELEASE_REPORT.md", ".nojekyll"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestBuildCommandFailures(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad-web")
	if err := os.MkdirAll(filepath.Join(bad, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	notSite := filepath.Join(tmp, "notes")
	if err := os.MkdirAll(notSite, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notSite, "todo.txt"), []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stray argument", []string{"build", "extra"}, exitUsage, `unexpected argument "extra"`},
		{"unknown flag", []string{"build", "--nope"}, exitUsage, "flag provided but not defined"},
		{"empty out", []string{"build", "--out", ""}, exitUsage, "--out must name a folder"},
		{"web without assets", []string{"build", "--data", sampleData, "--out", filepath.Join(tmp, "o1"), "--web", bad}, exitUsage, "must hold templates/ and assets/"},
		{"missing data", []string{"build", "--data", filepath.Join(tmp, "nowhere"), "--out", filepath.Join(tmp, "o2")}, exitFail, "nowhere: no such folder — run from the folder that holds"},
		{"folder of other files", []string{"build", "--data", sampleData, "--out", notSite}, exitFail, "refusing to write to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(notSite, "todo.txt")); err != nil || string(b) != "keep me" {
		t.Errorf("a refused build touched the folder: %q, %v", b, err)
	}
}

func TestBuildCommandWebFolder(t *testing.T) {
	// The repository root holds templates/ and assets/, as an author's
	// checkout does.
	out := filepath.Join(t.TempDir(), "public")
	code, _, stderr := runCmd(t, "build", "--quiet", "--data", sampleData, "--out", out, "--web", "../..")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Error(err)
	}
}

func TestBuildHelp(t *testing.T) {
	code, stdout, _ := runCmd(t, "help", "build")
	if code != exitOK || !strings.Contains(stdout, "releasegate build [--data data] [--out public]") {
		t.Errorf("help build: exit %d\n%s", code, stdout)
	}
}
