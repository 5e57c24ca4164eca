package goldentest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "x\ny\n", "x\ny\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n",
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at the end", "a\n", "a\nb\n",
			"--- a\n+++ b\n@@ -1,1 +1,2 @@\n a\n+b\n"},
		{"into an empty file", "", "a\n",
			"--- a\n+++ b\n@@ -0,0 +1,1 @@\n+a\n"},
		{"final line break lost", "a\n", "a",
			"--- a\n+++ b\n@@ -1,1 +1,1 @@\n-a\n+a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		if got := Diff("a", []byte(tt.a), "b", []byte(tt.b)); got != tt.want {
			t.Errorf("%s: Diff =\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestDiffShowsOnlyTheChange: a change in a long text shows as that line
// with three lines either side, in two hunks when changes are far apart.
func TestDiffShowsOnlyTheChange(t *testing.T) {
	var a []string
	for i := 1; i <= 200; i++ {
		a = append(a, fmt.Sprintf("line %d\n", i))
	}
	b := append([]string(nil), a...)
	b[99] = "changed 100\n"
	b[179] = "changed 180\n"
	got := Diff("want", []byte(strings.Join(a, "")), "got", []byte(strings.Join(b, "")))
	want := "--- want\n+++ got\n" +
		"@@ -97,7 +97,7 @@\n line 97\n line 98\n line 99\n-line 100\n+changed 100\n line 101\n line 102\n line 103\n" +
		"@@ -177,7 +177,7 @@\n line 177\n line 178\n line 179\n-line 180\n+changed 180\n line 181\n line 182\n line 183\n"
	if got != want {
		t.Errorf("Diff =\n%s\nwant\n%s", got, want)
	}
}

// TestDiffAgreesWithPatch applies the diff with patch(1), when there is
// one, and checks that it turns the first text into the second.
func TestDiffAgreesWithPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch is not installed")
	}
	pairs := [][2]string{
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n", "a\nc\nd\nX\ne\nf\ng\nh\ni\nY\nj\nk\nl\n"},
		{"one\ntwo\n", "zero\none\ntwo\nthree"},
		{"x\ny\nz\n", ""},
	}
	for i, p := range pairs {
		dir := t.TempDir()
		file := filepath.Join(dir, "f")
		if err := os.WriteFile(file, []byte(p[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(patch, "-s", "-f", file)
		cmd.Stdin = strings.NewReader(Diff("f", []byte(p[0]), "f", []byte(p[1])))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("pair %d: patch: %v\n%s", i, err, out)
			continue
		}
		got, _ := os.ReadFile(file)
		if string(got) != p[1] {
			t.Errorf("pair %d: patched text %q, want %q", i, got, p[1])
		}
	}
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "golden.txt")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	Check(t, path, []byte("same\n"))
	var rec recorder
	Check(&rec, path, []byte("other\n"))
	if !rec.failed || !strings.Contains(rec.msg, "-same\n+other\n") {
		t.Errorf("a mismatch reported %q (failed %v), want a diff", rec.msg, rec.failed)
	}
}

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
