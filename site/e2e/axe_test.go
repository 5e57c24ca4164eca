package e2e

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// axeViolation is one failed axe-core rule on a page.
type axeViolation struct {
	ID     string    `json:"id"`
	Impact string    `json:"impact"`
	Help   string    `json:"help"`
	Nodes  []axeNode `json:"nodes"`
}

type axeNode struct {
	Target  string `json:"target"`
	Summary string `json:"summary"`
}

// blocking tells whether a violation stops people from using the page.
func (v axeViolation) blocking() bool { return v.Impact == "serious" || v.Impact == "critical" }

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n\t%s: %s", n.Target, strings.ReplaceAll(n.Summary, "\n", " "))
	}
	return b.String()
}

// runAxeJS runs every axe-core rule on the document and returns the
// violations with the elements they concern.
const runAxeJS = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
})))`

// axeSource reads axe.min.js once for the whole run.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile(axeScript)
	return string(b), err
})

// colorScheme returns a tab setup that makes the page see the given
// prefers-color-scheme before it loads.
func colorScheme(scheme string) func(tb *tab) error {
	return func(tb *tab) error {
		_, err := chromedp.Call(tb.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}
}

// axeProbe injects axe-core into the page and runs it.
func axeProbe(tb *tab) ([]axeViolation, error) {
	src, err := axeSource()
	if err != nil {
		return nil, err
	}
	if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		return nil, fmt.Errorf("inject axe-core: %w", err)
	}
	return eval[[]axeViolation](tb, runAxeJS)
}

// TestAccessibility runs axe-core on every page of the sample site, in the
// light and the dark colour scheme: colour contrast, names of links,
// images, charts and form fields, landmarks, headings and the rest.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	s := serveHTTP(t, shared.sampleSite(t))
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			views := crawl(browser, s, colorScheme(scheme), axeProbe)
			forEachPage(t, views, func(t *testing.T, v *pageView[[]axeViolation]) {
				for _, viol := range v.Probe {
					if viol.blocking() {
						t.Errorf("%s", viol)
					}
				}
			})
		})
	}
}
