package main

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	tests := []struct {
		args []string
		// data is the folder the project's data/ must equal.
		data string
		// latest is the exit status of the gate on the latest snapshot.
		latest    int
		snapshots []string
		readme    []string // the generated README must say these
	}{
		{nil, "starter/templates/tools", exitOK, []string{"run-1", "run-2"},
			[]string{"# project: release gate", "a tool-calling agent", "--template tools", "`run-1` (BLOCK", "`data/cases.jsonl`"}},
		{[]string{"--template", "tools"}, "starter/templates/tools", exitOK, []string{"run-1", "run-2"},
			[]string{"a tool-calling agent"}},
		{[]string{"--template", "expense"}, sampleData, exitOK, []string{"baseline-v1", "candidate-v2", "candidate-v3"},
			[]string{"an expense-reimbursement agent", "`data/POLICY.md`", "--template expense"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{"init"}, tt.args...), " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new", "project") // missing, nested
			code, stdout, stderr := runCmd(t, append(append([]string{"init"}, tt.args...), dir)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "releasegate serve --watch") || strings.Contains(stdout, "kept") {
				t.Errorf("init does not say what to do next, or claims to have kept something: %q", stdout)
			}
			got := tree(t, dir)
			data := tree(t, tt.data)
			want := []string{".github/workflows/releasegate-gate.yml", ".github/workflows/releasegate-pages.yml", ".gitignore", "README.md"}
			for p := range data {
				want = append(want, "data/"+p)
			}
			slices.Sort(want)
			if !slices.Equal(keys(got), want) {
				t.Errorf("init wrote\n  %s\nwant\n  %s", strings.Join(keys(got), "\n  "), strings.Join(want, "\n  "))
			}
			for p, b := range data {
				if got["data/"+p] != b {
					t.Errorf("data/%s differs from the template's", p)
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
			for _, words := range tt.readme {
				if !strings.Contains(got["README.md"], words) {
					t.Errorf("README.md does not say %q:\n%s", words, got["README.md"])
				}
			}
			for _, other := range []string{"expense", "ER-2026", "candidate-v3"} {
				if tt.data != sampleData && strings.Contains(got["README.md"], other) {
					t.Errorf("the %v README mentions %q, which belongs to another template", tt.args, other)
				}
			}

			// The project evaluates as it is, and the gate its workflow
			// runs passes on the latest snapshot.
			code, stdout, stderr = runCmd(t, "evaluate", "--all", "--data", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "public"))
			if code != exitOK {
				t.Fatalf("evaluate --all in the new project: exit %d\n%s%s", code, stdout, stderr)
			}
			for _, label := range tt.snapshots {
				if !strings.Contains(stdout, label) {
					t.Errorf("evaluate --all does not list %s:\n%s", label, stdout)
				}
			}
			junit := filepath.Join(t.TempDir(), "junit.xml")
			code, stdout, stderr = runCmd(t, "evaluate", "--latest", "--data", filepath.Join(dir, "data"), "--junit", junit)
			latest := tt.snapshots[len(tt.snapshots)-1]
			if code != tt.latest || !strings.HasPrefix(stdout, latest+": ") {
				t.Errorf("evaluate --latest: exit %d, want %d, gating %s\n%s%s", code, tt.latest, latest, stdout, stderr)
			}
			if b, err := os.ReadFile(junit); err != nil || !bytes.Contains(b, []byte(latest)) {
				t.Errorf("the JUnit report of --latest does not name %s (%v)", latest, err)
			}
			out := filepath.Join(dir, "site")
			code, stdout, stderr = runCmd(t, "build", "--data", filepath.Join(dir, "data"), "--out", out)
			if code != exitOK {
				t.Fatalf("build in the new project: exit %d\n%s%s", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestInitIntoAnExistingRepository: init writes what is missing beside a
// repository's own README, .gitignore, workflow and data folder, lists
// what it kept, and leaves every one of the user's files as it was.
func TestInitIntoAnExistingRepository(t *testing.T) {
	tests := []struct {
		name    string
		mine    map[string]string
		written []string // files init must add
		kept    []string // what it must say it kept
		notes   []string // what else stdout must say
	}{
		{
			name: "a repository with a README, a .gitignore and a workflow",
			mine: map[string]string{
				"README.md":                  "# my agent\n",
				".gitignore":                 "node_modules/\n",
				".github/workflows/test.yml": "name: test\n",
				"src/agent.py":               "print('hi')\n",
			},
			written: []string{"RELEASEGATE.md", ".github/workflows/releasegate-gate.yml", ".github/workflows/releasegate-pages.yml", "data/cases.jsonl", "data/gate.json"},
			kept:    []string{"README.md (the project's notes are in RELEASEGATE.md)", ".gitignore"},
			notes:   []string{"Add the line public/ to .gitignore"},
		},
		{
			name: "a repository that already has a data folder and a gate workflow",
			mine: map[string]string{
				".gitignore":                             "public/\n",
				"data/cases.jsonl":                       "{}\n",
				".github/workflows/releasegate-gate.yml": "name: mine\n",
			},
			written: []string{"README.md", ".github/workflows/releasegate-pages.yml"},
			kept:    []string{"data/ (your data folder, kept whole)", ".github/workflows/releasegate-gate.yml", ".gitignore"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, data := range tt.mine {
				path := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// A link to the repository, as a user's shell might hold it.
			link := filepath.Join(t.TempDir(), "repo")
			if err := os.Symlink(dir, link); err != nil {
				t.Fatal(err)
			}
			before := listing(t, dir)
			code, stdout, stderr := runCmd(t, "init", link)
			if code != exitOK {
				t.Fatalf("exit %d: %s%s", code, stdout, stderr)
			}
			after := listing(t, dir)
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s changed: %s, was %s", p, after[p], h)
				}
			}
			for _, p := range tt.written {
				if _, ok := after[p]; !ok {
					t.Errorf("init did not write %s", p)
				}
			}
			for _, k := range tt.kept {
				if !strings.Contains(stdout, "\n  "+k+"\n") {
					t.Errorf("stdout does not list %q as kept:\n%s", k, stdout)
				}
			}
			for _, n := range tt.notes {
				if !strings.Contains(stdout, n) {
					t.Errorf("stdout does not say %q:\n%s", n, stdout)
				}
			}
			// Again: everything is there, so nothing is written.
			again := listing(t, dir)
			code, _, stderr = runCmd(t, "init", link)
			if code != exitFail || !strings.Contains(stderr, "wrote nothing") {
				t.Errorf("a second init: exit %d stderr %q", code, stderr)
			}
			if got := listing(t, dir); !maps.Equal(got, again) {
				t.Error("a second init changed the folder")
			}
		})
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
		{[]string{"init", "--template", "helpdesk", "a"}, exitUsage, `there is no template "helpdesk"; use one of: tools, expense`},
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
	tmpl, _ := templateNamed("expense")
	a, err := starterFiles(starter, tmpl, "x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := starterFiles(starter, tmpl, "x")
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
	tmpl, _ := templateNamed("tools")
	files, err := starterFiles(starter, tmpl, "x")
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
