//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// TestInterruptLeavesNoStagingFolder stops build, bundle and evaluate
// --all with Ctrl-C or SIGTERM while they write their staging folder:
// each exits with status 1, removes the folder, and leaves the previous
// output as it was.
func TestInterruptLeavesNoStagingFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a suite of 2,000 cases several times")
	}
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write("../../data", data, 2_000); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   func(out string) []string
		prefix string // the staging folder beside out
		sig    syscall.Signal
	}{
		{"build, Ctrl-C", func(out string) []string { return []string{"build", "--quiet", "--data", data, "--out", out} }, ".public.new-", syscall.SIGINT},
		{"build, SIGTERM", func(out string) []string { return []string{"build", "--quiet", "--data", data, "--out", out} }, ".public.new-", syscall.SIGTERM},
		{"bundle, Ctrl-C", func(out string) []string {
			return []string{"bundle", "--quiet", "--data", data, "-o", filepath.Join(filepath.Dir(out), "b.zip")}
		}, ".releasegate-bundle-", syscall.SIGINT},
		{"bundle, SIGTERM", func(out string) []string {
			return []string{"bundle", "--quiet", "--data", data, "-o", filepath.Join(filepath.Dir(out), "b.zip")}
		}, ".releasegate-bundle-", syscall.SIGTERM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "public")
			if b, err := exec.Command(bin, "build", "--quiet", "--data", data, "--out", out).CombinedOutput(); err != nil {
				t.Fatalf("first build: %v\n%s", err, b)
			}
			before := treeSum(t, parent)
			cmd := exec.Command(bin, tt.args(out)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(func() bool { return hasEntry(parent, tt.prefix) }, time.Minute) {
				cmd.Process.Kill()
				t.Fatalf("no staging folder %s* appeared", tt.prefix)
			}
			cmd.Process.Signal(tt.sig)
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitFail {
				t.Fatalf("exit %v, want status %d; stderr %q", err, exitFail, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted; nothing was changed") {
				t.Errorf("stderr %q does not say it was interrupted", stderr.String())
			}
			if hasEntry(parent, ".") {
				entries, _ := os.ReadDir(parent)
				t.Errorf("left beside the output: %v", entries)
			}
			if after := treeSum(t, parent); after != before {
				t.Error("an interrupted run changed the previous output")
			}
		})
	}
}

// hasEntry reports whether dir has an entry whose name begins with prefix.
func hasEntry(dir, prefix string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			return true
		}
	}
	return false
}

func waitFor(cond func() bool, limit time.Duration) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return false
}
