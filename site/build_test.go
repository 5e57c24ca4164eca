package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

func TestBuildWritesEveryFile(t *testing.T) {
	files := readTree(t, builtSample(t))
	want := []string{
		"index.html", "policy.html", "handoff.html", "404.html", ".nojekyll", "RELEASE_REPORT.md",
		"results/baseline-v1.json", "results/candidate-v2.json", "results/candidate-v3.json",
		"snapshots/baseline-v1.html", "snapshots/candidate-v2.html", "snapshots/candidate-v3.html",
		"snapshots/candidate-v2/ER-007.html", "snapshots/baseline-v1/ER-012.html",
		"cases/ER-001.html", "cases/ER-012.html",
		"compare.html", "cases.html", "data/cases.js", "data/matrix.js", "data/snapshots/candidate-v2.js",
		"assets/site.css", "assets/site.js", "assets/tables.js", "assets/favicon.svg",
		"assets/vendor/echarts/echarts.min.js", "assets/vendor/echarts/LICENSE", "assets/vendor/echarts/NOTICE",
	}
	for _, f := range want {
		if _, ok := files[f]; !ok {
			t.Errorf("missing %s", f)
		}
	}
	// 12 cases × 3 snapshots drilldowns, 12 histories, 3 snapshot pages,
	// overview, policy, handoff, report, 404, compare, cases, glossary.
	var pageList int
	for f := range files {
		if strings.HasSuffix(f, ".html") {
			pageList++
		}
	}
	if pageList != 36+12+3+8 {
		t.Errorf("%d pages, want %d", pageList, 36+12+3+8)
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	first := readTree(t, builtSample(t))
	out := filepath.Join(t.TempDir(), "again")
	if _, err := Build(sampleData, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	second := readTree(t, out)
	if len(first) != len(second) {
		t.Fatalf("first build has %d files, second %d", len(first), len(second))
	}
	for path, b := range first {
		if !bytes.Equal(b, second[path]) {
			t.Errorf("%s differs between two builds of the same inputs", path)
		}
	}
}

// A failed build must leave the previous site exactly as it was, and
// leave no staging folder behind.
func TestFailedBuildLeavesPreviousSite(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	copyDir(t, sampleData, data)
	out := filepath.Join(tmp, "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, out)

	cases := filepath.Join(data, "cases.jsonl")
	good, err := os.ReadFile(cases)
	if err != nil {
		t.Fatal(err)
	}
	breakages := []struct {
		name string
		edit func() error
		want string
	}{
		{"malformed cases.jsonl", func() error {
			return os.WriteFile(cases, append(append([]byte{}, good...), "{not json\n"...), 0o644)
		}, "cases.jsonl:13"},
		{"templates that do not parse", func() error { return os.WriteFile(cases, good, 0o644) }, "templates"},
	}
	for _, b := range breakages {
		t.Run(b.name, func(t *testing.T) {
			if err := b.edit(); err != nil {
				t.Fatal(err)
			}
			opts := BuildOptions{}
			if b.want == "templates" {
				opts.Web = brokenWeb(t)
			}
			_, err := Build(data, out, opts)
			if err == nil || !strings.Contains(err.Error(), b.want) {
				t.Fatalf("Build error = %v, want one naming %q", err, b.want)
			}
			after := readTree(t, out)
			if len(after) != len(before) {
				t.Errorf("the site has %d files after a failed build, %d before", len(after), len(before))
			}
			for path, data := range before {
				if !bytes.Equal(data, after[path]) {
					t.Errorf("%s changed although the build failed", path)
				}
			}
			entries, _ := os.ReadDir(tmp)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".public") {
					t.Errorf("staging folder %s left behind", e.Name())
				}
			}
		})
	}
}

// A failure while pages are written, after staging began, must not
// touch the previous site either.
func TestFailingTemplateAbortsStagedBuild(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "public")
	if _, err := Build(sampleData, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, out)
	web := webWith(t, "templates/drilldown.html", `{{define "content"}}{{.NoSuchField}}{{end}}`)
	_, err := Build(sampleData, out, BuildOptions{Web: web})
	if err == nil || !strings.Contains(err.Error(), "drilldown") {
		t.Fatalf("Build error = %v, want a drilldown template error", err)
	}
	after := readTree(t, out)
	for path, data := range before {
		if !bytes.Equal(data, after[path]) {
			t.Errorf("%s changed although the build failed", path)
		}
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries after a failed build, want only public/", len(entries))
	}
}

// webWith returns the embedded web files with one file replaced.
func webWith(t testing.TB, path, content string) fs.FS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(releasegate.Web(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(releasegate.Web(), p)
		m[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m[path] = &fstest.MapFile{Data: []byte(content)}
	return m
}

func brokenWeb(t testing.TB) fs.FS {
	return webWith(t, "templates/overview.html", `{{define "content"}}{{if}}{{end}}`)
}

func TestBuildWithoutHandoff(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	copyDir(t, sampleData, data)
	if err := os.Remove(filepath.Join(data, "HANDOFF.md")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "handoff.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("handoff.html written without HANDOFF.md (stat: %v)", err)
	}
	for path, b := range readTree(t, out) {
		if bytes.Contains(b, []byte("handoff.html")) {
			t.Errorf("%s links to handoff.html, which does not exist", path)
		}
	}
}

func TestBuildReportsProgress(t *testing.T) {
	var calls, last, total int
	out := filepath.Join(t.TempDir(), "public")
	_, err := Build(sampleData, out, BuildOptions{Progress: func(done, n int) {
		calls++
		if done != last+1 {
			t.Errorf("progress went from %d to %d", last, done)
		}
		last, total = done, n
	}})
	if err != nil {
		t.Fatal(err)
	}
	files := len(readTree(t, out))
	if calls != files || last != total || total != files {
		t.Errorf("progress called %d times, last %d/%d, for %d files", calls, last, total, files)
	}
}

func TestCheckOut(t *testing.T) {
	tmp := t.TempDir()
	mk := func(rel string, files ...string) string {
		dir := filepath.Join(tmp, rel)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	data := mk("project/data", "POLICY.md")
	if err := os.Symlink(tmp, filepath.Join(tmp, "alias")); err != nil {
		t.Fatal(err)
	}
	owned := filepath.Join(tmp, "owned")
	tree, err := publish.NewTree(context.Background(), owned)
	if err != nil {
		t.Fatal(err)
	}
	tree.Write("index.html", []byte("site"))
	if err := tree.Commit(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, out string
		refused   bool
	}{
		{"new folder", filepath.Join(tmp, "new"), false},
		{"empty folder", mk("empty"), false},
		{"a site of releasegate", owned, false},
		{"an earlier site without the list of its files", mk("site", "index.html"), true},
		{"earlier evaluate --all", mk("results-only", "RELEASE_REPORT.md"), true},
		{"the folder holding the data, through a link", filepath.Join(tmp, "alias", "project"), true},
		{"inside the data folder", filepath.Join(data, "public"), true},
		{"inside the data folder, through a link", filepath.Join(tmp, "alias", "project", "data", "public"), true},
		{"the data folder", data, true},
		{"the folder holding the data", filepath.Join(tmp, "project"), true},
		{"a folder of other files", mk("docs", "notes.txt"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckOut(data, tt.out)
			if (err != nil) != tt.refused {
				t.Errorf("CheckOut(%s) = %v, refused want %v", tt.out, err, tt.refused)
			}
		})
	}
}

func TestRendererMethodsAgreeWithBuild(t *testing.T) {
	dir := builtSample(t)
	in := sampleInput(t)
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	all := map[string][]byte{}
	if err := r.RenderAll(in, func(p string, b []byte) error { all[p] = b; return nil }); err != nil {
		t.Fatal(err)
	}
	disk := readTree(t, dir)
	if len(all) != len(disk) {
		t.Errorf("RenderAll emitted %d files, Build wrote %d", len(all), len(disk))
	}
	for p, b := range all {
		if !bytes.Equal(b, disk[p]) {
			t.Errorf("%s: RenderAll and Build differ", p)
		}
	}
}

func TestEmitErrorStopsRendering(t *testing.T) {
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	var calls int
	err = r.RenderAll(sampleInput(t), func(p string, b []byte) error {
		calls++
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("RenderAll error = %v, want the emit error", err)
	}
	if calls > 4 {
		t.Errorf("emit called %d times after failing", calls)
	}
}

func TestNewRendererNamesMissingFiles(t *testing.T) {
	tests := []struct{ drop, want string }{
		{"templates/snapshot.html", "snapshot.html"},
		{"templates/404.html", "404.html"},
		{"assets/site.js", "assets/site.js"},
		{"assets/vendor/echarts/echarts.min.js", "echarts.min.js"},
	}
	for _, tt := range tests {
		web := webWith(t, "unused", "").(fstest.MapFS)
		delete(web, tt.drop)
		_, err := render.NewRenderer(web)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("without %s: NewRenderer error = %v, want one naming %s", tt.drop, err, tt.want)
		}
	}
}

func TestRenderRefusesReleaseWithoutOutputs(t *testing.T) {
	in := sampleInput(t)
	s := *in.Release.Snapshots[0]
	s.Outputs = nil
	rel := *in.Release
	rel.Snapshots = slices.Clone(rel.Snapshots)
	rel.Snapshots[0] = &s
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	err = r.RenderAll(&pages.Input{Release: &rel}, func(string, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "KeepOutputs") {
		t.Errorf("RenderAll error = %v, want one about KeepOutputs", err)
	}
}

// sampleInput evaluates the sample data as Build does.
func sampleInput(t testing.TB) *pages.Input {
	t.Helper()
	in, err := Load(sampleData)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func TestRunStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	jobs := make([]render.Job, 200)
	for i := range jobs {
		jobs[i] = render.FileJob(fmt.Sprintf("f%03d", i), func() []byte { return []byte("x") })
	}
	jobs[50].Make = func(*bytes.Buffer) error { return boom }
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	for _, writers := range []int{0, 3} {
		var mu sync.Mutex
		emitted := 0
		err := r.Run(jobs, func(string, []byte) error {
			mu.Lock()
			defer mu.Unlock()
			emitted++
			return nil
		}, render.RunOptions{Writers: writers})
		if !errors.Is(err, boom) {
			t.Errorf("writers=%d: error %v, want the job's", writers, err)
		}
		if emitted == len(jobs) {
			t.Errorf("writers=%d: every file was emitted despite the error", writers)
		}
		failing := errors.New("disk full")
		err = r.Run(jobs[:10], func(p string, _ []byte) error {
			if p == "f003" {
				return failing
			}
			return nil
		}, render.RunOptions{Writers: writers})
		if !errors.Is(err, failing) || !strings.Contains(err.Error(), "f003") {
			t.Errorf("writers=%d: error %v, want the emit error naming f003", writers, err)
		}
	}
}

// TestBuildListsItsFiles: beside the pages, a build writes the list of
// every file it wrote with its SHA-256, and nothing else; the list is not
// part of the site (no page links to it, a bundle does not hold it).
func TestBuildListsItsFiles(t *testing.T) {
	dir := builtSample(t)
	files := readTree(t, dir)
	marker, err := os.ReadFile(filepath.Join(dir, publish.MarkerName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(marker), "\n"), "\n")[1:]
	if len(lines) != len(files) {
		t.Fatalf("the marker lists %d files; the site has %d", len(lines), len(files))
	}
	for _, line := range lines {
		sum, path, _ := strings.Cut(line, "  ")
		b, ok := files[path]
		if !ok || fmt.Sprintf("%x", sha256.Sum256(b)) != sum {
			t.Errorf("marker line %q does not match the file", line)
		}
	}
}
