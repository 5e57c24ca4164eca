package serve

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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

// TestBrowserReloadsAndShowsTheOverlay drives a real browser: the injected
// script must reload the page after a save, show the overlay after a bad
// edit and clear it after the fix, without a console error on the way.
func TestBrowserReloadsAndShowsTheOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	ts := startServer(t, serverOptions{})
	ctx := chromium(t)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+ev.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError {
				msg := "console.error"
				if len(ev.Args) > 0 {
					msg += ": " + string(ev.Args[0].Value)
				}
				problems = append(problems, msg)
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

	// Nothing waits for the page's event stream to connect: a save that
	// lands before it does must reload the page all the same.
	//
	// mark sets a flag that survives only until the page reloads.
	mark := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__notReloaded = true`)); err != nil {
			t.Fatal(err)
		}
	}
	// waitFor polls a predicate that holds once the page has reloaded.
	// Evaluations fail while the page navigates; they are retried.
	waitFor := func(what, predicate string) {
		t.Helper()
		js := `window.__notReloaded === undefined && document.readyState === "complete" && (` + predicate + `)`
		var last error
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
			if err == nil && ok {
				return
			}
			last = err
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%s: not within 15s (last error: %v)", what, last)
	}
	const overlay = `document.getElementById("releasegate-build-error")`

	v3 := outputsPath(ts.data, "candidate-v3")
	original, _ := os.ReadFile(v3)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.url)); err != nil {
		t.Fatal(err)
	}
	mark()

	// A save reloads the page.
	writeFile(t, v3, firstLines(original, 6))
	waitFor("reload after a save", overlay+` === null`)
	mark()

	// A bad edit: reload with the overlay naming file and line.
	writeFile(t, v3, append(bytes.Clone(original), "{oops\n"...))
	waitFor("overlay after a bad edit", overlay+` !== null`)
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](overlay+`.textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "candidate-v3.jsonl:13") {
		t.Errorf("overlay text %q does not name the file and line", text)
	}
	mark()

	// The fix: reload, no overlay.
	writeFile(t, v3, original)
	waitFor("reload without the overlay after the fix", overlay+` === null`)

	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("browser reported: %q", problems)
	}
}
