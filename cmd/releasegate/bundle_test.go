package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rezip copies a zip, letting change edit each entry's bytes by name;
// returning nil drops the entry.
func rezip(t *testing.T, src, dst string, change func(name string, data []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if data = change(f.Name, data); data == nil {
			continue
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	zw.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBundleThenVerify(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.zip"), filepath.Join(dir, "b.zip")
	for _, out := range []string{a, b} {
		code, stdout, stderr := runCmd(t, "bundle", "--data", sampleData, "-o", out)
		if code != exitOK {
			t.Fatalf("bundle: exit %d, stderr %s", code, stderr)
		}
		if !strings.Contains(stdout, "wrote "+out+": ") || !strings.Contains(stdout, "candidate-v3") {
			t.Errorf("bundle stdout %q", stdout)
		}
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Error("two bundles of the sample differ")
	}
	if len(ab) >= 1<<20 {
		t.Errorf("the sample bundle is %d bytes, want under 1 MiB", len(ab))
	}
	code, stdout, stderr := runCmd(t, "verify", a)
	if code != exitOK || stderr != "" {
		t.Fatalf("verify: exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{"verified " + a, "baseline-v1   BLOCK    BLOCK", "candidate-v2  REVIEW   REVIEW", "candidate-v3  PASS     PASS"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("verify stdout lacks %q:\n%s", want, stdout)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the folder holds %d entries, want the two bundles only", len(left))
	}
}

func TestBundleDefaultName(t *testing.T) {
	data, err := filepath.Abs(sampleData)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if code, _, stderr := runCmd(t, "bundle", "--data", data); code != exitOK {
		t.Fatalf("bundle: exit %d, stderr %s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || !regexp.MustCompile(`^releasegate-ER-2026\.10-[0-9a-f]{8}\.zip$`).MatchString(entries[0].Name()) {
		t.Fatalf("the current folder holds %v, want one releasegate-ER-2026.10-<hash>.zip", entries)
	}
}

func TestBundleFailures(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(filepath.Join(data, "outputs"), 0o755)
	for _, f := range []string{"POLICY.md", "case.schema.json", "cases.jsonl", "HANDOFF.md", "outputs/candidate-v3.jsonl"} {
		b, _ := os.ReadFile(filepath.Join(sampleData, f))
		os.WriteFile(filepath.Join(data, f), b, 0o644)
	}
	os.WriteFile(filepath.Join(data, "gate.json"), []byte(`{"min_pass_rate": "high"}`), 0o644)
	out := filepath.Join(dir, "out", "b.zip")

	code, _, stderr := runCmd(t, "bundle", "--data", data, "-o", out)
	if code != exitFail || !strings.Contains(stderr, "gate.json") {
		t.Errorf("bad input: exit %d, stderr %q; want 1 naming gate.json", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed bundle left an archive")
	}
	if code, _, _ := runCmd(t, "bundle", "extra"); code != exitUsage {
		t.Errorf("an extra argument: exit %d, want %d", code, exitUsage)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "last tuesday")
	code, _, stderr = runCmd(t, "bundle", "--data", sampleData, "-o", out)
	if code != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("bad SOURCE_DATE_EPOCH: exit %d, stderr %q", code, stderr)
	}
}

func TestBundleSourceDateEpoch(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	if code, _, stderr := runCmd(t, "bundle", "--data", sampleData, "-o", out); code != exitOK {
		t.Fatalf("bundle: exit %d, stderr %s", code, stderr)
	}
	zr, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if got := zr.File[0].Modified.Format("2006-01-02 15:04:05"); got != "2023-11-14 22:13:20" {
		t.Errorf("entry time %s, want SOURCE_DATE_EPOCH's 2023-11-14 22:13:20", got)
	}
}

func TestVerifyExitStatus(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.zip")
	if code, _, stderr := runCmd(t, "bundle", "--data", sampleData, "-o", good); code != exitOK {
		t.Fatalf("bundle: exit %d, stderr %s", code, stderr)
	}
	altered := filepath.Join(dir, "altered.zip")
	rezip(t, good, altered, func(name string, data []byte) []byte {
		switch {
		case strings.HasSuffix(name, "/index.html"):
			return bytes.Replace(data, []byte("<title>"), []byte("<title>Edited "), 1)
		case strings.HasSuffix(name, "/policy.html"):
			return nil
		}
		return data
	})
	slip := filepath.Join(dir, "slip.zip")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("../evil")
	w.Write([]byte("pwned"))
	zw.Close()
	os.WriteFile(slip, buf.Bytes(), 0o644)
	tests := []struct {
		name         string
		args         []string
		code         int
		stdout, errs string
	}{
		{"verified", []string{"verify", good}, exitOK, "verified", ""},
		{"altered", []string{"verify", altered}, exitFail, "index.html: altered", "not verified (2 problems)"},
		{"zip slip", []string{"verify", slip}, exitFail, "", `refused: entry "../evil"`},
		{"missing file", []string{"verify", filepath.Join(dir, "none.zip")}, exitFail, "", "no such file"},
		{"not a zip", []string{"verify", sampleData + "/gate.json"}, exitFail, "", "not a readable zip archive"},
		{"no argument", []string{"verify"}, exitUsage, "", "name the bundle"},
		{"two arguments", []string{"verify", good, good}, exitUsage, "", "one bundle at a time"},
		{"unknown flag", []string{"verify", "--fast", good}, exitUsage, "", "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.errs) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "..", "evil")); err == nil {
		t.Error("the zip slip wrote ../evil")
	}
}
