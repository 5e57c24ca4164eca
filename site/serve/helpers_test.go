package serve

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/releasegate/releasegate/internal/goldentest"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/internal/render"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sampleData is the repository's sample data folder.
const sampleData = "../../data"

// copyDir copies the folder src into a new temporary folder and returns it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// copyWeb copies the repository's templates/ and assets/ into a new
// temporary folder, as --web expects them.
func copyWeb(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"templates", "assets"} {
		src := copyDir(t, filepath.Join("../..", sub))
		if err := os.Rename(src, filepath.Join(dir, sub)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakeRenderer is a renderer small enough to reason about: it shows each
// snapshot's decision and every template's text, and records its calls.
// It lets the server be tested whatever the real site renders.
type fakeRenderer struct {
	web   fs.FS
	calls *renderCalls
}

type renderCalls struct {
	mu    sync.Mutex
	all   int
	parts []render.Parts // given to RenderParts
}

// allRendered is how many times RenderAll was called.
func (c *renderCalls) allRendered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}

func (c *renderCalls) partsRendered() []render.Parts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.parts)
}

// fakeRenderers returns a newRendererFunc and the log of its calls.
func fakeRenderers() (newRendererFunc, *renderCalls) {
	calls := &renderCalls{}
	return func(web fs.FS) (renderer, error) {
		// Reading the templates here makes a broken template folder fail
		// like the real renderer does.
		if _, err := fs.ReadDir(web, "templates"); err != nil {
			return nil, err
		}
		return &fakeRenderer{web: web, calls: calls}, nil
	}, calls
}

func (f *fakeRenderer) RenderAll(in *site.Input, emit render.Emit) error {
	f.calls.mu.Lock()
	f.calls.all++
	f.calls.mu.Unlock()
	if err := f.shared(in, nil, emit); err != nil {
		return err
	}
	for _, s := range in.Release.Snapshots {
		if err := f.snapshot(in, s.Label(), nil, emit); err != nil {
			return err
		}
	}
	return nil
}

// RenderAllLater renders everything, as RenderAll, and puts nothing off.
func (f *fakeRenderer) RenderAllLater(in *site.Input, emit render.Emit) ([]render.Later, error) {
	return nil, f.RenderAll(in, emit)
}

// MakeLater finds nothing: the fake puts nothing off.
func (f *fakeRenderer) MakeLater(*site.Input, []string) ([]render.Later, error) { return nil, nil }

// Paths lists what RenderAll emits, rendering it without counting a call.
func (f *fakeRenderer) Paths(in *site.Input) ([]string, error) {
	var paths []string
	emit := func(name string, _ []byte) error {
		paths = append(paths, name)
		return nil
	}
	if err := f.shared(in, nil, emit); err != nil {
		return nil, err
	}
	for _, s := range in.Release.Snapshots {
		if err := f.snapshot(in, s.Label(), nil, emit); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

func (f *fakeRenderer) RenderParts(in *site.Input, parts render.Parts, emit render.Emit) error {
	f.calls.mu.Lock()
	f.calls.parts = append(f.calls.parts, parts)
	f.calls.mu.Unlock()
	for _, label := range parts.Snapshots {
		only := map[string]bool{}
		for _, id := range parts.Drilldowns[label] {
			only[id] = true
		}
		if err := f.snapshot(in, label, only, emit); err != nil {
			return err
		}
	}
	for _, label := range parts.Results {
		if s := snapshotOf(in.Release, label); s != nil {
			if err := emit("results/"+label+".json", s.JSON()); err != nil {
				return err
			}
		}
	}
	only := map[string]bool{}
	for _, id := range parts.Histories {
		only[id] = true
	}
	return f.shared(in, only, emit)
}

// Footer names the suite's inputs, as the real one does: it changes with
// every edit of the suite.
func (f *fakeRenderer) Footer(in *site.Input) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<footer>%d cases", len(in.Release.Suite.Cases))
	if len(in.Release.Snapshots) > 0 {
		i := in.Release.Snapshots[0].Result.Inputs
		fmt.Fprintf(&b, " from %.8s %.8s %.8s", i.CasesSHA256, i.PolicySHA256, i.GateSHA256)
	}
	b.WriteString("</footer>")
	return b.Bytes(), nil
}

// framed ends a fake page with the footer.
func (f *fakeRenderer) framed(in *site.Input, body string) []byte {
	footer, _ := f.Footer(in)
	return []byte("<html><body>" + body + string(footer) + "</body></html>\n")
}

// snapshot renders a snapshot's page, results and a page per case (all of
// them when only is nil).
func (f *fakeRenderer) snapshot(in *site.Input, label string, only map[string]bool, emit render.Emit) error {
	for _, s := range in.Release.Snapshots {
		if s.Label() != label {
			continue
		}
		page := f.framed(in, fmt.Sprintf("<h1>%s</h1><p>%s, %s passed</p>", label, s.Result.Decision, s.PassCount()))
		if err := emit(label+"/index.html", page); err != nil {
			return err
		}
		for i, c := range s.Result.Cases {
			if only != nil && !only[c.CaseID] {
				continue
			}
			latency := "missing"
			if o := s.Outputs[i]; o != nil {
				latency = o.LatencyMS.String()
			}
			page := f.framed(in, fmt.Sprintf("%s %s: passed %v, %s ms", label, c.CaseID, c.Passed, latency))
			if err := emit(label+"/"+c.CaseID+".html", page); err != nil {
				return err
			}
		}
		return emit("results/"+label+".json", s.JSON())
	}
	return fmt.Errorf("fake: no snapshot %q", label)
}

// shared renders the pages about every snapshot, with a history page per
// case (for the cases in only, when it is not nil).
func (f *fakeRenderer) shared(in *site.Input, only map[string]bool, emit render.Emit) error {
	for i, c := range in.Release.Suite.Cases {
		if only != nil && !only[c.ID] {
			continue
		}
		var h strings.Builder
		fmt.Fprintf(&h, "<h1>%s</h1>", c.ID)
		for _, s := range in.Release.Snapshots {
			fmt.Fprintf(&h, "<p>%s: %v</p>", s.Label(), s.Result.Cases[i].Passed)
		}
		if err := emit("cases/"+c.ID+".html", f.framed(in, h.String())); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	b.WriteString("<!doctype html><html><body><ul>\n")
	for _, s := range in.Release.Snapshots {
		fmt.Fprintf(&b, "<li><a href=\"%s/\">%s</a> %s</li>\n", s.Label(), s.Label(), s.Result.Decision)
	}
	b.WriteString("</ul>\n")
	err := fs.WalkDir(f.web, "templates", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		t, err := fs.ReadFile(f.web, p)
		fmt.Fprintf(&b, "<pre>%s</pre>\n", html.EscapeString(string(t)))
		return err
	})
	if err != nil {
		return err
	}
	b.WriteString("</body></html>\n")
	css, err := fs.ReadFile(f.web, "assets/site.css")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"index.html":        b.Bytes(),
		"handoff.html":      []byte("<html><body><pre>" + html.EscapeString(string(in.Handoff)) + "</pre></body></html>\n"),
		"404.html":          []byte("<html><body><h1>Nothing here</h1></body></html>\n"),
		"RELEASE_REPORT.md": in.Release.Report(),
		"assets/site.css":   css,
		".nojekyll":         nil,
	} {
		if err := emit(name, data); err != nil {
			return err
		}
	}
	return nil
}

// injected matches what the server adds to served HTML.
var injected = regexp.MustCompile(`(?s)<div id="releasegate-build-error".*?</div>|<script src="/__releasegate/reload\.js" data-generation="\d+"></script>`)

// stripInjected returns a served page as it was built.
func stripInjected(page []byte) []byte { return injected.ReplaceAll(page, nil) }

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldentest.Check(t, filepath.Join("testdata", name), got)
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// writeFile writes a file in place, as most editors without backups do.
func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes a temporary file beside p and renames it over p, as
// editors with atomic saves and sed -i do.
func replaceFile(t testing.TB, p string, data []byte) {
	t.Helper()
	tmp := path.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	writeFile(t, tmp, data)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// firstLines keeps the first n lines of a JSON Lines file.
func firstLines(data []byte, n int) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
}

// errorsAs is errors.As, kept short for table tests.
func errorsAs(err error, target any) bool { return errors.As(err, target) }

// all returns every file of the site joined, as a build writes them,
// making those put off.
func (s *siteFiles) all() map[string][]byte {
	s.mu.Lock()
	names := slices.Collect(maps.Keys(s.files))
	names = slices.AppendSeq(names, maps.Keys(s.later))
	s.mu.Unlock()
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		out[name], _ = s.get(name)
	}
	return out
}

// wholeSite keeps files as a site whose pages have no footer.
func wholeSite(files map[string][]byte) *siteFiles {
	s := &siteFiles{files: make(map[string]storedFile, len(files)), packers: newPackers()}
	for name, data := range files {
		s.files[name] = storedFile{head: data}
	}
	return s
}

// fileOf returns a file of the site, failing the test when there is none.
func fileOf(t testing.TB, s *siteFiles, name string) []byte {
	t.Helper()
	b, ok := s.get(name)
	if !ok {
		t.Fatalf("no %s in the site", name)
	}
	return b
}

// StepsMarks: the fake's pages have no case-steps part.
func (f *fakeRenderer) StepsMarks() render.StepsMarks { return render.StepsMarks{} }
