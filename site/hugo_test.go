package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

// The speed criterion compares a build with Hugo building an equivalent
// site from the same release: a page per case of each snapshot, a page
// per case history, a section page per snapshot listing every case, the
// overview, and the policy, handoff and release report rendered from
// their Markdown. The pages share a base layout (head, site and snapshot
// navigation, footer with provenance), the drilldowns carry the same
// tables, lists and JSON blocks as ours, and Hugo copies the same assets
// and results files. The content files are written before the clock
// starts, as our data folder is; each run writes to a fresh folder.

// hugoSite writes the Hugo source of the release in, read from the data
// folder data, at dir: config, layouts, content and static files.
func hugoSite(in *pages.Input, data, dir string) error {
	v, err := render.NewView(in)
	if err != nil {
		return err
	}
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for name, text := range hugoLayouts {
		files["layouts/"+name] = []byte(text)
	}
	config, err := hugoConfig(v)
	if err != nil {
		return err
	}
	files["config.json"] = config
	for _, a := range r.Assets {
		files["static/"+a.Path] = a.Data
	}
	rel := in.Release
	for _, s := range rel.Snapshots {
		files["static/"+pages.ResultsPath(s.Label())] = s.JSON()
	}
	policy, err := os.ReadFile(filepath.Join(data, "POLICY.md"))
	if err != nil {
		return err
	}
	files["content/policy.md"] = hugoPage(map[string]any{"title": "Policy " + v.Info.PolicyVersion}, string(policy))
	files["content/handoff.md"] = hugoPage(map[string]any{"title": "Handoff"}, string(in.Handoff))
	files["content/report.md"] = hugoPage(map[string]any{"title": "Release report"}, string(rel.Report()))
	files["content/_index.md"] = hugoPage(map[string]any{"title": "Release overview"}, "")
	files["content/snapshots/_index.md"] = hugoPage(map[string]any{"title": "Compare snapshots"}, "")
	files["content/cases/_index.md"] = hugoPage(map[string]any{"title": "Cases"}, "")
	for k, s := range rel.Snapshots {
		page, err := v.SnapshotPage(s)
		if err != nil {
			return err
		}
		var gates, measures []map[string]any
		for _, m := range page.Card.Measures {
			measures = append(measures, map[string]any{"heading": m.Heading, "value": m.Value})
		}
		for _, g := range page.Gates {
			gates = append(gates, map[string]any{"name": g.Name, "observed": g.Observed, "threshold": g.Threshold, "margin": g.Margin, "verdict": string(g.Verdict.HTML)})
		}
		files["content/snapshots/"+s.Label()+"/_index.md"] = hugoPage(map[string]any{
			"title": "Snapshot " + s.Label(), "weight": k + 1, "label": s.Label(),
			"badge": string(page.Card.Badge.HTML), "reason": page.Card.Reason, "counts": page.Counts,
			"measures": measures, "gates": gates,
		}, "")
		for i := range rel.Suite.Cases {
			p, err := v.DrilldownPage(s, i)
			if err != nil {
				return err
			}
			files["content/snapshots/"+s.Label()+"/"+rel.Suite.Cases[i].ID+".md"] = hugoDrilldown(p, i, pages.FailureCodes(s.Result.Cases[i].Failures))
		}
	}
	for i := range rel.Suite.Cases {
		files["content/cases/"+rel.Suite.Cases[i].ID+".md"] = hugoHistory(v.HistoryPage(i), i)
	}
	for name, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// hugoConfig is the site's config.json: the pages only (no feeds,
// sitemap or taxonomies, which our site has no counterpart of), at the
// same paths as ours, with relative links, and what every page's frame
// shows.
func hugoConfig(v *render.View) ([]byte, error) {
	var snaps []map[string]any
	for _, s := range v.In.Release.Snapshots {
		snaps = append(snaps, map[string]any{"label": s.Label(), "decision": string(s.Result.Decision)})
	}
	l := v.Info.FooterData()
	return json.MarshalIndent(map[string]any{
		"baseURL":                    "/",
		"title":                      "releasegate",
		"relativeURLs":               true,
		"uglyURLs":                   true,
		"disablePathToLower":         true,
		"disableHugoGeneratorInject": true,
		"disableKinds":               []string{"taxonomy", "term", "RSS", "sitemap", "robotsTXT"},
		"params": map[string]any{
			"csp":           render.ContentSecurityPolicy,
			"footer":        l.Footer,
			"version":       l.Provenance.Version,
			"policyversion": l.Provenance.PolicyVersion,
			"inputsshort":   l.Provenance.InputsShort,
			"inputstitle":   l.Provenance.InputsTitle,
			"snapshots":     snaps,
			"hashandoff":    v.Info.HasHandoff,
		},
	}, "", " ")
}

// hugoPage is a content file: JSON front matter, then Markdown.
func hugoPage(front map[string]any, body string) []byte {
	b, err := json.MarshalIndent(front, "", " ")
	if err != nil {
		panic(err) // maps of strings, numbers and slices always encode
	}
	return append(append(b, "\n\n"...), body...)
}

func hugoLink(l *pages.NavLink) map[string]any {
	if l == nil {
		return nil
	}
	return map[string]any{"href": l.Href, "text": l.Text}
}

func hugoLines(c *pages.CallView) []string {
	var lines []string
	for _, l := range c.Lines {
		lines = append(lines, l.Text)
	}
	return lines
}

func hugoCitations(rows []pages.CitationRow) []map[string]any {
	var out []map[string]any
	for _, c := range rows {
		out = append(out, map[string]any{"id": c.ID, "href": c.Href, "class": c.Class, "state": c.State, "icon": c.Icon, "successor": hugoLink(c.Successor)})
	}
	return out
}

// hugoDrilldown is the drilldown p as a content file: the failures are
// its Markdown, the rest is front matter the layout renders.
func hugoDrilldown(p *pages.DrilldownPage, i int, codes string) []byte {
	var calls []map[string]any
	for _, pair := range p.Calls.Pairs {
		c := map[string]any{"index": pair.Expected.Index, "name": pair.Expected.Name, "note": pair.Expected.Note,
			"lines": hugoLines(&pair.Expected), "verdict": string(pair.Verdict.HTML)}
		if a := pair.Actual; a != nil {
			c["actual"] = map[string]any{"index": a.Index, "name": a.Name, "note": a.Note, "lines": hugoLines(a)}
		}
		calls = append(calls, c)
	}
	var forbidden []map[string]any
	for _, f := range p.Forbidden {
		forbidden = append(forbidden, map[string]any{"tool": f.Tool, "verdict": string(f.Verdict.HTML), "text": f.Text})
	}
	var elsewhere []map[string]any
	for _, l := range p.Elsewhere {
		elsewhere = append(elsewhere, hugoLink(&l))
	}
	var body strings.Builder
	for _, f := range p.Failures {
		fmt.Fprintf(&body, "- `%s` %s\n", f.Code, f.Detail)
	}
	return hugoPage(map[string]any{
		"title": p.ID + " in " + p.Label, "weight": i + 1,
		"id": p.ID, "label": p.Label, "casetitle": p.CaseTitle, "severity": p.Severity, "verdict": string(p.Verdict.HTML),
		"history": "/" + pages.HistoryPath(p.ID), "elsewhere": elsewhere, "nextfailing": hugoLink(p.NextFailing),
		"hasoutput": p.HasOutput, "expected": p.ExpectedDecision, "actual": p.ActualDecision, "decisionverdict": string(p.DecisionVerdict.HTML),
		"mode": p.Calls.Mode, "modetext": p.Calls.ModeText, "calls": calls, "mismatches": p.Calls.Mismatches,
		"forbidden": forbidden, "expectedcitations": hugoCitations(p.ExpectedCitations), "actualcitations": hugoCitations(p.ActualCitations),
		"latency": p.Latency, "cost": p.Cost, "raw": p.Raw, "rawsource": p.RawSource, "input": p.Input, "codes": codes,
	}, body.String())
}

// hugoHistory is the history page p as a content file.
func hugoHistory(p *pages.HistoryPage, i int) []byte {
	var rows []map[string]any
	for _, r := range p.Rows {
		rows = append(rows, map[string]any{"label": r.Label, "href": r.Href, "snapshot": r.SnapshotHref, "verdict": string(r.Verdict.HTML),
			"decision": r.Decision, "codes": r.Codes, "latency": r.Latency, "cost": r.Cost})
	}
	return hugoPage(map[string]any{
		"title": "Case " + p.ID, "weight": i + 1, "id": p.ID, "casetitle": p.CaseTitle, "severity": p.Severity,
		"expected": p.ExpectedDecision, "citations": hugoCitations(p.ExpectedCitations), "rows": rows,
	}, p.Summary+"\n")
}

// hugoLayouts are the Hugo site's templates, by path below layouts/.
var hugoLayouts = map[string]string{
	"_default/baseof.html": `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{ site.Params.csp }}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{ .Title }} · releasegate</title>
<link rel="icon" href="{{ "assets/favicon.svg" | relURL }}" type="image/svg+xml">
<link rel="stylesheet" href="{{ "assets/site.css" | relURL }}">
<script src="{{ "assets/tables.js" | relURL }}" defer></script>
<script src="{{ "assets/site.js" | relURL }}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
{{ partialCached "header.html" . .Section (.Params.label | default "") }}
<main id="main">
{{ block "main" . }}{{ end }}
</main>
{{ partialCached "footer.html" . }}
</body>
</html>
`,
	"partials/header.html": `<header class="site-header">
<nav class="site-nav" aria-label="Site">
<a class="brand" href="/index.html">releasegate</a>
<ul>
<li><a href="/index.html">Overview</a></li>
<li><a href="/cases.html">Cases</a></li>
<li><a href="/snapshots.html">Compare</a></li>
<li><a href="/policy.html">Policy</a></li>
{{- if site.Params.hashandoff }}
<li><a href="/handoff.html">Handoff</a></li>
{{- end }}
<li><a href="/report.html">Report</a></li>
</ul>
</nav>
<nav class="snapshot-nav" aria-label="Snapshots">
<span class="nav-label">Snapshots</span>
<ul>
{{- $current := .Params.label }}
{{- range site.Params.snapshots }}
<li><a href="/snapshots/{{ .label }}.html"{{ if eq .label $current }} aria-current="true"{{ end }}>{{ .label }}</a></li>
{{- end }}
</ul>
</nav>
</header>
`,
	"partials/footer.html": `<footer class="site-footer">
<p>{{ site.Params.footer }}.</p>
<p class="provenance">Built by releasegate <span class="prov-version">{{ site.Params.version }}</span>{{ with site.Params.policyversion }} under policy <span class="prov-policy">{{ . }}</span>{{ end }}{{ with site.Params.inputsshort }} from inputs <code class="prov-inputs" title="{{ site.Params.inputstitle }}">{{ . }}</code>{{ end }}; every number on this site comes from the results files.</p>
<p class="bundle-note" hidden>This page is part of the bundle <code class="bundle-name"></code>. Check it with <code>releasegate verify <span class="bundle-name"></span>.zip</code>, or run <code>sha256sum -c MANIFEST</code> in its top folder.</p>
</footer>
`,
	"partials/citations.html": `{{- if . }}
<ul class="citations">
{{- range . }}
<li class="citation citation-{{ .class }}">{{ if .href }}<a href="{{ .href }}">{{ .id }}</a>{{ else }}<code>{{ .id }}</code>{{ end }} <span class="citation-state"><span aria-hidden="true">{{ .icon }}</span> {{ .state }}{{ with .successor }} <a href="{{ .href }}">{{ .text }}</a>{{ end }}</span></li>
{{- end }}
</ul>
{{- else }}
<p>None.</p>
{{- end }}`,
	"partials/code.html": `<pre class="json"><code>{{ range . }}<span class="line">{{ . }}</span>
{{ end }}</code></pre>`,
	"snapshots/single.html": `{{ define "main" }}
<div class="page-head">
<p class="breadcrumbs"><a href="/index.html">Overview</a> › <a href="{{ .Parent.RelPermalink }}">{{ .Params.label }}</a> › {{ .Params.id }}</p>
<h1>{{ .Params.id }} in {{ .Params.label }} {{ .Params.verdict | safeHTML }}</h1>
<p class="lead">{{ .Params.casetitle }}</p>
<p>Severity: <strong>{{ .Params.severity }}</strong> · <a href="{{ .Params.history }}">History of {{ .Params.id }} across snapshots</a></p>
{{- with .Params.elsewhere }}
<p>The same case in: {{ range $i, $l := . }}{{ if $i }}, {{ end }}<a href="{{ $l.href }}">{{ $l.text }}</a>{{ end }}</p>
{{- end }}
<nav class="case-steps" aria-label="Cases of {{ .Params.label }}">
<ul>
<li>{{ with .NextInSection }}<a href="{{ .RelPermalink }}" rel="prev">← Previous: {{ .Params.id }}</a>{{ else }}<span>First case</span>{{ end }}</li>
<li>{{ with .PrevInSection }}<a href="{{ .RelPermalink }}" rel="next">Next: {{ .Params.id }} →</a>{{ else }}<span>Last case</span>{{ end }}</li>
<li>{{ with .Params.nextfailing }}<a href="{{ .href }}" class="next-failing">Next failing: {{ .text }} →</a>{{ else }}<span>No other case fails</span>{{ end }}</li>
</ul>
</nav>
</div>
{{- with .Content }}
<section aria-labelledby="failures" class="failures">
<h2 id="failures">Failures</h2>
{{ . }}
</section>
{{- end }}
{{- if not .Params.hasoutput }}
<p class="notice">This snapshot holds no output for {{ .Params.id }}; below is what the case expects.</p>
{{- end }}
<section aria-labelledby="decision">
<h2 id="decision">Decision</h2>
<div class="table-wrap" role="region" aria-labelledby="decision" tabindex="0">
<table class="decision">
<thead><tr><th scope="col">Expected</th><th scope="col">Actual</th><th scope="col">Result</th></tr></thead>
<tbody><tr><td><code>{{ .Params.expected }}</code></td>{{ if .Params.hasoutput }}<td><code>{{ .Params.actual }}</code></td><td>{{ .Params.decisionverdict | safeHTML }}</td>{{ else }}<td>no output</td><td>not judged</td>{{ end }}</tr></tbody>
</table>
</div>
</section>
<section aria-labelledby="tool-calls">
<h2 id="tool-calls">Tool calls</h2>
<p class="call-mode">Match mode <code>{{ .Params.mode }}</code>: {{ .Params.modetext }}.</p>
{{- with .Params.calls }}
<ol class="call-pairs">
{{- range . }}
<li class="call-pair side-by-side">
<div class="side call-expected">
<p class="call-name"><span class="call-role">Expected {{ .index }}</span> <code>{{ .name }}</code> {{ .note }}</p>
{{ partial "code.html" .lines }}
</div>
<div class="side call-actual">
{{- with .actual }}
<p class="call-name"><span class="call-role">Actual {{ .index }}</span> <code>{{ .name }}</code>{{ with .note }} <strong class="call-note">({{ . }})</strong>{{ end }}</p>
{{ partial "code.html" .lines }}
{{- else }}
<p class="call-name call-missing"><span class="call-role">Actual</span> no call was paired with it</p>
{{- end }}
<p class="call-verdict">{{ .verdict | safeHTML }}</p>
</div>
</li>
{{- end }}
</ol>
{{- else }}
<p>No tool call is expected.</p>
{{- end }}
{{- with .Params.mismatches }}
<p class="mismatches-head"><strong>Arguments that differ</strong></p>
<ul class="mismatches">
{{- range . }}
<li><code>{{ . }}</code></li>
{{- end }}
</ul>
{{- end }}
</section>
<section aria-labelledby="forbidden">
<h2 id="forbidden">Forbidden tools</h2>
{{- with .Params.forbidden }}
<ul class="forbidden">
{{- range . }}
<li><code>{{ .tool }}</code>: {{ .verdict | safeHTML }} {{ .text }}</li>
{{- end }}
</ul>
{{- else }}
<p>The case forbids no tool.</p>
{{- end }}
</section>
<section aria-labelledby="citations">
<h2 id="citations">Citations</h2>
<div class="side-by-side">
<div class="side">
<h3>Expected</h3>
{{ partial "citations.html" .Params.expectedcitations }}
</div>
<div class="side">
<h3>Cited by the output</h3>
{{ partial "citations.html" .Params.actualcitations }}
</div>
</div>
</section>
{{- if .Params.hasoutput }}
<section aria-labelledby="performance">
<h2 id="performance">Latency and cost</h2>
<dl class="metrics">
<div><dt>Latency</dt><dd>{{ .Params.latency }}</dd></div>
<div><dt>Cost</dt><dd>{{ .Params.cost }}</dd></div>
</dl>
</section>
<details class="raw-output">
<summary>The output as read: {{ .Params.rawsource }}</summary>
<pre class="json"><code>{{ .Params.raw }}</code></pre>
</details>
{{- end }}
<section aria-labelledby="input">
<h2 id="input">Case input</h2>
<pre class="json"><code>{{ .Params.input }}</code></pre>
</section>
{{ end }}`,
	"snapshots/list.html": `{{ define "main" }}
{{- if eq .Section .File.Dir }}
<h1>{{ .Title }}</h1>
{{- else }}
<div class="page-head">
<h1>{{ .Title }} {{ .Params.badge | safeHTML }}</h1>
<p class="lead">{{ .Params.reason }}</p>
<p>{{ .Params.counts }}{{ range .Params.measures }} · {{ .heading }} {{ .value }}{{ end }}</p>
</div>
<section aria-labelledby="gates">
<h2 id="gates">Gates</h2>
<div class="table-wrap"><table class="gates">
<thead><tr><th scope="col">Gate</th><th scope="col">Observed</th><th scope="col">Threshold</th><th scope="col">Margin</th><th scope="col">Result</th></tr></thead>
<tbody>
{{- range .Params.gates }}
<tr><th scope="row">{{ .name }}</th><td>{{ .observed }}</td><td>{{ .threshold }}</td><td>{{ .margin }}</td><td>{{ .verdict | safeHTML }}</td></tr>
{{- end }}
</tbody></table></div>
</section>
{{- end }}
<section aria-labelledby="cases">
<h2 id="cases">Cases</h2>
<div class="table-wrap"><table class="cases">
<thead><tr><th scope="col">Case</th><th scope="col">Title</th><th scope="col">Severity</th><th scope="col">Result</th><th scope="col">Failure codes</th><th scope="col" class="num">Latency</th><th scope="col" class="num">Cost</th></tr></thead>
<tbody>
{{- range .Pages }}
<tr><th scope="row"><a href="{{ .RelPermalink }}">{{ .Params.id | default .Title }}</a></th><td>{{ .Params.casetitle }}</td><td>{{ .Params.severity }}</td><td>{{ .Params.verdict | safeHTML }}</td><td>{{ .Params.codes }}</td><td class="num">{{ .Params.latency }}</td><td class="num">{{ .Params.cost }}</td></tr>
{{- end }}
</tbody></table></div>
</section>
{{ end }}`,
	"cases/single.html": `{{ define "main" }}
<div class="page-head">
<p class="breadcrumbs"><a href="/index.html">Overview</a> › Case history</p>
<h1>{{ .Params.id }} across snapshots</h1>
<p class="lead">{{ .Params.casetitle }}</p>
{{ .Content }}
</div>
<section aria-labelledby="expects">
<h2 id="expects">What the case expects</h2>
<dl class="metrics">
<div><dt>Severity</dt><dd>{{ .Params.severity }}</dd></div>
<div><dt>Decision</dt><dd><code>{{ .Params.expected }}</code></dd></div>
</dl>
<h3>Citations</h3>
{{ partial "citations.html" .Params.citations }}
</section>
<section aria-labelledby="history">
<h2 id="history">History</h2>
<div class="table-wrap">
<table class="history">
<thead><tr><th scope="col">Snapshot</th><th scope="col">Result</th><th scope="col">Decision</th><th scope="col">Failure codes</th><th scope="col" class="num">Latency</th><th scope="col" class="num">Cost</th><th scope="col">Details</th></tr></thead>
<tbody>
{{- $id := .Params.id }}
{{- range .Params.rows }}
<tr><th scope="row"><a href="{{ .snapshot }}">{{ .label }}</a></th><td>{{ .verdict | safeHTML }}</td><td><code>{{ .decision }}</code></td><td>{{ .codes }}</td><td class="num">{{ .latency }}</td><td class="num">{{ .cost }}</td><td><a href="{{ .href }}">{{ $id }} in {{ .label }}</a></td></tr>
{{- end }}
</tbody>
</table>
</div>
</section>
{{ end }}`,
	"cases/list.html": `{{ define "main" }}
<h1>{{ .Title }}</h1>
<div class="table-wrap"><table class="matrix">
<thead><tr><th scope="col">Case</th><th scope="col">Title</th><th scope="col">Severity</th>{{ range site.Params.snapshots }}<th scope="col">{{ .label }}</th>{{ end }}</tr></thead>
<tbody>
{{- range .Pages }}
<tr><th scope="row"><a href="{{ .RelPermalink }}">{{ .Params.id }}</a></th><td>{{ .Params.casetitle }}</td><td>{{ .Params.severity }}</td>{{ range .Params.rows }}<td><a href="{{ .href }}">{{ .verdict | safeHTML }}</a></td>{{ end }}</tr>
{{- end }}
</tbody></table></div>
{{ end }}`,
	"index.html": `{{ define "main" }}
<h1>{{ .Title }}</h1>
<div class="cards">
{{- range (site.GetPage "/snapshots").Sections }}
<article class="card"><h2><a href="{{ .RelPermalink }}">{{ .Params.label }}</a> {{ .Params.badge | safeHTML }}</h2>
<p>{{ .Params.reason }}</p>
<dl class="metrics">{{ range .Params.measures }}<div><dt>{{ .heading }}</dt><dd>{{ .value }}</dd></div>{{ end }}</dl>
</article>
{{- end }}
</div>
{{ end }}`,
	"_default/single.html": `{{ define "main" }}
<article class="markdown">
<h1>{{ .Title }}</h1>
{{ .Content }}
</article>
{{ end }}`,
	"_default/list.html": `{{ define "main" }}<h1>{{ .Title }}</h1>{{ end }}`,
	"404.html":           `{{ define "main" }}<h1>Page not found</h1><p><a href="/index.html">Go to the release overview</a></p>{{ end }}`,
}

// siteFiles counts the pages (.html files) below dir and their bytes.
func siteFiles(t testing.TB, dir string) (pageList int, size int64) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		pageList++
		size += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pageList, size
}

// runHugo builds the Hugo site at src into the fresh folder dst and
// returns the wall and processor time the process took and its peak
// resident memory in bytes.
func runHugo(src, dst, cache string) (wall, cpu time.Duration, rss int64, err error) {
	cmd := exec.Command("hugo", "--quiet", "--source", src, "--destination", dst, "--cacheDir", cache, "--ignoreCache")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("hugo: %w\n%s", err, stderr.Bytes())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // Linux gives kilobytes
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), rss, nil
}

func hugoVersion(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("hugo"); err != nil {
		t.Skip("hugo is not on PATH")
	}
	out, err := exec.Command("hugo", "version").Output()
	if err != nil {
		t.Fatalf("hugo version: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// checkComparable fails unless the Hugo site has as many pages as ours,
// give or take a few, and is no smaller.
func checkComparable(t testing.TB, ours, hugo string) (ourPages, hugoPages int) {
	t.Helper()
	ourPages, ourSize := siteFiles(t, ours)
	hugoPages, hugoSize := siteFiles(t, hugo)
	if d := hugoPages - ourPages; d < -5 || d > 5 {
		t.Errorf("the Hugo site has %d pages and ours %d: not the same site", hugoPages, ourPages)
	}
	if hugoSize < ourSize*9/10 {
		t.Errorf("the Hugo site's pages hold %d bytes and ours %d: the Hugo site is the smaller", hugoSize, ourSize)
	}
	return ourPages, hugoPages
}

// TestHugoSiteIsComparable builds a small suite both ways and checks
// that the Hugo site has the same pages, links that resolve and the
// drilldown's content.
func TestHugoSiteIsComparable(t *testing.T) {
	version := hugoVersion(t)
	t.Log(version)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeLargeSuite(t, data, 60)
	in, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "hugo")
	if err := hugoSite(in, data, src); err != nil {
		t.Fatal(err)
	}
	hugoOut, ours := filepath.Join(dir, "hugo-public"), filepath.Join(dir, "public")
	if _, _, _, err := runHugo(src, hugoOut, filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(data, ours, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	checkComparable(t, ours, hugoOut)
	page, err := os.ReadFile(filepath.Join(hugoOut, "snapshots", "candidate-v2", "GEN-000007.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<link rel="stylesheet" href="../../assets/site.css">`,
		`<a href="../../snapshots/candidate-v2.html" aria-current="true">candidate-v2</a>`,
		`<li><code>citation</code> missing ER-2026.10 §6.1`,
		`<span class="line">  &#34;claim_id&#34;: &#34;C-2049&#34;,</span>`,
		`<a href="../../snapshots/candidate-v2/GEN-000006.html" rel="prev">`,
		`<a href="../../snapshots/candidate-v2/GEN-000008.html" rel="next">`,
		`<a href="../../policy.html#rule-er-2026-10-6-1">ER-2026.10 §6.1</a>`,
		`Built by releasegate`,
	} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the Hugo drilldown lacks %s", want)
		}
	}
	if _, err := os.Stat(filepath.Join(hugoOut, filepath.FromSlash(pages.EchartsDir), "echarts.min.js")); err != nil {
		t.Errorf("the Hugo site lacks the assets: %v", err)
	}
}

// BenchmarkBuildVersusHugo builds the 10,000-case × 3-snapshot suite
// with Build and its equivalent Hugo site with hugo, alternating which
// goes first, each into a fresh folder, and reports both in pages (.html
// files) per second of wall time and their ratio:
//
//	go test ./site -run '^$' -bench BuildVersusHugo -benchtime 3x
func BenchmarkBuildVersusHugo(b *testing.B) {
	b.Log(hugoVersion(b))
	dir := b.TempDir()
	data := filepath.Join(dir, "data")
	writeLargeSuite(b, data, largeCases)
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	src := filepath.Join(dir, "hugo")
	if err := hugoSite(in, data, src); err != nil {
		b.Fatal(err)
	}
	var (
		ourWall, hugoWall, ourCPU, hugoCPU time.Duration
		ourPages, hugoPages                int
		hugoRSS                            int64
	)
	ours := func(out string) {
		start, cpu := time.Now(), cpuTime()
		if _, err := Build(data, out, BuildOptions{}); err != nil {
			b.Fatal(err)
		}
		ourWall += time.Since(start)
		ourCPU += cpuTime() - cpu
	}
	hugo := func(out string) {
		wall, cpu, rss, err := runHugo(src, out, filepath.Join(dir, "cache"))
		if err != nil {
			b.Fatal(err)
		}
		hugoWall += wall
		hugoCPU += cpu
		hugoRSS = max(hugoRSS, rss)
	}
	n := 0
	for b.Loop() {
		ourOut, hugoOut := filepath.Join(dir, fmt.Sprint("public-", n)), filepath.Join(dir, fmt.Sprint("hugo-public-", n))
		if n%2 == 0 {
			hugo(hugoOut)
			ours(ourOut)
		} else {
			ours(ourOut)
			hugo(hugoOut)
		}
		b.StopTimer()
		ourPages, hugoPages = checkComparable(b, ourOut, hugoOut)
		for _, d := range []string{ourOut, hugoOut, filepath.Join(dir, "cache")} {
			if err := os.RemoveAll(d); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		n++
	}
	ourRate := float64(ourPages*n) / ourWall.Seconds()
	hugoRate := float64(hugoPages*n) / hugoWall.Seconds()
	b.ReportMetric(ourRate, "pages/s")
	b.ReportMetric(hugoRate, "hugo-pages/s")
	b.ReportMetric(ourRate/hugoRate, "×hugo")
	b.ReportMetric(float64(ourPages), "pages")
	b.ReportMetric(float64(hugoPages), "hugo-pages")
	b.ReportMetric(ourCPU.Seconds()/float64(n), "cpu-s/op")
	b.ReportMetric(hugoCPU.Seconds()/float64(n), "hugo-cpu-s/op")
	b.ReportMetric(float64(hugoRSS)/(1<<20), "hugo-peak-RSS-MB")
}
