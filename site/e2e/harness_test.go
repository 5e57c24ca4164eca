//go:build e2e

package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The harness is the ground every other test stands on: these tests show
// that it does see each kind of problem it is meant to report, and reports
// nothing for a clean page.

const cleanPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>clean</title></head>
<body><p>nothing to see</p><script>console.log("fine")</script></body></html>`

// noisyPage does every bad thing the harness must notice. The foreign host
// has a reserved name that resolves nowhere, and the tab refuses the
// request before it is sent anyway.
const noisyPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>noisy</title></head>
<body><img src="missing.png" alt="">
<script>
console.error("boom");
fetch("http://elsewhere.invalid/beacon").catch(() => {});
alert("hello");
setTimeout(() => { throw new Error("late failure"); }, 0);
</script></body></html>`

// inaccessiblePage has an image without alt text and a button without a
// name, which axe-core rates critical, and grey text on grey in either
// colour scheme, which it rates serious.
const inaccessiblePage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>inaccessible</title></head>
<body><main><h1>Chart</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="40" height="40"><button></button>
<p style="color:#777;background:#888">faint</p></main></body></html>`

// forbiddenPage breaks its own policy, given as a header and as a meta
// element: an inline script, an inline handler and eval.
const forbiddenPage = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="script-src 'self'"><link rel="icon" href="data:,"><title>forbidden</title></head>
<body><p>policy</p><script>document.title = "ran";</script><img src="data:," alt="" onerror="document.title = 'handler ran'"></body></html>`

func harnessServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/forbidden.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "script-src 'self'")
		_, _ = w.Write([]byte(forbiddenPage))
	})
	mux.HandleFunc("/clean.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(cleanPage))
	})
	mux.HandleFunc("/noisy.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(noisyPage))
	})
	mux.HandleFunc("/inaccessible.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(inaccessiblePage))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func sameOrigin(origin string) func(string) bool {
	return func(u string) bool { return strings.HasPrefix(u, origin+"/") }
}

func TestHarnessReportsNothingForACleanPage(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	srv := harnessServer(t)
	tb := openTab(t, browser, sameOrigin(srv.URL)).withTimeout(t, pageTimeout)
	status, err := tb.open(srv.URL + "/clean.html")
	if err != nil {
		t.Fatal(err)
	}
	if status != http.StatusOK {
		t.Errorf("status = %d, want 200", status)
	}
	got := tb.log.snapshot()
	if p := got.problems(); len(p) > 0 {
		t.Errorf("clean page reported problems:\n%s", strings.Join(p, "\n"))
	}
	if !slices.Contains(got.Requests, srv.URL+"/clean.html") {
		t.Errorf("requests %q do not include the page itself", got.Requests)
	}
}

func TestHarnessReportsEveryKindOfProblem(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	srv := harnessServer(t)
	tb := openTab(t, browser, sameOrigin(srv.URL)).withTimeout(t, pageTimeout)
	if _, err := tb.open(srv.URL + "/noisy.html"); err != nil {
		t.Fatal(err)
	}
	got := tb.log.snapshot()
	checks := []struct {
		kind  string
		items []string
		want  string
	}{
		{"off-scope request", got.OffScope, "http://elsewhere.invalid/beacon"},
		{"failed load", got.Failed, "missing.png: HTTP 404"},
		{"console error", got.Console, `"boom"`},
		{"exception", got.Exceptions, "late failure"},
		{"dialog", got.Dialogs, `alert("hello")`},
	}
	for _, c := range checks {
		if !slices.ContainsFunc(c.items, func(s string) bool { return strings.Contains(s, c.want) }) {
			t.Errorf("%s containing %q not recorded; got %q", c.kind, c.want, c.items)
		}
	}
}

// TestHarnessReportsPolicyViolations shows that what a page's
// Content-Security-Policy refuses is reported, served and from disk.
func TestHarnessReportsPolicyViolations(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	srv := harnessServer(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "forbidden.html"), []byte(forbiddenPage), 0o644); err != nil {
		t.Fatal(err)
	}
	disk := serveFiles(dir, true)
	for _, where := range []struct {
		name, url string
		inScope   func(string) bool
	}{
		{"served", srv.URL + "/forbidden.html", sameOrigin(srv.URL)},
		{"from disk", disk.url("forbidden.html"), disk.inScope},
	} {
		t.Run(where.name, func(t *testing.T) {
			tb := openTab(t, browser, where.inScope).withTimeout(t, pageTimeout)
			if _, err := tb.open(where.url); err != nil {
				t.Fatal(err)
			}
			got := tb.log.snapshot()
			if len(got.Violations) < 2 || !slices.ContainsFunc(got.Violations, func(v string) bool { return strings.HasPrefix(v, "script-src") }) {
				t.Errorf("the inline script and handler were not reported as violations: %q", got.Violations)
			}
			if !slices.ContainsFunc(got.problems(), func(p string) bool { return strings.HasPrefix(p, "CSP violation: ") }) {
				t.Errorf("violations are not problems: %q", got.problems())
			}
			title, err := eval[string](tb, "document.title")
			if err != nil {
				t.Fatal(err)
			}
			if title != "forbidden" {
				t.Errorf("a refused script ran: title %q", title)
			}
		})
	}
}

func TestHarnessAxeFindsViolations(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	srv := harnessServer(t)
	tb := openTab(t, browser, sameOrigin(srv.URL)).withTimeout(t, pageTimeout)
	if _, err := tb.open(srv.URL + "/inaccessible.html"); err != nil {
		t.Fatal(err)
	}
	got, err := axeProbe(tb)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		scheme string
		found  []axeViolation
		want   []string
	}{
		{"light", got.Light, []string{"image-alt", "button-name", "color-contrast"}},
		// The dark run repeats the colour rules only.
		{"dark", got.Dark, []string{"color-contrast"}},
	}
	for _, c := range checks {
		for _, want := range c.want {
			if !slices.ContainsFunc(c.found, func(v axeViolation) bool { return v.ID == want && v.blocking() }) {
				t.Errorf("%s: axe did not report %s as serious or critical; got %v", c.scheme, want, c.found)
			}
		}
	}
}

// TestHarnessConfinesFilePages shows that a page opened from a folder with
// confinement on may not load a file next to that folder, as the bundle
// test relies on.
func TestHarnessConfinesFilePages(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	root := t.TempDir()
	dir := filepath.Join(root, "site")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(cleanPage, "<p>nothing to see</p>", `<img src="../outside.gif" alt="outside">`, 1)
	for name, body := range map[string]string{"site/index.html": page, "outside.gif": "GIF89a"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := serveFiles(dir, true)
	tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
	if _, err := tb.open(s.url("index.html")); err != nil {
		t.Fatal(err)
	}
	got := tb.log.snapshot()
	if !slices.ContainsFunc(got.OffScope, func(u string) bool { return strings.HasSuffix(u, "/outside.gif") }) {
		t.Errorf("the file outside the folder was not flagged; requests %q, off scope %q", got.Requests, got.OffScope)
	}
}
