package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/internal/treecheck"
)

// workspace is a folder holding a project (proj/data, a copy of the
// sample) and a person's files around it; the tests run commands in it
// and compare its full listing, with hashes, before and after.
func workspace(t *testing.T, files map[string]string) (root, data string) {
	t.Helper()
	root = t.TempDir()
	data = filepath.Join(root, "proj", "data")
	if err := os.MkdirAll(filepath.Dir(data), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(data, os.DirFS(sampleData)); err != nil {
		t.Fatal(err)
	}
	treecheck.Write(t, root, files)
	return root, data
}

// TestCommandsRefuseToDestroy runs every way a careless or unlucky person
// could point a command at their own files: each is refused, names what
// it refuses, and the whole workspace stays byte-identical.
func TestCommandsRefuseToDestroy(t *testing.T) {
	user := map[string]string{
		"docs/index.html":          "<p>my own page</p>",
		"docs/notes.txt":           "my notes",
		"home/results/exp1.csv":    "a,b\n1,2\n",
		"home/.bashrc":             "export X=1",
		"out/results/exp1.csv":     "a,b\n",
		"out/link":                 "-> ../docs/notes.txt",
		"old/index.html":           "<p>site of an earlier releasegate</p>",
		"old/RELEASE_REPORT.md":    "# report",
		"old/results/v1.json":      "{}",
		"proj/notes.txt":           "project notes",
		"alias":                    "-> .",
		"mine.json":                "{\"mine\": true}",
		"mine.xml":                 "<mine/>",
		"mine.zip":                 "PK\x03\x04 not a bundle",
		".public.old-backup/a.txt": "backup",
	}
	cases := [][]string{
		{"build", "--out", "{root}/docs"},
		{"build", "--out", "{root}/home"},
		{"build", "--out", "{root}/old"},
		{"build", "--out", "{root}/proj"},
		{"build", "--out", "{root}/alias/proj"},
		{"build", "--out", "{root}/alias/alias/proj/data"},
		{"build", "--out", "{root}/proj/data/public"},
		{"build", "--out", "{root}/alias/proj/data/outputs"},
		{"build", "--out", "{root}/proj/data/cases.jsonl"},
		{"evaluate", "--all", "--out", "{root}/out"},
		{"evaluate", "--all", "--out", "{root}/docs"},
		{"evaluate", "--all", "--out", "{root}/alias/proj"},
		{"evaluate", "--all", "--out", "{root}/public", "--junit", "{root}/proj/data/cases.jsonl"},
		{"evaluate", "--all", "--out", "{root}/public", "--junit", "{root}/public/junit.xml"},
		{"evaluate", "--all", "--out", "{root}/public", "--junit", "{root}/mine.xml"},
		{"evaluate", "--all", "--out", "{root}/public", "--summary", "{root}/alias/proj/data/POLICY.md"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{data}/cases.jsonl"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/alias/proj/data/cases.jsonl"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{data}/outputs/candidate-v3.jsonl"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{data}/new.json"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{root}/alias/proj/data/outputs/candidate-v3.jsonl", "--output", "{root}/r.json", "--junit", "{data}/outputs/candidate-v3.jsonl"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/r.json", "--junit", "{root}/r.json"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/r.json", "--junit", "{root}/alias/r.json"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/mine.json"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/docs/notes.txt"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/r.json", "--junit", "{root}/mine.xml"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/r.json", "--baseline", "{root}/r.json"},
		{"evaluate", "--cases", "{data}/cases.jsonl", "--outputs", "{data}/outputs/candidate-v3.jsonl", "--output", "{root}/out/link"},
		{"bundle", "-o", "{data}/cases.jsonl"},
		{"bundle", "-o", "{root}/alias/proj/data/b.zip"},
		{"bundle", "-o", "{root}/mine.zip"},
		{"bundle", "-o", "{root}/docs/notes.txt"},
		{"bundle", "-o", "{root}/docs"},
	}
	for _, args := range cases {
		name := strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			root, data := workspace(t, user)
			before := treecheck.Snapshot(t, root)
			full := []string{args[0], "--quiet", "--data", data}
			for _, a := range args[1:] {
				full = append(full, strings.NewReplacer("{root}", root, "{data}", data).Replace(a))
			}
			code, _, stderr := runCmd(t, full...)
			if code != exitFail {
				t.Errorf("exit %d, want %d; stderr: %s", code, exitFail, stderr)
			}
			if !strings.Contains(stderr, "refusing") {
				t.Errorf("stderr does not say what is refused: %s", stderr)
			}
			treecheck.Unchanged(t, root, before)
		})
	}
}

// TestEarlierSiteSaysWhatToDo: a site from before the list of files is
// refused with the steps to take.
func TestEarlierSiteSaysWhatToDo(t *testing.T) {
	root, data := workspace(t, map[string]string{"public/index.html": "<p>old site</p>", "public/RELEASE_REPORT.md": "# old"})
	out := filepath.Join(root, "public")
	code, _, stderr := runCmd(t, "build", "--quiet", "--data", data, "--out", out)
	if code != exitFail || !strings.Contains(stderr, "earlier releasegate") || !strings.Contains(stderr, "rm -r "+out) || !strings.Contains(stderr, "--out") {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	os.RemoveAll(out)
	if code, _, stderr := runCmd(t, "build", "--quiet", "--data", data, "--out", out); code != exitOK {
		t.Fatalf("after emptying it: exit %d; stderr: %s", code, stderr)
	}
}

// TestOwnOutputsAreReplaced: what releasegate wrote it replaces, through
// links too, and leaves every entry beside it alone, look-alikes of its
// staging names included (never moved into the site either).
func TestOwnOutputsAreReplaced(t *testing.T) {
	root, data := workspace(t, map[string]string{
		".public.old-backup/index.html":                  "my backup",
		".public.new-notes.txt":                          "notes",
		".public.ready-0123456789abcdef/keep.txt":        "mine",
		".releasegate-bundle-notes.txt":                  "notes",
		".releasegate-bundle-0123456789abcdef/notes.txt": "mine",
		"notes.txt": "mine",
		"alias":     "-> .",
	})
	before := treecheck.Snapshot(t, root)
	out := filepath.Join(root, "public")
	steps := [][]string{
		{"build", "--out", out},
		{"evaluate", "--all", "--out", filepath.Join(root, "alias", "public")},
		{"build", "--out", filepath.Join(root, "alias", "public")},
		{"evaluate", "--cases", filepath.Join(data, "cases.jsonl"), "--outputs", filepath.Join(data, "outputs", "candidate-v3.jsonl"), "--output", filepath.Join(root, "r.json"), "--junit", filepath.Join(root, "j.xml")},
		{"evaluate", "--cases", filepath.Join(data, "cases.jsonl"), "--outputs", filepath.Join(data, "outputs", "candidate-v2.jsonl"), "--output", filepath.Join(root, "r.json"), "--junit", filepath.Join(root, "j.xml")},
		{"bundle", "-o", filepath.Join(root, "b.zip")},
		{"bundle", "-o", filepath.Join(root, "b.zip")},
	}
	for _, s := range steps {
		args := append([]string{s[0], "--quiet", "--data", data}, s[1:]...)
		if code, _, stderr := runCmd(t, args...); code == exitFail || code == exitUsage {
			t.Fatalf("%v: exit %d; stderr: %s", s, code, stderr)
		}
	}
	treecheck.Kept(t, root, before)
	if _, err := os.Stat(filepath.Join(out, publish.MarkerName)); err != nil {
		t.Errorf("the site has no list of its files: %v", err)
	}
	for _, leaked := range []string{"keep.txt", "backup", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(out, leaked)); err == nil {
			t.Errorf("%s was moved into the site", leaked)
		}
	}
	// Once dest is gone, a look-alike is not taken for a release to put
	// back.
	os.RemoveAll(out)
	if code, _, stderr := runCmd(t, "build", "--quiet", "--data", data, "--out", out); code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	treecheck.Kept(t, root, before)
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Fatal(err)
	}
	// An edited page is the person's now: the site is no longer
	// releasegate's to replace.
	os.WriteFile(filepath.Join(out, "index.html"), []byte("edited"), 0o644)
	edited := treecheck.Snapshot(t, root)
	code, _, stderr := runCmd(t, "build", "--quiet", "--data", data, "--out", out)
	if code != exitFail || !strings.Contains(stderr, "index.html (changed since releasegate wrote it)") {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	treecheck.Unchanged(t, root, edited)
}
