package serve

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator"
	"go.uber.org/goleak"
)

// testServer is a running server over a temporary copy of the sample.
type testServer struct {
	t      testing.TB
	url    string
	data   string
	web    string // "" when the embedded templates are used
	log    *syncBuffer
	client *http.Client
}

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type serverOptions struct {
	renderer newRendererFunc
	web      bool   // read templates from a temporary --web copy
	data     string // a data folder to use instead of a sample copy
	// readyWithin bounds the first build; 0 means 60 s.
	readyWithin time.Duration
}

// startServer runs a watching server on a random loopback port until the
// test ends, then checks that it shut down cleanly.
func startServer(t testing.TB, opts serverOptions) *testServer {
	t.Helper()
	ts := &testServer{t: t, data: opts.data, log: &syncBuffer{}}
	if ts.data == "" {
		ts.data = copyDir(t, sampleData)
	}
	cfg := Config{Data: ts.data, Web: releasegate.Web(), Addr: "127.0.0.1:0", Watch: true, Log: ts.log}
	if opts.web {
		ts.web = copyWeb(t)
		cfg.WebDir = ts.web
	}
	nr := opts.renderer
	if nr == nil {
		nr = siteRenderer
	}
	ready := make(chan string, 1)
	cfg.Ready = func(url string) { ready <- url }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, nr) }()
	select {
	case ts.url = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("server stopped at once: %v", err)
	case <-time.After(cmp.Or(opts.readyWithin, 60*time.Second)):
		cancel()
		t.Fatalf("server not ready within %s", cmp.Or(opts.readyWithin, 60*time.Second))
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 16}
	ts.client = &http.Client{Transport: transport, Timeout: 10 * time.Second}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not stop within 10s of its context ending")
		}
		transport.CloseIdleConnections()
	})
	return ts
}

// get fetches a path and returns status and body.
func (ts *testServer) get(p string) (int, []byte) {
	ts.t.Helper()
	resp, err := ts.client.Get(ts.url + strings.TrimPrefix(p, "/"))
	if err != nil {
		ts.t.Fatalf("GET %s: %v", p, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatalf("GET %s: %v", p, err)
	}
	return resp.StatusCode, body
}

// page fetches a page that must exist.
func (ts *testServer) page(p string) []byte {
	ts.t.Helper()
	status, body := ts.get(p)
	if status != http.StatusOK {
		ts.t.Fatalf("GET %s: status %d", p, status)
	}
	return body
}

// expectedResults is the results file of a snapshot as evaluated from
// scratch.
func (ts *testServer) expectedResults(label string) []byte {
	ts.t.Helper()
	// A results file compares its snapshot with the one before it: it
	// is that of the whole release.
	rel, err := evaluator.EvaluateDir(ts.data, evaluator.Options{})
	if err != nil {
		ts.t.Fatal(err)
	}
	for _, s := range rel.Snapshots {
		if s.Label() == label {
			return s.JSON()
		}
	}
	ts.t.Fatalf("no snapshot %s", label)
	return nil
}

// sseClient is a page listening for reloads.
type sseClient struct {
	t       testing.TB
	events  chan event
	hello   uint64
	stop    func()
	timeout time.Duration // how long reload waits
}

type event struct {
	name string
	gen  uint64
	at   time.Time
}

// listen connects to the event stream as a page's script does.
func (ts *testServer) listen() *sseClient {
	ts.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"__releasegate/events", nil)
	// A stream lasts as long as the page: no client timeout.
	stream := &http.Client{Transport: ts.client.Transport}
	resp, err := stream.Do(req)
	if err != nil {
		cancel()
		ts.t.Fatal(err)
	}
	c := &sseClient{t: ts.t, events: make(chan event, 256), timeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				gen, _ := strconv.ParseUint(line[len("data: "):], 10, 64)
				select {
				case c.events <- event{name: name, gen: gen, at: time.Now()}:
				default:
				}
			}
		}
	}()
	c.stop = func() { cancel(); <-done }
	ts.t.Cleanup(c.stop)
	hello := c.next(10 * time.Second)
	if hello.name != "hello" {
		ts.t.Fatalf("first event %+v, want hello", hello)
	}
	c.hello = hello.gen
	return c
}

func (c *sseClient) next(within time.Duration) event {
	c.t.Helper()
	select {
	case ev := <-c.events:
		return ev
	case <-time.After(within):
		c.t.Fatalf("no event within %s", within)
	}
	return event{}
}

// reload waits for a reload event newer than after.
func (c *sseClient) reload(after uint64) event {
	c.t.Helper()
	deadline := time.Now().Add(c.timeout)
	for {
		ev := c.next(time.Until(deadline))
		if ev.name == "reload" && ev.gen > after {
			return ev
		}
	}
}

// quiet checks that no reload arrives for a while.
func (c *sseClient) quiet(d time.Duration) {
	c.t.Helper()
	select {
	case ev := <-c.events:
		c.t.Fatalf("unexpected %+v", ev)
	case <-time.After(d):
	}
}

// renderers runs a test against the real site and against the fake, so a
// failure tells whether the server or the site is at fault.
func renderers(t *testing.T, test func(t *testing.T, nr newRendererFunc)) {
	t.Run("site", func(t *testing.T) { test(t, siteRenderer) })
	t.Run("fake", func(t *testing.T) {
		nr, _ := fakeRenderers()
		test(t, nr)
	})
}

func TestServeRebuildsAndReloadsOnEveryKindOfSave(t *testing.T) {
	renderers(t, func(t *testing.T, nr newRendererFunc) {
		ts := startServer(t, serverOptions{renderer: nr})
		page := ts.listen()
		gen := page.hello
		v3 := outputsPath(ts.data, "candidate-v3")
		original, _ := os.ReadFile(v3)

		// An edit in place.
		before := stripInjected(ts.page("/"))
		writeFile(t, v3, firstLines(original, 6))
		gen = page.reload(gen).gen
		if after := stripInjected(ts.page("/")); bytes.Equal(after, before) {
			t.Error("in-place edit: overview unchanged")
		}
		if got := ts.page("/results/candidate-v3.json"); !bytes.Equal(got, ts.expectedResults("candidate-v3")) {
			t.Errorf("in-place edit: results not updated:\n%s", got)
		}
		if log := ts.log.String(); !strings.Contains(log, "rebuilt (outputs/candidate-v3.jsonl) in ") || !strings.Contains(log, "candidate-v3: PASS → BLOCK") {
			t.Errorf("log lacks the rebuild line:\n%s", log)
		}

		// A replace by rename, as editors and sed -i save.
		before = stripInjected(ts.page("/"))
		replaceFile(t, v3, original)
		gen = page.reload(gen).gen
		if after := stripInjected(ts.page("/")); bytes.Equal(after, before) {
			t.Error("rename: overview unchanged")
		}
		if got := ts.page("/results/candidate-v3.json"); !bytes.Equal(got, ts.expectedResults("candidate-v3")) {
			t.Error("rename: results not updated")
		}
		if !strings.Contains(ts.log.String(), "candidate-v3: BLOCK → PASS") {
			t.Errorf("log:\n%s", ts.log.String())
		}

		// A new snapshot.
		if status, _ := ts.get("/results/candidate-v4.json"); status != http.StatusNotFound {
			t.Fatalf("candidate-v4 exists before it was added: %d", status)
		}
		before = stripInjected(ts.page("/"))
		v2, _ := os.ReadFile(outputsPath(ts.data, "candidate-v2"))
		writeFile(t, outputsPath(ts.data, "candidate-v4"), v2)
		gen = page.reload(gen).gen
		if after := stripInjected(ts.page("/")); bytes.Equal(after, before) {
			t.Error("new snapshot: overview unchanged")
		}
		if got := ts.page("/results/candidate-v4.json"); !bytes.Equal(got, ts.expectedResults("candidate-v4")) {
			t.Error("new snapshot: results not served")
		}
		if !strings.Contains(ts.log.String(), "candidate-v4: added (REVIEW)") {
			t.Errorf("log:\n%s", ts.log.String())
		}

		// Its removal: every file of it disappears.
		if err := os.Remove(outputsPath(ts.data, "candidate-v4")); err != nil {
			t.Fatal(err)
		}
		page.reload(gen)
		if status, _ := ts.get("/results/candidate-v4.json"); status != http.StatusNotFound {
			t.Errorf("removed snapshot still served: %d", status)
		}
		if bytes.Contains(stripInjected(ts.page("/")), []byte("candidate-v4")) {
			t.Error("overview still mentions the removed snapshot")
		}

		// Touching a file without changing it reloads nothing.
		writeFile(t, v3, original)
		page.quiet(4 * DefaultDebounce)
	})
}

func TestServeReloadsOnTemplateChange(t *testing.T) {
	renderers(t, func(t *testing.T, nr newRendererFunc) {
		ts := startServer(t, serverOptions{renderer: nr, web: true})
		page := ts.listen()
		// The frame template that closes every page's body.
		tmpl := filepath.Join(ts.web, "templates", "base.html")
		src, err := os.ReadFile(tmpl)
		if err != nil || !bytes.Contains(src, []byte("</body>")) {
			t.Fatalf("templates/base.html holds no </body>: %v", err)
		}
		before := stripInjected(ts.page("/"))
		results := ts.page("/results/candidate-v3.json")
		const marker = "<p>edited while serving</p>"
		replaceFile(t, tmpl, bytes.Replace(src, []byte("</body>"), []byte(marker+"</body>"), 1))
		page.reload(page.hello)
		after := stripInjected(ts.page("/"))
		if bytes.Equal(after, before) || !bytes.Contains(after, []byte("edited while serving")) {
			t.Errorf("template change not shown:\n%.2000s", after)
		}
		if !bytes.Equal(ts.page("/results/candidate-v3.json"), results) {
			t.Error("a template change altered the results")
		}
		if !strings.Contains(ts.log.String(), "rebuilt (templates/") {
			t.Errorf("log:\n%s", ts.log.String())
		}
	})
}

func TestServeKeepsTheLastGoodSiteThroughBadEdits(t *testing.T) {
	renderers(t, func(t *testing.T, nr newRendererFunc) {
		ts := startServer(t, serverOptions{renderer: nr})
		page := ts.listen()
		v3 := outputsPath(ts.data, "candidate-v3")
		original, _ := os.ReadFile(v3)
		good := stripInjected(ts.page("/"))
		goodResults := ts.page("/results/candidate-v3.json")

		writeFile(t, v3, append(bytes.Clone(original), `{"case_id": "ER-001", "decision": `+"\n"...))
		gen := page.reload(page.hello).gen
		for _, p := range []string{"/", "/results/candidate-v3.json"} {
			if status, _ := ts.get(p); status != http.StatusOK {
				t.Errorf("GET %s during a bad edit: %d", p, status)
			}
		}
		served := ts.page("/")
		if !bytes.Contains(served, []byte(`id="releasegate-build-error"`)) {
			t.Fatal("no overlay on the overview")
		}
		if !bytes.Contains(served, []byte("candidate-v3.jsonl:13")) {
			t.Errorf("overlay does not name file and line:\n%s", served)
		}
		if !bytes.Equal(stripInjected(served), good) {
			t.Error("the last good overview is not what is served under the overlay")
		}
		if !bytes.Equal(ts.page("/results/candidate-v3.json"), goodResults) {
			t.Error("results changed by a bad edit")
		}
		if !strings.Contains(ts.log.String(), "rebuild failed (outputs/candidate-v3.jsonl)") || !strings.Contains(ts.log.String(), "still serving the last good site") {
			t.Errorf("log:\n%s", ts.log.String())
		}

		// The fix: overlay gone, reload sent.
		writeFile(t, v3, original)
		page.reload(gen)
		served = ts.page("/")
		if bytes.Contains(served, []byte("releasegate-build-error")) {
			t.Error("overlay still shown after the fix")
		}
		if !bytes.Equal(stripInjected(served), good) {
			t.Error("overview differs after the fix")
		}
	})
}

func TestServeStartsWithBrokenInputsAndRecovers(t *testing.T) {
	data := copyDir(t, sampleData)
	gate := filepath.Join(data, "gate.json")
	good, _ := os.ReadFile(gate)
	writeFile(t, gate, []byte(`{"min_pass_rate": "high"}`))
	ts := startServer(t, serverOptions{data: data})
	status, body := ts.get("/")
	if status != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("gate.json")) || !bytes.Contains(body, []byte("releasegate-build-error")) {
		t.Fatalf("first build broken: %d\n%s", status, body)
	}
	page := ts.listen()
	writeFile(t, gate, good)
	page.reload(page.hello)
	if body := ts.page("/"); bytes.Contains(body, []byte("releasegate-build-error")) {
		t.Error("overlay after recovery")
	}
	if log := ts.log.String(); !strings.HasPrefix(log, "build failed in ") || !strings.Contains(log, "\nbuilt (gate.json) in ") {
		t.Errorf("log:\n%s", log)
	}
}

func TestServeHundredRapidWritesEndInTheFinalContent(t *testing.T) {
	renderers(t, func(t *testing.T, nr newRendererFunc) {
		ts := startServer(t, serverOptions{renderer: nr})
		v3 := outputsPath(ts.data, "candidate-v3")
		original, _ := os.ReadFile(v3)
		lines := bytes.SplitAfter(original, []byte("\n"))

		// Readers poll while the file is rewritten.
		var requests, failures atomic.Int64
		var failMsg atomic.Value
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for _, p := range []string{"/", "/results/candidate-v3.json", "/candidate-v3/", "/nope"} {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					resp, err := ts.client.Get(ts.url + strings.TrimPrefix(p, "/"))
					requests.Add(1)
					if err != nil {
						failures.Add(1)
						failMsg.Store(err.Error())
						continue
					}
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					want := http.StatusOK
					if p == "/nope" {
						want = http.StatusNotFound
					} else if p == "/candidate-v3/" && resp.StatusCode == http.StatusNotFound {
						want = http.StatusNotFound // the fake has it, the site may name it differently
					}
					if err != nil || resp.StatusCode != want {
						failures.Add(1)
						failMsg.Store(p + ": " + resp.Status)
					}
				}
			})
		}
		var final []byte
		for i := range 100 {
			// Each write gives a different average cost.
			first := bytes.Replace(lines[0], []byte(`"cost_usd": 0.009`), []byte(`"cost_usd": 0.`+strconv.Itoa(1000+i)), 1)
			final = append(bytes.Clone(first), bytes.Join(lines[1:], nil)...)
			if i%3 == 2 {
				replaceFile(t, v3, final)
			} else {
				writeFile(t, v3, final)
			}
			if i%20 == 19 {
				// Now and then a pause long enough for a rebuild to start
				// while the writes go on.
				time.Sleep(2 * DefaultDebounce)
			}
		}
		want := ts.expectedResults("candidate-v3")
		eventually(t, 10*time.Second, "the final content served", func() bool {
			_, got := ts.get("/results/candidate-v3.json")
			return bytes.Equal(got, want)
		})
		close(stop)
		wg.Wait()
		if failures.Load() > 0 {
			t.Errorf("%d of %d requests failed during the writes; last: %v", failures.Load(), requests.Load(), failMsg.Load())
		}
		if body := ts.page("/"); bytes.Contains(body, []byte("releasegate-build-error")) {
			t.Error("overlay left after the final, valid write")
		}
		rebuilds := strings.Count(ts.log.String(), "\n") - 1
		t.Logf("%d requests during 100 writes, all served; %d rebuilds", requests.Load(), rebuilds)
		if rebuilds < 1 || rebuilds > 50 {
			t.Errorf("%d rebuilds for 100 writes: the debounce is not working", rebuilds)
		}
	})
}

func TestServePathTraversal(t *testing.T) {
	parent := t.TempDir()
	data := filepath.Join(parent, "data")
	if err := os.Rename(copyDir(t, sampleData), data); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(parent, "secret.txt"), []byte("TOP-SECRET"))
	ts := startServer(t, serverOptions{data: data})
	targets := []string{
		"/../secret.txt", "/../../secret.txt",
		"/%2e%2e/secret.txt", "/%2E%2E/%2e%2e/secret.txt",
		"/%252e%252e/secret.txt", "/%252e%252e%252fsecret.txt",
		"/..%2fsecret.txt", "/..%2F..%2Fsecret.txt",
		`/..\secret.txt`, "/..%5csecret.txt", "/%5c..%5csecret.txt",
		"/" + filepath.ToSlash(filepath.Join(parent, "secret.txt")),
		"//" + filepath.ToSlash(filepath.Join(parent, "secret.txt")),
		"/data/cases.jsonl", "/cases.jsonl", "/outputs/candidate-v3.jsonl",
		"/results/../../secret.txt", "/results/..%2f..%2fsecret.txt",
		"/etc/passwd", "/../../../../../../etc/passwd",
	}
	for _, target := range targets {
		status, body := rawGet(t, ts.url, target)
		if status != http.StatusNotFound && status != http.StatusBadRequest {
			t.Errorf("GET %s: status %d", target, status)
		}
		if strings.Contains(body, "TOP-SECRET") || strings.Contains(body, "root:x:") || strings.Contains(body, `"case_id"`) {
			t.Errorf("GET %s leaked a file", target)
		}
	}
}

func TestServeReportsABusyPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	err = Run(context.Background(), Config{Data: sampleData, Web: releasegate.Web(), Addr: addr})
	if err == nil || err.Error() != addr+" is already in use; pick another with --addr" {
		t.Errorf("err = %v", err)
	}
}

func TestServeWithoutWatchFailsOnBadInput(t *testing.T) {
	data := copyDir(t, sampleData)
	writeFile(t, filepath.Join(data, "cases.jsonl"), []byte("{\n"))
	err := Run(context.Background(), Config{Data: data, Web: releasegate.Web(), Addr: "127.0.0.1:0"})
	if err == nil || !strings.Contains(err.Error(), "cases.jsonl:1") {
		t.Errorf("err = %v", err)
	}
}

func TestServeWithoutWatchServesTheBuiltBytes(t *testing.T) {
	data := copyDir(t, sampleData)
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Data: data, Web: releasegate.Web(), Addr: "127.0.0.1:0", Ready: func(u string) { ready <- u }})
	}()
	url := <-ready
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	out := filepath.Join(t.TempDir(), "public")
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := b.build(changeSet{}); err != nil {
		t.Fatal(err)
	}
	sameAsBuild(t, b.files.all(), data)
	_ = out
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, name := range []string{"index.html", "policy.html", "results/candidate-v3.json", "RELEASE_REPORT.md"} {
		resp, err := client.Get(url + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(body, fileOf(t, b.files, name)) {
			t.Errorf("%s: served bytes differ from the build (no injection without --watch)", name)
		}
	}
	resp, err := client.Get(url + "__releasegate/reload.js")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("reload.js served without --watch: %d", resp.StatusCode)
	}
}

func TestServeShutsDownWithoutLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	data := copyDir(t, sampleData)
	ready := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{Data: data, Web: releasegate.Web(), Addr: "127.0.0.1:0", Watch: true,
			Ready: func(u string) { ready <- u }})
	}()
	url := <-ready
	// An open event stream and a rebuild in flight must not hold it up.
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	resp, err := client.Get(url + "__releasegate/events")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(data, "HANDOFF.md"), []byte("# x\n"))
	time.Sleep(DefaultDebounce + 10*time.Millisecond)
	started := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of cancel")
	}
	// A rebuild stops at its next file once cancelled; on a busy machine
	// that can take a second or two, a hang takes the 5s above.
	if took := time.Since(started); took > 3*raceSlowdown*time.Second {
		t.Errorf("shutdown took %s", took)
	}
	io.Copy(io.Discard, resp.Body) // the stream ends
	resp.Body.Close()
	tr.CloseIdleConnections()
}
