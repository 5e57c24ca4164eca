//go:build e2e

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
const runAxeJS = `axe.run(document, {resultTypes: ["violations"]}).then(` + violationsJS + `)`

// runColourRulesJS runs only the rules whose outcome a colour scheme can
// change. Switching the scheme changes colours and nothing else, so the
// other rules would repeat the light run's verdicts at twice the cost.
const runColourRulesJS = `axe.run(document, {resultTypes: ["violations"], runOnly: {type: "rule", values: ["color-contrast", "link-in-text-block"]}}).then(` + violationsJS + `)`

const violationsJS = `r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	nodes: v.nodes.map(n => ({target: n.target.join(" "), summary: n.failureSummary || ""})),
}))`

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

// schemeViolations are the violations of one page in each colour scheme.
type schemeViolations struct {
	Light, Dark []axeViolation
}

// axeProbe injects axe-core into the page and runs it in the light colour
// scheme, then switches the emulated scheme to dark and runs the colour
// rules again. The switch is what a reader's system setting does to an
// open page; it saves a second load of every page.
func axeProbe(tb *tab) (schemeViolations, error) {
	var got schemeViolations
	src, err := axeSource()
	if err != nil {
		return got, err
	}
	if err := chromedp.Do(tb.ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
		return got, fmt.Errorf("inject axe-core: %w", err)
	}
	if got.Light, err = eval[[]axeViolation](tb, runAxeJS); err != nil {
		return got, fmt.Errorf("axe, light: %w", err)
	}
	if err := colorScheme("dark")(tb); err != nil {
		return got, err
	}
	if err := tb.settle(); err != nil {
		return got, err
	}
	if got.Dark, err = eval[[]axeViolation](tb, runColourRulesJS); err != nil {
		return got, fmt.Errorf("axe, dark: %w", err)
	}
	return got, nil
}

// TestAccessibility checks what axe-core found on every page of the
// sample site, in the light and the dark colour scheme: colour contrast,
// names of links, images and form fields, landmarks, headings and the
// rest. Only serious and critical violations fail.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	shared.needFile(t, "axe-core (npm axe-core)", axeScript)
	c := shared.sampleOverHTTP(t)
	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			forEachPage(t, c.views, func(t *testing.T, v *pageView[sampleFindings]) {
				if v.Probe.Axe == nil {
					t.Fatal("axe-core did not run on this page")
				}
				found := v.Probe.Axe.Light
				if scheme == "dark" {
					found = v.Probe.Axe.Dark
				}
				for _, viol := range found {
					if viol.blocking() {
						t.Errorf("%s", viol)
					}
				}
			})
		})
	}
}
