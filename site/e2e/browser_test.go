//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pageTimeout bounds one page visit, from opening the tab to the last check.
const pageTimeout = 30 * time.Second

// pageLog is everything a tab saw that a correct page never causes, and
// every request it made.
type pageLog struct {
	// Requests lists every URL the page asked for, in order.
	Requests []string
	// OffScope lists the requests outside the page's allowed scope; the tab
	// refuses every one it intercepts, so none of them reaches a host.
	OffScope []string
	// Failed lists responses with an HTTP error status and loads that failed.
	Failed []string
	// Console lists console.error and console.assert calls, and error
	// entries of the browser log (a refused resource, a CSP violation).
	Console []string
	// Violations lists the page's securitypolicyviolation events: what
	// its Content-Security-Policy refused.
	Violations []string
	// Exceptions lists uncaught exceptions and unhandled rejections.
	Exceptions []string
	// Dialogs lists alert, confirm, prompt and beforeunload dialogs.
	Dialogs []string
}

// recorder fills a pageLog from the browser's event loop while the tab
// runs; read it with snapshot.
type recorder struct {
	mu  sync.Mutex
	log pageLog
	// urls names requests by id, for the events that carry only the id.
	urls map[network.RequestID]string
}

// snapshot returns a copy that is safe to read while the tab still runs.
func (r *recorder) snapshot() pageLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := &r.log
	return pageLog{
		Requests:   slices.Clone(l.Requests),
		OffScope:   slices.Clone(l.OffScope),
		Failed:     slices.Clone(l.Failed),
		Console:    slices.Clone(l.Console),
		Violations: slices.Clone(l.Violations),
		Exceptions: slices.Clone(l.Exceptions),
		Dialogs:    slices.Clone(l.Dialogs),
	}
}

// problems lists every recorded problem, one line each, for a test message.
func (l pageLog) problems() []string {
	var out []string
	add := func(kind string, items []string) {
		for _, it := range items {
			out = append(out, kind+": "+it)
		}
	}
	add("request outside the site", l.OffScope)
	add("failed load", l.Failed)
	add("console error", l.Console)
	add("CSP violation", l.Violations)
	add("uncaught exception", l.Exceptions)
	add("dialog", l.Dialogs)
	return out
}

// listen returns the tab's event listener. It runs inside the browser
// connection's read loop, so it only records and never sends a command.
func (r *recorder) listen(inScope func(string) bool) func(ev any) {
	return func(ev any) {
		r.mu.Lock()
		defer r.mu.Unlock()
		l := &r.log
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			if r.urls == nil {
				r.urls = map[network.RequestID]string{}
			}
			r.urls[ev.RequestID] = u
			l.Requests = append(l.Requests, u)
			if !inScope(u) && !inline(u) {
				l.OffScope = append(l.OffScope, u)
			}
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 {
				l.Failed = append(l.Failed, fmt.Sprintf("%s: HTTP %d", ev.Response.URL, ev.Response.Status))
			}
		case *network.EventLoadingFailed:
			if !ev.Canceled {
				l.Failed = append(l.Failed, fmt.Sprintf("%s: %s", r.urls[ev.RequestID], ev.ErrorText))
			}
		case *runtime.EventBindingCalled:
			if ev.Name == violationBinding {
				l.Violations = append(l.Violations, ev.Payload)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				l.Console = append(l.Console, "console."+string(ev.Type)+"("+argsText(ev.Args)+")")
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				l.Console = append(l.Console, fmt.Sprintf("%s [%s] %s", ev.Entry.Text, ev.Entry.Source, ev.Entry.URL))
			}
		case *runtime.EventExceptionThrown:
			l.Exceptions = append(l.Exceptions, exceptionText(ev.ExceptionDetails))
		case *page.EventJavascriptDialogOpening:
			l.Dialogs = append(l.Dialogs, fmt.Sprintf("%s(%q) on %s", ev.Type, ev.Message, ev.URL))
		}
	}
}

// inline reports a URL that names content rather than a place to fetch it
// from (a data: image, a blob made by a script, about:blank): no host is
// involved.
func inline(u string) bool {
	for _, scheme := range []string{"data:", "blob:", "about:"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	return false
}

// argsText renders console arguments roughly as the DevTools console does.
func argsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case len(a.Value) > 0:
			parts = append(parts, string(a.Value))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, ", ")
}

func exceptionText(d *runtime.ExceptionDetails) string {
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		text += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d:%d)", text, d.URL, d.LineNumber+1, d.ColumnNumber+1)
}

// violationBinding is the function through which a page reports each
// Content-Security-Policy violation to the recorder.
const violationBinding = "__releasegateCSPViolation"

// violationListenerJS runs in every document before its own scripts and
// reports what the page's policy refuses. A binding, unlike the console,
// cannot be silenced by the page.
const violationListenerJS = `document.addEventListener("securitypolicyviolation", e => {
	window.` + violationBinding + `(e.effectiveDirective + " refused " + (e.blockedURI || "inline") +
		" in " + e.documentURI + (e.sourceFile ? " (" + e.sourceFile + ":" + e.lineNumber + ")" : "") +
		(e.sample ? ": " + e.sample : ""));
}, true);`

// tab is one browser tab with its recorder. Every request it makes passes
// through the tab, which lets requests inside scope go on and refuses the
// rest, so a page can never reach another host even by mistake.
type tab struct {
	ctx   context.Context
	log   *recorder
	close context.CancelFunc
}

// openTab opens a tab in the shared browser that closes when the test ends.
// inScope decides which URLs the tab may load.
func openTab(t testing.TB, browser context.Context, inScope func(string) bool) *tab {
	t.Helper()
	tb, err := newTab(browser, inScope)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tb.close)
	return tb
}

// newTab opens a tab in browser; the caller closes it.
func newTab(browser context.Context, inScope func(string) bool) (*tab, error) {
	rec := &recorder{}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(rec.listen(inScope)))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("open tab: %w", err)
	}
	// Both loops end when the tab's context ends.
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if inScope(ev.Request.URL) || inline(ev.Request.URL) {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
		}
	}()
	// A dialog blocks the page and with it every later step, so dismiss it
	// at once; the listener has recorded it already.
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	if _, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		cancel()
		return nil, fmt.Errorf("intercept requests: %w", err)
	}
	if _, err := chromedp.Call(ctx, runtime.AddBinding, runtime.AddBindingParams{Name: violationBinding}); err != nil {
		cancel()
		return nil, fmt.Errorf("listen for policy violations: %w", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: violationListenerJS}); err != nil {
		cancel()
		return nil, fmt.Errorf("listen for policy violations: %w", err)
	}
	return &tab{ctx: ctx, log: rec, close: cancel}, nil
}

// open navigates to url, waits for the load event and lets scripts that run
// after it settle. It returns the document's HTTP status, 0 for file://.
func (tb *tab) open(url string) (status int64, err error) {
	resp, err := chromedp.Run(tb.ctx, chromedp.NavigateResponse(url))
	if err != nil {
		return 0, fmt.Errorf("navigate to %s: %w", url, err)
	}
	if resp != nil {
		status = resp.Status
	}
	return status, tb.settle()
}

// settle waits until the page has painted twice after load, so that work
// scheduled in load handlers and animation frames has run. A timer bounds
// the wait in case the tab gets no animation frames.
func (tb *tab) settle() error {
	const js = `new Promise(done => {
		const timer = setTimeout(done, 1000);
		requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); setTimeout(done, 50); }));
	})`
	return chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](js, chromedp.EvalAwaitPromise))
}

// eval runs a JavaScript expression in the page and decodes its result; a
// promise is awaited.
func eval[T any](tb *tab, js string) (T, error) {
	return chromedp.Run(tb.ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// withTimeout returns a copy of tb whose actions end after d. The browser
// and the tab stay open when it ends.
func (tb *tab) withTimeout(t testing.TB, d time.Duration) *tab {
	ctx, cancel := context.WithTimeout(tb.ctx, d)
	t.Cleanup(cancel)
	return &tab{ctx: ctx, log: tb.log, close: tb.close}
}

// deadline returns a view of tb whose actions end after d, and the func
// that releases it. The tab itself stays open.
func (tb *tab) deadline(d time.Duration) (*tab, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(tb.ctx, d)
	return &tab{ctx: ctx, log: tb.log, close: tb.close}, cancel
}

// reset forgets what the tab recorded, so the next page starts with an
// empty log. It does not leave the current page first: that costs a
// navigation per visit, and the only thing it would prevent is a late
// error of the previous page being charged to the next one, which still
// fails the run.
func (tb *tab) reset() {
	tb.log.mu.Lock()
	defer tb.log.mu.Unlock()
	tb.log.log, tb.log.urls = pageLog{}, nil
}

// setup prepares a fresh tab before it loads any page, e.g. emulates a
// colour scheme.
type setup func(tb *tab) error

// tabPool lends tabs with one scope and one setup to the visits of a
// crawl. Opening a tab starts a renderer process, which costs more than
// loading most pages; a pool pays for it once per parallel visit.
type tabPool struct {
	browser context.Context
	inScope func(string) bool
	prepare setup
	idle    chan *tab
}

func newTabPool(browser context.Context, inScope func(string) bool, prepare setup) *tabPool {
	return &tabPool{browser: browser, inScope: inScope, prepare: prepare, idle: make(chan *tab, tabsInParallel)}
}

// get lends an idle tab, or opens and prepares a new one.
func (p *tabPool) get() (*tab, error) {
	select {
	case tb := <-p.idle:
		return tb, nil
	default:
	}
	tb, err := newTab(p.browser, p.inScope)
	if err != nil {
		return nil, err
	}
	if p.prepare != nil {
		if err := p.prepare(tb); err != nil {
			tb.close()
			return nil, fmt.Errorf("prepare the tab: %w", err)
		}
	}
	return tb, nil
}

// put returns a tab for the next visit.
func (p *tabPool) put(tb *tab) {
	select {
	case p.idle <- tb:
	default:
		tb.close()
	}
}

// close closes the idle tabs.
func (p *tabPool) close() {
	for {
		select {
		case tb := <-p.idle:
			tb.close()
		default:
			return
		}
	}
}
