//go:build e2e

// Package e2e checks the built report site the way a reader meets it: in a
// real browser (Debian's chromium, driven over the DevTools protocol), through
// the Nu Html Checker and through axe-core.
//
// The package holds tests only. TestMain starts one headless browser for the
// whole run; every test opens its own tabs in it. A tool that is missing
// (chromium, java, the npm tools under testdata/node_modules) makes the tests
// that need it skip with a message that says how to get it, except when
// CI=true, where a missing tool is a failure: a green CI run must mean the
// checks ran.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// Paths of the test-only npm tools, installed by `npm ci` in testdata.
var (
	vnuJar    = filepath.Join("testdata", "node_modules", "vnu-jar", "build", "dist", "vnu.jar")
	axeScript = filepath.Join("testdata", "node_modules", "axe-core", "axe.min.js")
)

// sampleData is the repository's sample data folder, seen from this package.
const sampleData = "../../data"

// shared is what TestMain prepares once for every test of the package. It is
// written before m.Run and only read afterwards, so tests running in parallel
// may use it without a lock.
var shared *environment

// environment holds the browser and the state of the external tools.
type environment struct {
	// ci is true under CI=true: a missing tool fails instead of skipping.
	ci bool
	// browser is the context of the one browser; nil when it could not start.
	browser context.Context
	// browserProblem says why browser is nil.
	browserProblem error
	// browserMissing is true when the problem is an absent chromium, as
	// opposed to one that is present and fails to start.
	browserMissing bool
	// tmp holds the browser profile and the built sites; removed at exit.
	tmp string
	// sites builds each site the tests need at most once.
	sites *siteCache
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests is TestMain's body, separate so that deferred clean-ups run before
// os.Exit.
func runTests(m *testing.M) int {
	// Not "releasegate-…": a folder named releasegate-<x>-<8 hex digits>
	// is what the pages take for an unpacked bundle, and MkdirTemp's
	// random part is sometimes eight digits.
	tmp, err := os.MkdirTemp("", "e2e-sites-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)

	env := &environment{ci: os.Getenv("CI") == "true", tmp: tmp, sites: newSiteCache(tmp)}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	env.browser, env.browserMissing, env.browserProblem = startBrowser(ctx, filepath.Join(tmp, "profile"))
	shared = env
	code := m.Run()
	if env.browser != nil {
		// Wait for the browser to exit, so the profile can be removed.
		_ = chromedp.Cancel(env.browser)
	}
	return code
}

// chromePath is the browser to drive: $CHROME, else Debian's chromium.
func chromePath() string {
	if p := os.Getenv("CHROME"); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// startBrowser launches the one headless browser of the run. missing reports
// that there is no browser binary at all, which is a skip outside CI.
func startBrowser(ctx context.Context, profile string) (browser context.Context, missing bool, err error) {
	path := chromePath()
	if _, err := exec.LookPath(path); err != nil {
		return nil, true, fmt.Errorf("no browser at %s (install it with `apt-get install -y chromium`, or point $CHROME at one): %w", path, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.WindowSize(1280, 900),
		// The machine has no network: without these the browser keeps
		// calling home and fills the logs with refused connections.
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		// Resolve no host name but the loopback ones: whatever a page asks for
		// outside the machine is refused before any packet leaves.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
		// Each window of a headless browser still preloads the address
		// bar's popup as a web page of its own, which costs more CPU than
		// some of the pages under test.
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,WebUIOmniboxPopup,WebUIOmniboxAimPopup,MediaRouter,OptimizationHints"),
	)

	allocCtx, _ := chromedp.NewExecAllocator(ctx, opts...)
	browser, _ = chromedp.NewContext(allocCtx)
	// The first Do starts the process; the contexts end with ctx.
	if err := chromedp.Do(browser); err != nil {
		return nil, false, fmt.Errorf("start %s: %w", path, err)
	}
	return browser, false, nil
}

// need reports a missing tool: a skip when run by hand, a failure under CI.
func (e *environment) need(t testing.TB, what string, problem error) {
	t.Helper()
	if problem == nil {
		return
	}
	if e.ci {
		t.Fatalf("%s is required under CI=true: %v", what, problem)
	}
	t.Skipf("skipping: %s is not available: %v", what, problem)
}

// needBrowser returns the shared browser context or ends the test.
func (e *environment) needBrowser(t testing.TB) context.Context {
	t.Helper()
	if e.browser == nil && !e.browserMissing {
		t.Fatalf("browser: %v", e.browserProblem)
	}
	e.need(t, "chromium", e.browserProblem)
	return e.browser
}

// needFile ends the test when a file that `npm ci` in testdata installs is
// missing.
func (e *environment) needFile(t testing.TB, what, path string) {
	t.Helper()
	var problem error
	if _, err := os.Stat(path); err != nil {
		problem = fmt.Errorf("%w (run `npm ci --ignore-scripts` in site/e2e/testdata)", err)
	}
	e.need(t, what, problem)
}

// needJava returns the java binary or ends the test.
func (e *environment) needJava(t testing.TB) string {
	t.Helper()
	java, err := exec.LookPath("java")
	if err != nil {
		err = errors.Join(err, errors.New("install a JRE with `apt-get install -y default-jre-headless`"))
	}
	e.need(t, "java", err)
	return java
}
