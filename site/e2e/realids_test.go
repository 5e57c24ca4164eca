//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/releasegate/releasegate/internal/pagename"
	"github.com/releasegate/releasegate/site"
)

// Sites of a real suite (docs/real-data.md): ids of any text, one of
// them τ²-bench's 214 characters, no decisions, contains, trials.

// realIDs are the ids of the real suite; the first is the longest.
var realIDs = []string{
	"[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]",
	"[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]",
	"ER-1", "er-1", "\u00e9", "e\u0301",
	"<b>bold?</b> & #1",
	"x~y#z?q=1&r=%2e",
	"漢字のケース",
	"safe-id",
}

// writeRealData writes the real suite's data folder: two snapshots of
// two trials, in which some cases fail a trial.
func writeRealData(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		return err
	}
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	var cases strings.Builder
	for i, id := range realIDs {
		fmt.Fprintf(&cases, `{"case_id": %s, "title": "Case %d of the real suite", "severity": "major", "input": {"ticket": "case %d"}, "expected": {"tool_match": "contains", "tool_calls": [{"name": "toggle_data", "arguments": {"on": true}}, {"name": "set_modes", "arguments": {"modes": {"$unordered": ["4g", "5g"]}}}], "forbidden_tools": ["reset_device"]}}`+"\n", q(id), i, i)
	}
	files := map[string]string{
		"case.schema.json": `{"type": "object"}`,
		"gate.json":        `{"min_pass_rate": 0.5, "max_critical_failures": 0, "max_p95_latency_ms": 3000, "max_avg_cost_usd": null}`,
		"cases.jsonl":      cases.String(),
	}
	for _, label := range []string{"run-1", "run-2"} {
		var out strings.Builder
		for trial := 1; trial <= 2; trial++ {
			for i, id := range realIDs {
				on := "true"
				if label == "run-2" && (i+trial)%3 == 0 {
					on = "false"
				}
				fmt.Fprintf(&out, `{"case_id": %s, "trial": %d, "tool_calls": [{"id": "c1", "function": "check_status_bar", "arguments": {}, "type": "function"}, {"id": "c2", "function": "set_modes", "arguments": {"modes": ["5g", "4g"]}, "type": "function"}, {"id": "c3", "function": "toggle_data", "arguments": {"on": %s}, "type": "function"}], "latency_ms": %d, "cost_usd": null}`+"\n", q(id), trial, on, 400+37*i)
			}
		}
		files["outputs/"+label+".jsonl"] = out.String()
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// realSites builds the real suite's site twice: a page per result, and
// results grouped on shared pages.
var realSites = sync.OnceValues(func() ([2]string, error) {
	data := filepath.Join(shared.tmp, "real-data")
	if err := writeRealData(data); err != nil {
		return [2]string{}, err
	}
	var out [2]string
	for i, groupAbove := range []int{0, 1} {
		out[i] = filepath.Join(shared.tmp, fmt.Sprintf("real-site-%d", i))
		if _, err := site.Build(data, out[i], site.BuildOptions{GroupAbove: groupAbove}); err != nil {
			return out, err
		}
	}
	return out, nil
})

// realFitProbe reports what a long id breaks: the page's sideways
// scroll, and each heading, case-table id cell or case link wider than
// the viewport. It also lists every link on the page, scripts' included.
const realFitProbe = `(() => {
	const out = [];
	const vw = document.documentElement.clientWidth;
	const doc = document.documentElement;
	if (doc.scrollWidth > vw + 0.5) out.push("the page scrolls sideways: " + doc.scrollWidth + " > " + vw);
	document.querySelectorAll("h1, h2, .breadcrumbs, table.cases th[scope=row], .case-steps a, .case-list a").forEach(el => {
		const r = el.getBoundingClientRect();
		if (r.width === 0) return;
		if (r.width > vw + 0.5) out.push(el.tagName.toLowerCase() + " " + JSON.stringify(el.textContent.trim().slice(0, 40)) + " is " + Math.round(r.width) + " px wide in a " + vw + " px page");
	});
	const links = Array.from(document.querySelectorAll("a[href]"), a => a.href);
	return {problems: out, links: links};
})()`

type realFit struct {
	Problems []string `json:"problems"`
	Links    []string `json:"links"`
}

// TestRealIDsInTheBrowser opens the pages that show a real suite's ids at
// laptop and phone widths: no page scrolls sideways for a 214-character
// id, no script fails, and every link the pages hold once their scripts
// ran (the case table, the compare page, the cases matrix) leads to a
// file of the site and, with a fragment, to an element of it.
func TestRealIDsInTheBrowser(t *testing.T) {
	t.Parallel()
	shared.needBrowser(t)
	dirs, err := realSites()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(realIDs))
	copy(ids, realIDs)
	stems := pagename.Stems(ids)
	for k, dir := range dirs {
		s := serveHTTP(t, dir)
		pages := []string{"index.html", "snapshots/run-2.html", "compare.html#from=run-1&to=run-2", "cases.html"}
		if k == 0 {
			pages = append(pages, "snapshots/run-2/"+stems[0]+".html", "cases/"+stems[0]+".html", "snapshots/run-2/"+stems[6]+".html")
		} else {
			pages = append(pages, "snapshots/run-2/p0001.html", "cases/p0001.html")
		}
		name := [2]string{"own pages", "grouped"}[k]
		t.Run(name, func(t *testing.T) {
			for _, vp := range laptopAndPhone {
				for _, rel := range pages {
					tb := openAt(t, s, vp, "", rel)
					switch {
					case strings.HasPrefix(rel, "compare.html"):
						waitFor(t, tb, `!!document.querySelector("#compare-result .case-set")`, "the comparison")
					case rel == "cases.html":
						waitFor(t, tb, `document.querySelectorAll("#matrix-table tbody tr").length > 0`, "the cases matrix")
					}
					if p := tb.log.snapshot().problems(); len(p) > 0 {
						t.Errorf("%s at %s: %s", rel, vp.name, strings.Join(p, "; "))
					}
					got, err := eval[realFit](tb, realFitProbe)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range got.Problems {
						t.Errorf("%s at %s: %s", rel, vp.name, p)
					}
					for _, link := range got.Links {
						checkRealLink(t, s, rel, link)
					}
					if os.Getenv("RELEASEGATE_SCREENSHOTS") != "" {
						shot, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
						if err != nil {
							t.Fatal(err)
						}
						file := fmt.Sprintf("real-%d-%s-%s.png", k, strings.NewReplacer("/", "_", "#", "_", "&", "_", "=", "_").Replace(rel), vp.name)
						if err := os.WriteFile(filepath.Join(screenshotDir(t), file), shot, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if vp.width == 1280 && fileExists(axeScript) {
						found, err := axeProbe(tb)
						if err != nil {
							t.Fatal(err)
						}
						for _, v := range append(found.Light, found.Dark...) {
							if v.blocking() {
								t.Errorf("%s: %s", rel, v)
							}
						}
					}
					tb.close()
				}
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// checkRealLink checks that link, found on page rel of s, leads into the
// site to a file that exists and, with a fragment, holds that id.
func checkRealLink(t *testing.T, s served, rel, link string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Errorf("%s: link %q: %v", rel, link, err)
		return
	}
	frag := u.Fragment
	u.Fragment = ""
	target, ok := s.rel(u.String())
	if !ok {
		t.Errorf("%s: link %q leaves the site", rel, link)
		return
	}
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(target)))
	if err != nil {
		t.Errorf("%s: link %q leads to %s, which the site does not hold", rel, link, target)
		return
	}
	// A fragment with "=" is a view (#result=fail), which scripts read.
	if frag != "" && !strings.Contains(frag, "=") && !strings.Contains(string(b), `id="`+html.EscapeString(frag)+`"`) {
		t.Errorf("%s: link %q: %s has no element with id %q", rel, link, target, frag)
	}
}
