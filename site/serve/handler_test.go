package serve

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/serve/livereload"
)

// testSite is a small site as a renderer would produce it.
var testSite = map[string][]byte{
	"index.html":                     []byte("<!doctype html><html><body><h1>Overview</h1></body></html>\n"),
	"404.html":                       []byte("<!doctype html><html><body><h1>Nothing here</h1></body></html>\n"),
	"policy.html":                    []byte("<html><body>policy</body></html>"),
	"candidate-v3/index.html":        []byte("<html><body>snapshot</body></html>"),
	"candidate-v3/cases/ER-001.html": []byte("<html><body>case</body></html>"),
	"results/candidate-v3.json":      []byte(`{"label": "candidate-v3"}` + "\n"),
	"RELEASE_REPORT.md":              []byte("# Release report\n"),
	"assets/site.css":                []byte("body{}"),
	"assets/vendor/echarts.min.js":   []byte("var x;"),
	".nojekyll":                      {},
	"%2e%2e/index.html":              []byte("a file literally named %2e%2e, reachable only by its own name"),
}

func TestResolve(t *testing.T) {
	tests := []struct {
		path  string
		name  string
		found found
	}{
		{"/", "index.html", aFile},
		{"/index.html", "index.html", aFile},
		{"/candidate-v3/", "candidate-v3/index.html", aFile},
		{"/candidate-v3", "candidate-v3/", redirectToFolder},
		{"/candidate-v3/cases/ER-001.html", "candidate-v3/cases/ER-001.html", aFile},
		{"/results/candidate-v3.json", "results/candidate-v3.json", aFile},
		{"/.nojekyll", ".nojekyll", aFile},
		{"/results/", "", notFound},
		{"/results", "", notFound},
		{"/missing.html", "", notFound},
		{"", "", notFound},
		{"index.html", "", notFound},
		// Escapes, as net/http hands them over after decoding once.
		{"/../index.html", "", notFound},
		{"/../../etc/passwd", "", notFound},
		{"/candidate-v3/../index.html", "", notFound},
		{"/./index.html", "", notFound},
		{"//index.html", "", notFound},
		{"/candidate-v3//index.html", "", notFound},
		{`/..\index.html`, "", notFound},
		{`/candidate-v3\index.html`, "", notFound},
		{"/index.html\x00", "", notFound},
		{"/etc/passwd", "", notFound},
		{"/C:/Windows/win.ini", "", notFound},
		{"/%2e%2e/", "%2e%2e/index.html", aFile}, // double-encoded: a literal name, not a parent
	}
	for _, tt := range tests {
		name, found := resolve(tt.path, wholeSite(testSite))
		if name != tt.name || found != tt.found {
			t.Errorf("resolve(%q) = %q, %d; want %q, %d", tt.path, name, found, tt.name, tt.found)
		}
	}
}

func FuzzResolve(f *testing.F) {
	for _, p := range []string{"/", "/a/", "/../x", "/%2e%2e/", `/a\b`, "//x", "/candidate-v3"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		name, found := resolve(p, wholeSite(testSite))
		switch found {
		case aFile:
			if _, ok := testSite[name]; !ok {
				t.Fatalf("resolve(%q) = %q, not a site file", p, name)
			}
		case redirectToFolder:
			if _, ok := testSite[name+"index.html"]; !ok {
				t.Fatalf("resolve(%q) redirects to %q, which has no index.html", p, name)
			}
		case notFound:
			if name != "" {
				t.Fatalf("resolve(%q) not found but named %q", p, name)
			}
		}
	})
}

// serveState starts a handler over st and returns its URL.
func serveState(t *testing.T, st *state, watching bool) string {
	t.Helper()
	var cur atomic.Pointer[state]
	cur.Store(st)
	h := &handler{current: &cur}
	if watching {
		h.hub = livereload.New(st.generation)
		t.Cleanup(h.hub.Close)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawGet sends target exactly as written, bypassing any client-side
// cleaning, and returns the status and body.
func rawGet(t *testing.T, base, target string) (int, string) {
	t.Helper()
	addr := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, addr)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestNoPathEscapesTheSite(t *testing.T) {
	base := serveState(t, &state{files: wholeSite(testSite), generation: 1}, true)
	targets := []string{
		"/../../../../etc/passwd",
		"/../go.mod",
		"/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
		"/%2E%2E/%2E%2E/etc/passwd",
		"/%252e%252e/%252e%252e/etc/passwd",
		"/%252e%252e%252fetc%252fpasswd",
		"/..%2f..%2f..%2fetc%2fpasswd",
		"/..%2F..%2Fgo.mod",
		"/results/..%2f..%2fgo.mod",
		"/..%5c..%5cetc%5cpasswd",
		`/..\..\etc\passwd`,
		`/results\..\..\go.mod`,
		"/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
		"//etc/passwd",
		"/etc/passwd",
		"/proc/self/environ",
		"/C:/Windows/win.ini",
		"/C:%5cWindows%5cwin.ini",
		"/results/%2e%2e/index.html",
		"/./index.html",
		"/index.html%00.json",
		"http://x/../../etc/passwd",
		"/__releasegate/../../etc/passwd",
	}
	for _, target := range targets {
		status, body := rawGet(t, base, target)
		if status != http.StatusNotFound && status != http.StatusBadRequest {
			t.Errorf("GET %s: status %d, want 404 or 400", target, status)
		}
		if strings.Contains(body, "root:") || strings.Contains(body, "module ") || strings.Contains(body, "Overview") {
			t.Errorf("GET %s leaked content: %.80q", target, body)
		}
	}
}

func TestServesSiteFiles(t *testing.T) {
	base := serveState(t, &state{files: wholeSite(testSite), generation: 7}, false)
	tests := []struct {
		target, ctype string
		status        int
		body          string
	}{
		{"/", "text/html; charset=utf-8", 200, string(testSite["index.html"])},
		{"/index.html", "text/html; charset=utf-8", 200, string(testSite["index.html"])},
		{"/candidate-v3/", "text/html; charset=utf-8", 200, string(testSite["candidate-v3/index.html"])},
		{"/results/candidate-v3.json", "application/json", 200, string(testSite["results/candidate-v3.json"])},
		{"/RELEASE_REPORT.md", "text/markdown; charset=utf-8", 200, "# Release report\n"},
		{"/assets/site.css", "text/css; charset=utf-8", 200, "body{}"},
		{"/assets/vendor/echarts.min.js", "text/javascript; charset=utf-8", 200, "var x;"},
		{"/.nojekyll", "text/plain; charset=utf-8", 200, ""},
		{"/assets/", "text/html; charset=utf-8", 404, string(testSite["404.html"])},
		{"/nope.html", "text/html; charset=utf-8", 404, string(testSite["404.html"])},
		// Not watching: no live reload endpoints.
		{livereload.ScriptPath, "text/html; charset=utf-8", 404, string(testSite["404.html"])},
	}
	for _, tt := range tests {
		resp, err := http.Get(base + tt.target)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.ctype || string(body) != tt.body {
			t.Errorf("GET %s = %d %q %.60q; want %d %q %.60q", tt.target, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.ctype, tt.body)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", tt.target)
		}
	}
}

func TestFolderWithoutSlashRedirects(t *testing.T) {
	base := serveState(t, &state{files: wholeSite(testSite), generation: 1}, false)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/candidate-v3?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "./candidate-v3/?x=1" {
		t.Errorf("got %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestOnlyGetAndHead(t *testing.T) {
	base := serveState(t, &state{files: wholeSite(testSite), generation: 1}, false)
	resp, err := http.Head(base + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(testSite["index.html"])) {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	resp, err = http.Post(base+"/index.html", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

func TestWatchingInjectsIntoHTMLOnly(t *testing.T) {
	files := map[string][]byte{}
	for k, v := range testSite {
		files[k] = bytes.Clone(v)
	}
	base := serveState(t, &state{files: wholeSite(files), generation: 42}, true)
	snippet := string(livereload.Snippet(42))
	_, page := get(t, base+"/")
	if want := strings.Replace(string(testSite["index.html"]), "</body>", snippet+"</body>", 1); string(page) != want {
		t.Errorf("served index:\n%s\nwant\n%s", page, want)
	}
	status, page := get(t, base+"/nope")
	if status != 404 || !strings.Contains(string(page), snippet) {
		t.Errorf("404 page without the reload script: %d %s", status, page)
	}
	for _, p := range []string{"/results/candidate-v3.json", "/RELEASE_REPORT.md", "/assets/site.css"} {
		if _, body := get(t, base+p); strings.Contains(string(body), "__releasegate") {
			t.Errorf("%s: injected into a non-HTML file", p)
		}
	}
	// The stored site is untouched.
	for k, v := range testSite {
		if !bytes.Equal(files[k], v) {
			t.Errorf("%s modified in memory", k)
		}
	}
	status, js := get(t, base+livereload.ScriptPath)
	if status != 200 || !bytes.Equal(js, livereload.Script()) {
		t.Errorf("reload.js: %d", status)
	}
}

func TestOverlayShowsTheBrokenInput(t *testing.T) {
	broken := &suite.InputError{File: "data/outputs/candidate-v3.jsonl", Line: 13, Msg: `malformed JSON: invalid character '<' looking for beginning of value in "<script>alert(1)</script>"`}
	base := serveState(t, &state{files: wholeSite(testSite), generation: 9, failure: broken}, true)
	_, page := get(t, base+"/candidate-v3/")
	s := string(page)
	for _, want := range []string{"data/outputs/candidate-v3.jsonl:13", "malformed JSON", "&lt;script&gt;alert(1)&lt;/script&gt;", `id="releasegate-build-error"`} {
		if !strings.Contains(s, want) {
			t.Errorf("overlay lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "<script>alert(1)") {
		t.Error("overlay does not escape the message")
	}
	// The last good page is still there under the overlay.
	if got := stripInjected(page); !bytes.Equal(got, testSite["candidate-v3/index.html"]) {
		t.Errorf("page under the overlay:\n%s", got)
	}
	// Non-HTML files are served as they are.
	if _, body := get(t, base+"/results/candidate-v3.json"); !bytes.Equal(body, testSite["results/candidate-v3.json"]) {
		t.Errorf("results JSON changed: %s", body)
	}
}

func TestOverlayGolden(t *testing.T) {
	tests := []struct {
		file string
		err  error
	}{
		{"overlay-input-error.html", &suite.InputError{File: "data/cases.jsonl", Line: 7, Field: "expected.decision", Msg: `unknown decision "aprove" <b>`}},
		{"overlay-whole-file.html", &suite.InputError{File: "data/gate.json", Msg: "min_pass_rate: must be between 0 and 1"}},
		{"overlay-other-error.html", errors.New("template: snapshot.html:12: function \"nope\" not defined")},
		{"overlay-several-problems.html", &suite.InputErrors{Problems: []*suite.InputError{
			{File: "data/cases.jsonl", Line: 2, Col: 916, Msg: "invalid JSON: a comma before the closing '}'", Fix: "delete the comma after the last item"},
			{File: "data/outputs/candidate-v3.jsonl", Line: 3, Field: "tool_calls", Msg: `missing required field; the line has "toolcalls" — did you mean "tool_calls"?`},
		}, More: 4}},
	}
	for _, tt := range tests {
		golden(t, tt.file, overlay(tt.err, true))
	}
}

func TestNoSiteYetPage(t *testing.T) {
	broken := &suite.InputError{File: "data/cases.jsonl", Line: 2, Field: "severity", Msg: `unknown severity "urgent"`}
	base := serveState(t, &state{failure: broken, generation: 3}, true)
	for _, p := range []string{"/", "/index.html", "/candidate-v3/"} {
		status, page := get(t, base+p)
		if status != http.StatusServiceUnavailable {
			t.Errorf("%s: status %d, want 503", p, status)
		}
		if p == "/" {
			golden(t, "no-site.html", page)
		}
	}
}

func TestContentType(t *testing.T) {
	tests := map[string]string{
		"index.html":           "text/html; charset=utf-8",
		"a/b.HTML":             "text/html; charset=utf-8",
		"results/x.json":       "application/json",
		"RELEASE_REPORT.md":    "text/markdown; charset=utf-8",
		"assets/site.css":      "text/css; charset=utf-8",
		"assets/app.js":        "text/javascript; charset=utf-8",
		"assets/logo.svg":      "image/svg+xml",
		"assets/logo.png":      "image/png",
		"assets/font.woff2":    "font/woff2",
		".nojekyll":            "text/plain; charset=utf-8",
		"assets/blob.unknown1": "application/octet-stream",
	}
	for name, want := range tests {
		if got := contentType(name); got != want {
			t.Errorf("contentType(%q) = %q, want %q", name, got, want)
		}
	}
}

func BenchmarkServePage(b *testing.B) {
	page := append(bytes.Repeat([]byte("<tr><td>ER-001</td><td>pass</td></tr>\n"), 2000), "</body></html>"...)
	var cur atomic.Pointer[state]
	cur.Store(&state{files: wholeSite(map[string][]byte{"index.html": page}), generation: 1})
	h := &handler{current: &cur, hub: livereload.New(1)}
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
