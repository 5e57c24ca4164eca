package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate"
)

// tree lists every file under dir with its content, by slash path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestInitWritesAWorkingProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "project") // missing, nested
	code, stdout, stderr := runCmd(t, "init", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "releasegate serve --watch") {
		t.Errorf("init does not say what to do next: %q", stdout)
	}
	got := tree(t, dir)
	sample := tree(t, sampleData)
	want := []string{".github/workflows/releasegate-gate.yml", ".github/workflows/releasegate-pages.yml", ".gitignore", "README.md"}
	for p := range sample {
		want = append(want, "data/"+p)
	}
	slices.Sort(want)
	if !slices.Equal(keys(got), want) {
		t.Errorf("init wrote\n  %s\nwant\n  %s", strings.Join(keys(got), "\n  "), strings.Join(want, "\n  "))
	}
	for p, data := range sample {
		if got["data/"+p] != data {
			t.Errorf("data/%s differs from the sample", p)
		}
	}
	if !strings.Contains(got[".gitignore"], "\npublic/\n") {
		t.Errorf(".gitignore does not ignore public/: %q", got[".gitignore"])
	}
	for _, wf := range []string{"releasegate-gate.yml", "releasegate-pages.yml"} {
		want, err := os.ReadFile(filepath.Join("starter", ".github", "workflows", wf))
		if err != nil || got[".github/workflows/"+wf] != string(want) {
			t.Errorf("%s differs from the starter's (%v)", wf, err)
		}
	}

	// The project evaluates as it is.
	code, stdout, stderr = runCmd(t, "evaluate", "--all", "--data", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "public"))
	if code != exitOK || !strings.Contains(stdout, "candidate-v2") {
		t.Fatalf("evaluate --all in the new project: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Run("build", func(t *testing.T) {
		if _, ok := commands()["build"]; !ok {
			t.Skip("the build command is not registered yet")
		}
		out := filepath.Join(dir, "site")
		code, stdout, stderr := runCmd(t, "build", "--data", filepath.Join(dir, "data"), "--out", out)
		if code != exitOK {
			t.Fatalf("build in the new project: exit %d\n%s%s", code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
			t.Error(err)
		}
	})
}

func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	mine := map[string]string{"README.md": "my readme\n", "data/gate.json": "{}\n", "notes.txt": "keep\n"}
	for p, data := range mine {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCmd(t, "init", dir)
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if stdout != "" || !strings.Contains(stderr, "wrote nothing") || !strings.Contains(stderr, "\n  README.md") || !strings.Contains(stderr, "\n  data/gate.json") || strings.Contains(stderr, "notes.txt") {
		t.Errorf("stderr %q should list README.md and data/gate.json, and only them", stderr)
	}
	got := tree(t, dir)
	if len(got) != len(mine) {
		t.Errorf("init wrote files although it refused: %v", keys(got))
	}
	for p, data := range mine {
		if got[p] != data {
			t.Errorf("%s changed", p)
		}
	}
}

func TestInitRefusesAFileWhereAFolderGoes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "init", dir)
	if code != exitFail || !strings.Contains(stderr, "data (not a folder)") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
	if got := tree(t, dir); len(got) != 1 {
		t.Errorf("init wrote files although it refused: %v", keys(got))
	}
	file := filepath.Join(dir, "data")
	if code, _, stderr := runCmd(t, "init", file); code != exitFail || !strings.Contains(stderr, "not a folder") {
		t.Errorf("init into a file: exit %d stderr %q", code, stderr)
	}
}

func TestInitUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"init"}, exitUsage, "give the folder"},
		{[]string{"init", "a", "b"}, exitUsage, `unexpected argument "b"`},
		{[]string{"init", "a", "--force"}, exitUsage, "not defined: -force"},
		{[]string{"init", "a", "-h"}, exitOK, ""},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d stderr %q, want %d %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
	if _, err := os.Stat("a"); err == nil {
		t.Error("a usage error created a folder")
	}
}

func TestStarterFilesArePure(t *testing.T) {
	a, err := starterFiles(starter, os.DirFS(sampleData))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := starterFiles(starter, os.DirFS(sampleData))
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%d and %d files", len(a), len(b))
	}
	for i := range a {
		if a[i].path != b[i].path || !bytes.Equal(a[i].data, b[i].data) {
			t.Errorf("file %d differs between calls: %s, %s", i, a[i].path, b[i].path)
		}
		if i > 0 && a[i-1].path >= a[i].path {
			t.Errorf("files not in path order: %s before %s", a[i-1].path, a[i].path)
		}
	}
}

// TestInitPinsWorkflows: a released binary writes workflows that install
// exactly itself; a development build leaves them on the latest release.
func TestInitPinsWorkflows(t *testing.T) {
	files, err := starterFiles(starter, releasegate.Sample())
	if err != nil {
		t.Fatal(err)
	}
	workflows := 0
	for _, f := range pinWorkflows(files, "v1.4.2") {
		text := string(f.data)
		if !strings.HasPrefix(f.path, ".github/workflows/") {
			continue
		}
		workflows++
		if strings.Contains(text, starterActionRef) || strings.Contains(text, starterVersion) ||
			!strings.Contains(text, "uses: releasegate/releasegate@v1.4.2") || !strings.Contains(text, "version: v1.4.2") {
			t.Errorf("%s is not pinned to v1.4.2:\n%s", f.path, text)
		}
	}
	if workflows != 2 {
		t.Errorf("%d workflows, want 2", workflows)
	}
	for i, f := range pinWorkflows(files, "") {
		if string(f.data) != string(files[i].data) {
			t.Errorf("a development build changed %s", f.path)
		}
	}
}
