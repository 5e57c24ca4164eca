//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/releasegate/releasegate/internal/bundle"
)

// The viewport type and the three viewports every layout check runs at
// are in views_test.go.

// atViewport returns a tab setup that gives the page the viewport's size
// (and, for the phone, its touch screen and meta viewport handling)
// before anything loads.
func atViewport(vp viewport) func(tb *tab) error {
	return func(tb *tab) error {
		_, err := chromedp.Call(tb.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: vp.width, Height: vp.height, DeviceScaleFactor: 1, Mobile: vp.mobile,
		})
		return err
	}
}

// openSized opens rel of s in a new tab at vp, in the given colour scheme.
func openSized(t *testing.T, s served, rel string, vp viewport, scheme string) *tab {
	t.Helper()
	tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, pageTimeout)
	if err := colorScheme(scheme)(tb); err != nil {
		t.Fatal(err)
	}
	if err := atViewport(vp)(tb); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.open(s.url(rel)); err != nil {
		t.Fatal(err)
	}
	return tb
}

// widthProbeJS measures how wide the page is and names the elements that
// reach past the window's right edge, leaving out those inside an element
// that scrolls or clips sideways on its own (a table region, the
// snapshot navigation).
const widthProbeJS = `(() => {
	const width = document.documentElement.clientWidth;
	const clipped = el => {
		for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			const o = getComputedStyle(p).overflowX;
			if (o === "auto" || o === "scroll" || o === "hidden") return true;
		}
		return false;
	};
	const wide = [];
	for (const el of document.body.querySelectorAll("*")) {
		const r = el.getBoundingClientRect();
		if (r.width === 0 || r.right <= width + 1 || clipped(el)) continue;
		wide.push(el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "") + " right=" + Math.round(r.right));
		if (wide.length >= 5) break;
	}
	return {scrollWidth: document.documentElement.scrollWidth, width, wide};
})()`

type widthProbe struct {
	ScrollWidth int64    `json:"scrollWidth"`
	Width       int64    `json:"width"`
	Wide        []string `json:"wide"`
}

// overviewPages are the pages whose layout this file checks.
var overviewPages = []string{"index.html", "policy.html", "handoff.html", "report.html"}

// TestOverviewPagesFitTheWindow: at every viewport, no page of the overview
// family is wider than the window, so nothing scrolls sideways; a wide
// table scrolls inside its own region, which the keyboard can reach.
func TestOverviewPagesFitTheWindow(t *testing.T) {
	t.Parallel()
	s := serveHTTP(t, shared.sampleSite(t))
	for _, vp := range viewports {
		for _, rel := range overviewPages {
			t.Run(vp.name+"/"+rel, func(t *testing.T) {
				tb := openSized(t, s, rel, vp, "light")
				got, err := eval[widthProbe](tb, widthProbeJS)
				if err != nil {
					t.Fatal(err)
				}
				if got.Width != vp.width {
					t.Errorf("the window is %d px wide, want %d (the viewport was changed)", got.Width, vp.width)
				}
				if got.ScrollWidth > vp.width {
					t.Errorf("the page is %d px wide in a %d px window", got.ScrollWidth, vp.width)
				}
				for _, w := range got.Wide {
					t.Errorf("reaches past the window: %s", w)
				}
				regions, err := eval[[]string](tb, `[...document.querySelectorAll(".table-wrap")].filter(r =>
					r.tabIndex !== 0 || r.getAttribute("role") !== "region" || !r.getAttribute("aria-label")).map(r => r.outerHTML.slice(0, 80))`)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range regions {
					t.Errorf("a table region the keyboard cannot reach or that has no name: %s", r)
				}
				// The footer's provenance is one sentence: at laptop widths
				// it takes at most three lines, however other rules style
				// lists of facts.
				footer, err := eval[[]float64](tb, `(() => {
					const p = document.querySelector(".site-footer .provenance");
					if (!p) return [-1, 0];
					return [p.getBoundingClientRect().height, parseFloat(getComputedStyle(p).lineHeight) || 20];
				})()`)
				if err != nil {
					t.Fatal(err)
				}
				if footer[0] < 0 {
					t.Error("no provenance in the footer")
				} else if vp.width >= 1024 && footer[0] > 3*footer[1]+1 {
					t.Errorf("the footer's provenance is %.0f px tall, more than three lines of %.0f px", footer[0], footer[1])
				}
				for _, p := range tb.log.snapshot().problems() {
					t.Error(p)
				}
			})
		}
	}
}

// verdictProbeJS reads the verdict sentence and where it lies.
const verdictProbeJS = `(() => {
	const v = document.querySelector("#verdict .verdict-sentence");
	if (!v) return {found: false};
	const r = v.getBoundingClientRect();
	return {found: true, text: v.textContent.replace(/\s+/g, " ").trim(), top: r.top, bottom: r.bottom, height: innerHeight};
})()`

type verdictProbe struct {
	Found  bool    `json:"found"`
	Text   string  `json:"text"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Height float64 `json:"height"`
}

// TestVerdictInFirstScreen: the overview's first screen names the decisive
// snapshot and its decision, at every viewport.
func TestVerdictInFirstScreen(t *testing.T) {
	t.Parallel()
	s := serveHTTP(t, shared.sampleSite(t))
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			tb := openSized(t, s, "index.html", vp, "light")
			got, err := eval[verdictProbe](tb, verdictProbeJS)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Found {
				t.Fatal("no verdict sentence")
			}
			for _, want := range []string{"candidate-v3", "PASS", "may ship under policy ER-2026.10"} {
				if !strings.Contains(got.Text, want) {
					t.Errorf("verdict %q lacks %q", got.Text, want)
				}
			}
			if got.Bottom > float64(vp.height) || got.Top < 0 {
				t.Errorf("the verdict lies at %.0f–%.0f px, outside the first screen of %d px", got.Top, got.Bottom, vp.height)
			}
		})
	}
}

// TestHandoffContradictionShown: after the data changed under a note that
// says "candidate-v3 ships", handoff.html flags the sentence where it
// stands and lists it above the note.
func TestHandoffContradictionShown(t *testing.T) {
	t.Parallel()
	data := filepath.Join(shared.tmp, "contradicted-data")
	if err := os.CopyFS(data, os.DirFS(sampleData)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(data, "outputs", "baseline-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "outputs", "candidate-v3.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := buildSite(data, filepath.Join(shared.tmp, "contradicted-site"))
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			tb := openSized(t, s, "handoff.html", vp, "light")
			type flag struct {
				Text    string  `json:"text"`
				Visible bool    `json:"visible"`
				Top     float64 `json:"top"`
			}
			got, err := eval[struct {
				Flags   []flag  `json:"flags"`
				Summary flag    `json:"summary"`
				Note    float64 `json:"note"`
			}](tb, `(() => {
				const box = el => { const r = el.getBoundingClientRect(); return {text: el.textContent.replace(/\s+/g, " ").trim(), visible: r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden", top: r.top}; };
				const s = document.querySelector(".contradictions");
				return {flags: [...document.querySelectorAll("p.contradiction")].map(box),
					summary: s ? box(s) : {text: "", visible: false, top: 0},
					note: document.querySelector(".hand-written").getBoundingClientRect().top};
			})()`)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range got.Flags {
				if strings.Contains(f.Text, "calls candidate-v3 PASS (“ships”), but releasegate computed BLOCK") {
					found = true
					if !f.Visible {
						t.Error("the flag is not visible")
					}
				}
			}
			if !found {
				t.Errorf("no visible flag on candidate-v3; flags: %+v", got.Flags)
			}
			if !got.Summary.Visible || !strings.Contains(got.Summary.Text, "contradicts") || got.Summary.Top > got.Note {
				t.Errorf("the summary of contradictions is missing or below the note: %+v (note at %.0f)", got.Summary, got.Note)
			}
		})
	}
}

// TestNotFoundFindsHomeAtAnyDepth: the host's 404 page, served for a
// missing address at any depth below the project path, leads to the
// site's real overview.
func TestNotFoundFindsHomeAtAnyDepth(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	dir := shared.sampleSite(t)
	srv := httptest.NewServer(siteHandler(dir, true))
	t.Cleanup(srv.Close)
	s := served{dir: dir, base: srv.URL + subPath, inScope: sameOrigin(srv.URL)}
	for _, missing := range []string{"nope.html", "snapshots/candidate-v2/ER-999.html", "a/b/c/d/e.html", "cases/x/y/z"} {
		t.Run(missing, func(t *testing.T) {
			tb := openTab(t, browser, s.inScope).withTimeout(t, pageTimeout)
			if status, err := tb.open(s.url(missing)); err != nil || status != 404 {
				t.Fatalf("status %d, %v; want the host's 404", status, err)
			}
			// The probe for a folder without a marker takes requests; the
			// script marks the list when it has found the top.
			links, err := eval[map[string]string](tb, `new Promise(done => {
				const list = document.querySelector(".not-found-pages");
				const read = () => {
					const m = {};
					list.querySelectorAll("a").forEach(a => m[a.textContent] = a.href);
					done(m);
				};
				const start = Date.now();
				const wait = () => list.hasAttribute("data-top") || Date.now() - start > 10000 ? read() : setTimeout(wait, 50);
				wait();
			})`)
			if err != nil {
				t.Fatal(err)
			}
			for text, want := range map[string]string{"Release overview": "index.html", "Policy": "policy.html", "Release report": "report.html", "Snapshot candidate-v3": "snapshots/candidate-v3.html"} {
				if links[text] != s.url(want) {
					t.Errorf("%q leads to %q, want %q", text, links[text], s.url(want))
				}
			}
			// Follow the link home.
			if status, err := tb.open(links["Release overview"]); err != nil || status != 200 {
				t.Fatalf("home: status %d, %v", status, err)
			}
			title, err := eval[string](tb, `document.title + (document.querySelector("#verdict") ? " with a verdict" : "")`)
			if err != nil || title != "Release overview · releasegate with a verdict" {
				t.Errorf("home is %q (%v)", title, err)
			}
			for _, p := range tb.log.snapshot().problems() {
				if !strings.Contains(p, "404") {
					t.Error(p)
				}
			}
		})
	}
}

// manySnapshots makes a data folder of the sample's first four cases and
// n nightly snapshots that take turns at passing, being slow and
// failing, with labels of real length.
func manySnapshots(dir string, n int) error {
	for _, f := range []string{"POLICY.md", "case.schema.json", "gate.json"} {
		b, err := os.ReadFile(filepath.Join(sampleData, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	lines := func(file string, keep int) ([]map[string]any, error) {
		b, err := os.ReadFile(filepath.Join(sampleData, file))
		if err != nil {
			return nil, err
		}
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[:keep] {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	cases, err := lines("cases.jsonl", 4)
	if err != nil {
		return err
	}
	good, err := lines("outputs/candidate-v3.jsonl", 4)
	if err != nil {
		return err
	}
	bad, err := lines("outputs/baseline-v1.jsonl", 4)
	if err != nil {
		return err
	}
	write := func(path string, rows []map[string]any) error {
		var b strings.Builder
		for _, r := range rows {
			j, err := json.Marshal(r)
			if err != nil {
				return err
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		return os.WriteFile(path, []byte(b.String()), 0o644)
	}
	if err := write(filepath.Join(dir, "cases.jsonl"), cases); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		return err
	}
	for i := range n {
		rows := good
		if i%7 == 3 {
			rows = bad
		}
		out := make([]map[string]any, len(rows))
		for j, r := range rows {
			c := map[string]any{}
			for k, v := range r {
				c[k] = v
			}
			c["latency_ms"] = 400 + (i*37+j*101)%1800
			if i%11 == 5 {
				c["latency_ms"] = 4000 + j
			}
			out[j] = c
		}
		label := fmt.Sprintf("nightly-2026-%03d-expense-agent-candidate-run", i+1)
		if err := write(filepath.Join(dir, "outputs", label+".jsonl"), out); err != nil {
			return err
		}
	}
	return nil
}

var yearSite = sync.OnceValues(func() (string, error) {
	data := filepath.Join(shared.tmp, "year-data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return "", err
	}
	if err := manySnapshots(data, 365); err != nil {
		return "", err
	}
	return buildSite(data, filepath.Join(shared.tmp, "year-site"))
})

// TestYearOfSnapshotsOverviewFitsOneScreen: with 365 snapshots the
// overview still opens with the verdict and the whole trend chart in the
// first screen of a 1280x900 window, and no page is wider than the
// window at any viewport.
func TestYearOfSnapshotsOverviewFitsOneScreen(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dir, err := yearSite()
	if err != nil {
		t.Fatal(err)
	}
	s := serveHTTP(t, dir)
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			tb := openSized(t, s, "index.html", vp, "light")
			got, err := eval[struct {
				Verdict string    `json:"verdict"`
				Bottoms []float64 `json:"bottoms"`
				Drawn   []bool    `json:"drawn"`
				Scroll  int64     `json:"scroll"`
			}](tb, `(() => ({
				verdict: document.querySelector("#verdict .verdict-sentence").textContent.replace(/\s+/g, " ").trim(),
				bottoms: ["trend_pass_rate", "trend_p95", "trend_cost"].map(id => document.getElementById(id).getBoundingClientRect().bottom),
				drawn: ["trend_pass_rate", "trend_p95", "trend_cost"].map(id => !!document.getElementById(id).querySelector("canvas")),
				scroll: document.documentElement.scrollWidth,
			}))()`)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got.Verdict, "nightly-2026-365-expense-agent-candidate-run") || !strings.Contains(got.Verdict, "the latest of 365 snapshots") {
				t.Errorf("verdict %q does not name the latest of 365", got.Verdict)
			}
			for i, d := range got.Drawn {
				if !d {
					t.Errorf("trend chart %d is not drawn", i)
				}
			}
			if vp.width == 1280 {
				for i, b := range got.Bottoms {
					if b > float64(vp.height) {
						t.Errorf("trend chart %d ends at %.0f px, below the first screen of %d px", i, b, vp.height)
					}
				}
			}
			if got.Scroll > vp.width {
				t.Errorf("the page is %d px wide in a %d px window", got.Scroll, vp.width)
			}
			if dir := os.Getenv("RELEASEGATE_SCREENSHOTS"); dir != "" {
				shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "index-365-snapshots-"+vp.name+".png"), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestOverviewScreenshots saves what a reader sees in the first screen of
// the overview, handoff and policy pages at every viewport, light and
// dark, into $RELEASEGATE_SCREENSHOTS (or a new temporary folder). It
// checks what a machine can: each shot has the viewport's size. Without
// $RELEASEGATE_SCREENSHOTS it shoots the handoff page only.
func TestOverviewScreenshots(t *testing.T) {
	t.Parallel()
	s := serveHTTP(t, shared.sampleSite(t))
	dir := screenshotDir(t)
	pages := []string{"index.html", "handoff.html", "policy.html"}
	if !allScreenshots() {
		pages = pages[1:2]
	}
	t.Logf("screenshots in %s", dir)
	for _, rel := range pages {
		for _, vp := range viewports {
			for _, scheme := range []string{"light", "dark"} {
				t.Run(rel+"/"+vp.name+"/"+scheme, func(t *testing.T) {
					tb := openSized(t, s, rel, vp, scheme)
					shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
					if err != nil {
						t.Fatal(err)
					}
					img, err := png.Decode(bytes.NewReader(shot))
					if err != nil {
						t.Fatal(err)
					}
					if b := img.Bounds(); int64(b.Dx()) != vp.width || int64(b.Dy()) != vp.height {
						t.Errorf("shot is %dx%d, want the viewport %dx%d", b.Dx(), b.Dy(), vp.width, vp.height)
					}
					name := strings.TrimSuffix(rel, ".html") + "-" + vp.name + "-" + scheme + ".png"
					if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestPrintedPages: printed, the overview and a drilldown keep the footer
// with its provenance, drop the header, print the targets of links to
// files, and the overview's folded history is unfolded. The PDF of each
// is saved beside the screenshots.
func TestPrintedPages(t *testing.T) {
	t.Parallel()
	s := serveHTTP(t, shared.sampleSite(t))
	dir := screenshotDir(t)
	for _, rel := range []string{"index.html", "snapshots/candidate-v2/ER-007.html"} {
		t.Run(rel, func(t *testing.T) {
			tb := openSized(t, s, rel, viewports[0], "light")
			pdf, err := chromedp.Call(tb.ctx, page.PrintToPDF, page.PrintToPDFParams{})
			if err != nil {
				t.Fatal(err)
			}
			data := pdf.Data // JSON carries it in base64, decoded already
			pages := bytes.Count(data, []byte("/Type /Page\n")) + bytes.Count(data, []byte("/Type /Page>")) + bytes.Count(data, []byte("/Type /Page/"))
			t.Logf("%s prints on %d pages (%d bytes)", rel, pages, len(data))
			name := strings.NewReplacer("/", "_", ".html", "").Replace(rel) + "-print.pdf"
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
				t.Fatal(err)
			}
			got, err := eval[struct {
				Header, Footer, Provenance bool
				FileTarget                 string
				HistoryOpen                bool
			}](tb, `(() => {
				const shown = sel => { const el = document.querySelector(sel); return !!el && getComputedStyle(el).display !== "none" && el.getBoundingClientRect().height > 0; };
				const file = document.querySelector('main a[href$=".json"], main a[href$=".md"]');
				const d = document.querySelector("details.history");
				return {Header: shown(".site-header"), Footer: shown(".site-footer"), Provenance: shown(".site-footer .provenance"),
					FileTarget: file ? getComputedStyle(file, "::after").content : "none",
					HistoryOpen: !d || d.open};
			})()`)
			if err != nil {
				t.Fatal(err)
			}
			if got.Header {
				t.Error("the header is printed")
			}
			if !got.Footer || !got.Provenance {
				t.Errorf("footer printed %v, provenance printed %v", got.Footer, got.Provenance)
			}
			if rel == "index.html" {
				if !strings.Contains(got.FileTarget, "attr(href)") && !strings.Contains(got.FileTarget, ".json") && !strings.Contains(got.FileTarget, ".md") {
					t.Errorf("the target of a file link is not printed: ::after content %q", got.FileTarget)
				}
				if !got.HistoryOpen {
					t.Error("the folded history stays folded in print")
				}
			}
		})
	}
}

// TestOverviewPagesAccessible runs axe-core on the overview family at the
// laptop and the phone size, light and dark, one page at a time with time
// to spare on a busy machine. Only serious and critical violations fail.
func TestOverviewPagesAccessible(t *testing.T) {
	t.Parallel()
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	s := serveHTTP(t, shared.sampleSite(t))
	for _, vp := range laptopAndPhone {
		for _, rel := range overviewPages {
			t.Run(vp.name+"/"+rel, func(t *testing.T) {
				tb := openTab(t, shared.needBrowser(t), s.inScope).withTimeout(t, 4*pageTimeout)
				if err := atViewport(vp)(tb); err != nil {
					t.Fatal(err)
				}
				if err := colorScheme("light")(tb); err != nil {
					t.Fatal(err)
				}
				if _, err := tb.open(s.url(rel)); err != nil {
					t.Fatal(err)
				}
				got, err := axeProbe(tb)
				if err != nil {
					t.Fatal(err)
				}
				for scheme, vs := range map[string][]axeViolation{"light": got.Light, "dark": got.Dark} {
					for _, v := range vs {
						if v.blocking() {
							t.Errorf("%s: %s", scheme, v)
						}
					}
				}
			})
		}
	}
}

// TestBundleFooterNamesTheBundle: opened from an unpacked bundle, every
// page's footer names the bundle and how to verify it; a plain build's
// footer does not.
func TestBundleFooterNamesTheBundle(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	tmp := t.TempDir()
	created, err := bundle.Create(bundle.Options{Data: sampleData, Dir: tmp})
	if err != nil {
		t.Fatalf("create the bundle: %v", err)
	}
	unpacked, err := bundle.Extract(created.Path, filepath.Join(tmp, "unpacked"), bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	probe := `(() => { const n = document.querySelector(".bundle-note"); return n && !n.hidden ? n.textContent.replace(/\s+/g, " ").trim() : ""; })()`
	for _, rel := range []string{"index.html", "snapshots/candidate-v2/ER-007.html"} {
		tb := openTab(t, browser, serveFiles(unpacked.Dir, true).inScope).withTimeout(t, pageTimeout)
		if _, err := tb.open(serveFiles(unpacked.Dir, true).url(rel)); err != nil {
			t.Fatal(err)
		}
		note, err := eval[string](tb, probe)
		if err != nil {
			t.Fatal(err)
		}
		root := created.Root
		if !strings.Contains(note, "bundle "+root) || !strings.Contains(note, "releasegate verify "+root+".zip") {
			t.Errorf("%s: footer note %q does not name the bundle %s and how to verify it", rel, note, root)
		}
	}
	tb := openTab(t, browser, serveFiles(shared.sampleSite(t), false).inScope).withTimeout(t, pageTimeout)
	if _, err := tb.open(serveFiles(shared.sampleSite(t), false).url("index.html")); err != nil {
		t.Fatal(err)
	}
	if note, err := eval[string](tb, probe); err != nil || note != "" {
		t.Errorf("a plain build shows a bundle note %q (%v)", note, err)
	}
}
