//go:build e2e

package serve

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/releasegate/releasegate/evaluator/load"
)

// chromium returns a browser context for one test, or skips without one.
func chromium(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROME")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no browser at %s: %v", path, err)
		}
		t.Skipf("no browser at %s (apt-get install -y chromium)", path)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	return ctx
}

// livePage is a browser tab on a served site, with what it reported.
type livePage struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	// problems are exceptions, console errors and refusals by the pages'
	// Content-Security-Policy.
	problems []string
}

// openLivePage starts a browser whose tab records what goes wrong.
func openLivePage(t *testing.T) *livePage {
	ctx, cancel := context.WithTimeout(chromium(t), 60*time.Second)
	t.Cleanup(cancel)
	p := &livePage{t: t, ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			p.problems = append(p.problems, "exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				msg := "console.error"
				if len(ev.Args) > 0 {
					msg += ": " + string(ev.Args[0].Value)
				}
				p.problems = append(p.problems, msg)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// Whatever the served pages' policy refuses is an error too: the
	// reload script, the overlay and the charts must all satisfy it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `document.addEventListener("securitypolicyviolation",
			e => console.error("CSP violation: " + e.effectiveDirective + " " + (e.blockedURI || "inline")), true)`,
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

// open navigates to url and marks the page (see mark).
func (p *livePage) open(url string) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Navigate(url)); err != nil {
		p.t.Fatal(err)
	}
	p.mark()
}

// mark sets a flag that survives only until the page reloads.
func (p *livePage) mark() {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Evaluate[chromedp.Void](`window.__notReloaded = true`)); err != nil {
		p.t.Fatal(err)
	}
}

// waitForReload polls a predicate that holds once the page has reloaded,
// then marks the page again. Evaluations fail while the page navigates;
// they are retried. Nothing waits for the page's event stream to
// connect: a save that lands before it does must reload the page all the
// same.
func (p *livePage) waitForReload(what, predicate string) {
	p.t.Helper()
	js := `window.__notReloaded === undefined && document.readyState === "complete" && (` + predicate + `)`
	var last error
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			p.mark()
			return
		}
		last = err
		time.Sleep(10 * time.Millisecond)
	}
	p.t.Fatalf("%s: not within 15s (last error: %v)", what, last)
}

// text evaluates a JavaScript expression giving a string.
func (p *livePage) text(js string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("%s: %v", js, err)
	}
	return s
}

// checkProblems fails the test if the page reported any.
func (p *livePage) checkProblems() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		p.t.Errorf("browser reported: %q", p.problems)
	}
}

// serveToBrowser serves a copy of the sample, watching it, to a browser
// tab; it skips in short mode.
func serveToBrowser(t *testing.T) (*testServer, *livePage) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	return startServer(t, serverOptions{}), openLivePage(t)
}

// TestBrowserReloadsAndShowsTheOverlay drives a real browser: the injected
// script must reload the page after a save, show the overlay after a bad
// edit and clear it after the fix, without a console error on the way.
func TestBrowserReloadsAndShowsTheOverlay(t *testing.T) {
	ts, p := serveToBrowser(t)
	const overlay = `document.getElementById("releasegate-build-error")`

	v3 := outputsPath(ts.data, "candidate-v3")
	original, _ := os.ReadFile(v3)
	p.open(ts.url)

	// A save reloads the page.
	writeFile(t, v3, firstLines(original, 6))
	p.waitForReload("reload after a save", overlay+` === null`)

	// A bad edit: reload with the overlay naming file and line.
	writeFile(t, v3, append(bytes.Clone(original), "{oops\n"...))
	p.waitForReload("overlay after a bad edit", overlay+` !== null`)
	if text := p.text(overlay + `.textContent`); !strings.Contains(text, "candidate-v3.jsonl:13") {
		t.Errorf("overlay text %q does not name the file and line", text)
	}

	// The fix: reload, no overlay.
	writeFile(t, v3, original)
	p.waitForReload("reload without the overlay after the fix", overlay+` === null`)
	p.checkProblems()
}

// TestBrowserFollowsACaseAddedAndRemoved opens a drilldown, adds a case
// right after its case in cases.jsonl and removes it again, as an author
// would, and checks what the page shows after each save: its link to the
// next case, the new case's own page, and the address of the removed one.
func TestBrowserFollowsACaseAddedAndRemoved(t *testing.T) {
	ts, p := serveToBrowser(t)
	casesPath := filepath.Join(ts.data, load.CasesFile)
	original, err := os.ReadFile(casesPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(original, []byte("\n"))
	added := bytes.Replace(lines[3], []byte(`"ER-004"`), []byte(`"ER-100"`), 1)
	const next = `document.querySelector(".case-steps a[rel=next]").textContent`

	p.open(ts.url + "snapshots/candidate-v3/ER-004.html")
	if got := p.text(next); got != "Next: ER-005 →" {
		t.Fatalf("next link %q before the edit", got)
	}
	writeFile(t, casesPath, bytes.Join(slices.Insert(slices.Clone(lines), 4, added), nil))
	p.waitForReload("reload after a case was added", next+` === "Next: ER-100 →"`)

	// The new case's page: it has no output in any snapshot yet.
	p.open(ts.url + "snapshots/candidate-v3/ER-100.html")
	if got := p.text(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, "ER-100 in candidate-v3") || !strings.Contains(got, "fail") {
		t.Errorf("the added case's heading: %q", got)
	}
	if got := p.text(`document.querySelector(".case-steps a[rel=prev]").textContent`); got != "← Previous: ER-004" {
		t.Errorf("the added case's previous link: %q", got)
	}

	// Removed again: the drilldown before it leads to ER-005, and its own
	// address is not found.
	p.open(ts.url + "snapshots/candidate-v3/ER-004.html")
	writeFile(t, casesPath, original)
	p.waitForReload("reload after the case was removed", next+` === "Next: ER-005 →"`)
	p.open(ts.url + "snapshots/candidate-v3/ER-100.html")
	if got := p.text(`document.title`); !strings.Contains(strings.ToLower(got), "not found") {
		t.Errorf("the removed case's address shows %q", got)
	}
	p.checkProblems()
}

// TestBrowserShowsASnapshotDroppedIn drops a fourth snapshot into the
// outputs folder of a served site, which changes every page, and checks
// what an author sees: the open overview reloads with it, its case pages
// (put off by the rebuild) open with their content, and the drilldowns of
// the snapshot before it link to it.
func TestBrowserShowsASnapshotDroppedIn(t *testing.T) {
	ts, p := serveToBrowser(t)
	src, err := os.ReadFile(outputsPath(ts.data, "candidate-v3"))
	if err != nil {
		t.Fatal(err)
	}
	const nav = `[...document.querySelectorAll(".snapshot-nav a")].map(a => a.textContent).join(" ")`

	p.open(ts.url)
	if got := p.text(nav); strings.Contains(got, "candidate-v4") {
		t.Fatalf("snapshot navigation %q before the drop", got)
	}
	writeFile(t, outputsPath(ts.data, "candidate-v4"), src)
	p.waitForReload("reload after a snapshot was dropped in", nav+`.includes("candidate-v4")`)

	p.open(ts.url + "snapshots/candidate-v4/ER-007.html")
	if got := p.text(`document.querySelector("h1").textContent`); !strings.HasPrefix(got, "ER-007 in candidate-v4") {
		t.Errorf("the new snapshot's drilldown heading: %q", got)
	}
	p.open(ts.url + "snapshots/candidate-v3/ER-007.html")
	if got := p.text(`[...document.querySelectorAll("a")].map(a => a.textContent).join("|")`); !strings.Contains(got, "candidate-v4 (next)") {
		t.Errorf("candidate-v3's drilldown links no next snapshot: %q", got)
	}
	p.open(ts.url + "cases/ER-007.html")
	if got := p.text(`document.querySelector("table.history tbody").textContent`); !strings.Contains(got, "candidate-v4") {
		t.Errorf("the case history has no row for the new snapshot: %q", got)
	}
	p.checkProblems()
}
