package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// caseTwins copies the sample and adds a case er-001, the twin of ER-001
// but for case, with its outputs in every snapshot.
func caseTwins(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(data, os.DirFS(sampleData)); err != nil {
		t.Fatal(err)
	}
	twin := func(path string) {
		f, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(f)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, `{"case_id": "ER-001"`) {
				f = append(f, strings.Replace(line, `"ER-001"`, `"er-001"`, 1)+"\n"...)
				break
			}
		}
		if err := os.WriteFile(path, f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	twin(filepath.Join(data, "cases.jsonl"))
	outputs, _ := filepath.Glob(filepath.Join(data, "outputs", "*.jsonl"))
	for _, o := range outputs {
		twin(o)
	}
	return data
}

// TestCaseTwinsGetDistinctPages: ids equal but for case get page names
// that stay distinct on a disk that ignores case, in build and bundle.
func TestCaseTwinsGetDistinctPages(t *testing.T) {
	data := caseTwins(t)
	out := filepath.Join(t.TempDir(), "public")
	if code, _, stderr := runCmd(t, "build", "--quiet", "--data", data, "--out", out); code != exitOK {
		t.Fatalf("build: exit %d; stderr: %s", code, stderr)
	}
	folded := map[string]string{}
	pages := 0
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		key := strings.ToLower(rel)
		if prev, dup := folded[key]; dup {
			t.Errorf("%s and %s are one file on a disk that ignores case", prev, rel)
		}
		folded[key] = rel
		if strings.HasPrefix(rel, "cases"+string(filepath.Separator)) {
			pages++
		}
		return nil
	})
	if pages != 13 {
		t.Errorf("%d case history pages, want 13 (12 cases and er-001, apart from ER-001)", pages)
	}
	archive := filepath.Join(t.TempDir(), "b.zip")
	if code, _, stderr := runCmd(t, "bundle", "--quiet", "--data", data, "-o", archive); code != exitOK {
		t.Fatalf("bundle: exit %d; stderr: %s", code, stderr)
	}
	if code, stdout, stderr := runCmd(t, "verify", archive); code != exitOK {
		t.Fatalf("verify: exit %d; %s %s", code, stdout, stderr)
	}
}
