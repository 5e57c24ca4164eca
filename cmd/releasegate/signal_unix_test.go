//go:build unix && e2e

package main

import (
	"archive/zip"
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
		t.Skip("builds a suite of 1,000 cases several times")
	}
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write("../../data", data, 1_000); err != nil {
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

// TestInterruptedVerifyLeavesNoTemporaryFolder stops verify with Ctrl-C
// or SIGTERM while it unpacks the bundle and while it builds the site
// again: each time it exits with status 1, says so, prints no report,
// removes its temporary folder and leaves the bundle as it was.
func TestInterruptedVerifyLeavesNoTemporaryFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("bundles a suite of 1,000 cases")
	}
	bin := buildBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write("../../data", data, 1_000); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "b.zip")
	if b, err := exec.Command(bin, "bundle", "--quiet", "--data", data, "-o", archive).CombinedOutput(); err != nil {
		t.Fatalf("bundle: %v\n%s", err, b)
	}
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	last := zr.File[len(zr.File)-1].Name // entries are unpacked in order
	zr.Close()
	unpacked := func(tmp string) bool {
		found, _ := filepath.Glob(filepath.Join(tmp, "releasegate-verify-*", "bundle", filepath.FromSlash(last)))
		if len(found) == 0 {
			return false
		}
		time.Sleep(200 * time.Millisecond) // into evaluating and rendering
		return true
	}
	before := treeSum(t, filepath.Dir(archive))
	tests := []struct {
		name string
		sig  syscall.Signal
		// ready says when to send the signal, given the temporary folder.
		ready func(tmp string) bool
	}{
		{"unpacking, Ctrl-C", syscall.SIGINT, func(tmp string) bool { return hasEntry(tmp, "releasegate-verify-") }},
		{"unpacking, SIGTERM", syscall.SIGTERM, func(tmp string) bool { return hasEntry(tmp, "releasegate-verify-") }},
		// Every entry is on disk: what is left is evaluating and rendering.
		{"rebuilding, Ctrl-C", syscall.SIGINT, unpacked},
		{"rebuilding, SIGTERM", syscall.SIGTERM, unpacked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, "verify", archive)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(func() bool { return tt.ready(tmp) }, time.Minute) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("verify never got there")
			}
			signalled := time.Now()
			cmd.Process.Signal(tt.sig)
			err := cmd.Wait()
			t.Logf("exited %v after the signal", time.Since(signalled).Round(time.Millisecond))
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitFail {
				t.Fatalf("exit %v, want status %d; stdout %q, stderr %q", err, exitFail, stdout.String(), stderr.String())
			}
			if want := "releasegate verify: " + archive + ": interrupted; not verified\n"; stderr.String() != want {
				t.Errorf("stderr %q, want %q", stderr.String(), want)
			}
			if stdout.Len() > 0 {
				t.Errorf("an interrupted verify printed a report: %q", stdout.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in the temporary folder: %v", left)
			}
			if after := treeSum(t, filepath.Dir(archive)); after != before {
				t.Error("an interrupted verify changed the bundle")
			}
		})
	}
}
