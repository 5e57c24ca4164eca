package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileInputs are the ways a data folder was found to leak or hang the
// tool: links to files outside it (published as pages, archived in
// bundles) and to devices that never end (memory without bound), and
// FIFOs (every command hung). Each must be refused before anything is
// read, naming the file.
var hostileInputs = []struct {
	name, file string // file: the input replaced, relative to the data folder
	make       func(t *testing.T, path string)
}{
	{"HANDOFF.md links to /etc/passwd", "HANDOFF.md", linkTo("/etc/passwd")},
	{"POLICY.md links to /proc/self/environ", "POLICY.md", linkTo("/proc/self/environ")},
	{"HANDOFF.md links to /dev/zero", "HANDOFF.md", linkTo("/dev/zero")},
	{"an outputs file links to /dev/zero", "outputs/candidate-v3.jsonl", linkTo("/dev/zero")},
	{"an outputs file links to /etc/passwd", "outputs/candidate-v3.jsonl", linkTo("/etc/passwd")},
	{"the outputs folder links to /etc", "outputs", linkTo("/etc")},
	{"gate.json links to /proc/self/environ", "gate.json", linkTo("/proc/self/environ")},
	{"cases.jsonl is a FIFO", "cases.jsonl", fifo},
	{"HANDOFF.md is a FIFO", "HANDOFF.md", fifo},
	{"an outputs file is a FIFO", "outputs/candidate-v3.jsonl", fifo},
	{"case.schema.json is a FIFO", "case.schema.json", fifo},
}

func linkTo(target string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if _, err := os.Stat(target); err != nil {
			t.Skipf("%s: %v", target, err)
		}
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
}

func fifo(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// runWithin runs the command and fails the test if it takes longer than
// limit (a FIFO that blocks the read would hang for ever).
func runWithin(t *testing.T, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		done <- result{code, stderr.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stderr
	case <-time.After(limit):
		t.Fatalf("%q still running after %v", args, limit)
		return 0, ""
	}
}

// TestHostileInputsAreRefused runs evaluate --all, build and bundle over
// each hostile input after a good run: each must fail within a second
// with status 1 and a message naming the file, write nothing, and leave
// the previous output byte for byte.
func TestHostileInputsAreRefused(t *testing.T) {
	commands := []struct {
		name string
		args func(data, out string) []string
	}{
		{"evaluate", func(data, out string) []string {
			return []string{"evaluate", "--all", "--quiet", "--data", data, "--out", out}
		}},
		{"build", func(data, out string) []string { return []string{"build", "--quiet", "--data", data, "--out", out} }},
		{"bundle", func(data, out string) []string {
			return []string{"bundle", "--quiet", "--data", data, "-o", filepath.Join(out, "handoff.zip")}
		}},
	}
	for _, h := range hostileInputs {
		t.Run(h.name, func(t *testing.T) {
			for _, c := range commands {
				t.Run(c.name, func(t *testing.T) {
					data := copyData(t)
					parent := t.TempDir()
					out := filepath.Join(parent, "public")
					if code, stderr := runWithin(t, time.Minute, c.args(data, out)...); code != exitOK {
						t.Fatalf("good run: status %d: %s", code, stderr)
					}
					before := treeSum(t, parent)
					h.make(t, filepath.Join(data, h.file))
					code, stderr := runWithin(t, time.Second, c.args(data, out)...)
					if code != exitFail {
						t.Errorf("status %d, want %d", code, exitFail)
					}
					want := filepath.Join(data, h.file) + ": not a regular file inside the data folder"
					if !strings.Contains(stderr, want) {
						t.Errorf("message %q does not contain %q", stderr, want)
					}
					if after := treeSum(t, parent); after != before {
						t.Error("a refused run changed the previous output or left files beside it")
					}
				})
			}
		})
	}
}

// TestServeRefusesHostileInput: serve's first build fails fast too.
func TestServeRefusesHostileInput(t *testing.T) {
	for _, h := range hostileInputs {
		t.Run(h.name, func(t *testing.T) {
			data := copyData(t)
			h.make(t, filepath.Join(data, h.file))
			code, stderr := runWithin(t, time.Second, "serve", "--data", data, "--addr", "127.0.0.1:0")
			want := filepath.Join(data, h.file) + ": not a regular file inside the data folder"
			if code != exitFail || !strings.Contains(stderr, want) {
				t.Errorf("status %d, message %q; want %d and %q", code, stderr, exitFail, want)
			}
		})
	}
}

// TestLinksInsideTheDataFolderWork: a link that stays inside the data
// folder is an ordinary input.
func TestLinksInsideTheDataFolderWork(t *testing.T) {
	data := copyData(t)
	if err := os.MkdirAll(filepath.Join(data, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(data, "HANDOFF.md"), filepath.Join(data, "docs", "handoff.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("docs", "handoff.md"), filepath.Join(data, "HANDOFF.md")); err != nil {
		t.Fatal(err)
	}
	// The data folder itself may be reached through a link.
	link := filepath.Join(t.TempDir(), "data")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	if code, stderr := runWithin(t, time.Minute, "build", "--quiet", "--data", link, "--out", out); code != exitOK {
		t.Fatalf("status %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(out, "handoff.html"))
	if err != nil || !bytes.Contains(page, []byte("<h1")) {
		t.Fatalf("handoff.html: %v", err)
	}
}

// TestVerifyRefusesAFIFO: verify does not wait on a FIFO named as the
// bundle.
func TestVerifyRefusesAFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.zip")
	fifo(t, path)
	code, stderr := runWithin(t, time.Second, "verify", path)
	if code != exitFail || !strings.Contains(stderr, path+": not a regular file") {
		t.Fatalf("status %d, message %q", code, stderr)
	}
}
