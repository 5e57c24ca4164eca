package serve

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// problem is one input problem taken apart for the overlay, in the
// parts the command line prints: file:line:column, field, what is wrong,
// and how to fix it.
type problem struct {
	File  string
	Line  int
	Col   int
	Field string
	Msg   string
	Fix   string
}

// Where is the problem's place as the command line prints it:
// "file:line:column", "file:line" or "file"; "" when it has no file.
func (p problem) Where() string {
	switch {
	case p.File == "":
		return ""
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// overlayData is what the overlay shows.
type overlayData struct {
	Problems []problem
	// More counts the problems not shown; Uncounted says there may be
	// more still.
	More      int
	Uncounted bool
	// Stale: the page under the overlay is from the last good build.
	Stale bool
}

// describe takes an error apart: every input problem it holds, each
// naming file, line and field, or the message of any other error.
func describe(err error) overlayData {
	if ins := suite.Problems(err); ins != nil {
		var d overlayData
		for _, in := range ins {
			d.Problems = append(d.Problems, problem{File: in.File, Line: in.Line, Col: in.Col, Field: in.Field, Msg: in.Msg, Fix: in.Fix})
		}
		if many, ok := err.(*suite.InputErrors); ok {
			d.More, d.Uncounted = many.More, many.Uncounted
		}
		return d
	}
	var in *suite.InputError
	if errors.As(err, &in) {
		return overlayData{Problems: []problem{{File: in.File, Line: in.Line, Col: in.Col, Field: in.Field, Msg: in.Msg, Fix: in.Fix}}}
	}
	return overlayData{Problems: []problem{{Msg: err.Error()}}}
}

// overlayTemplate is shown on every served page while the inputs are
// broken. Its style is inline so it needs nothing from the site; html/
// template escapes the message, which quotes the author's input. Each
// problem reads as the command line prints it.
var overlayTemplate = template.Must(template.New("overlay").Parse(`<div id="releasegate-build-error" role="alert" style="position:fixed;left:0;right:0;bottom:0;z-index:2147483647;max-height:60vh;overflow:auto;margin:0;padding:14px 20px;background:#3b0d0c;color:#fff1f0;border-top:4px solid #e5484d;box-shadow:0 -6px 24px rgba(0,0,0,.35);font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;text-align:left">
<p style="margin:0 0 6px;font-weight:bold">{{if .Stale}}The last edit broke the build: this page is from the last good one.{{else}}The site cannot be built yet.{{end}} Fix the file and save; the page reloads by itself.</p>
{{range .Problems}}<p style="margin:0;white-space:pre-wrap;word-break:break-word">{{with .Where}}<strong>{{.}}</strong>{{end}}{{with .Field}} <em>{{.}}</em>{{end}}{{if or .File .Field}}: {{end}}{{.Msg}}{{with .Fix}} — {{.}}{{end}}</p>
{{end}}{{if .Uncounted}}<p style="margin:6px 0 0">… and {{.More}} or more further problems (fix these and save)</p>
{{else if .More}}<p style="margin:6px 0 0">… and {{.More}} more problem{{if gt .More 1}}s{{end}}</p>
{{end}}</div>`))

// overlay renders the overlay for err; stale says whether it covers a
// page of the last good build.
func overlay(err error, stale bool) []byte {
	d := describe(err)
	d.Stale = stale
	var b bytes.Buffer
	if e := overlayTemplate.Execute(&b, d); e != nil {
		// Unreachable: the template only prints strings and numbers.
		return []byte("<pre>" + template.HTMLEscapeString(err.Error()) + "</pre>")
	}
	return b.Bytes()
}

// watchBannerTemplate is shown on every served page while changes to the
// data cannot be seen, so that nobody trusts a page that may be stale.
var watchBannerTemplate = template.Must(template.New("watch").Parse(`<div id="releasegate-watch-lost" role="alert" style="position:fixed;left:0;right:0;top:0;z-index:2147483646;margin:0;padding:10px 20px;background:#4a3200;color:#fff7e0;border-bottom:4px solid #f5a524;font:14px/1.5 system-ui,sans-serif;text-align:left">
<p style="margin:0"><strong>Not watching for changes:</strong> {{.}}. This page may be out of date.</p>
</div>`))

// watchBanner renders the banner for a lost watch.
func watchBanner(problem string) []byte {
	var b bytes.Buffer
	if err := watchBannerTemplate.Execute(&b, problem); err != nil {
		return []byte("<p>" + template.HTMLEscapeString(problem) + "</p>")
	}
	return b.Bytes()
}

// noSitePage is served for every path until a build succeeds; the
// overlay and reload script are injected like on any page.
var noSitePage = []byte(strings.TrimLeft(`
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>releasegate: no site yet</title>
</head>
<body style="font:16px/1.5 system-ui,sans-serif;margin:2rem">
<h1>No site yet</h1>
<p>The data folder has not been built successfully yet.</p>
</body>
</html>
`, "\n"))

// notFoundPage is used when the site has no 404.html of its own.
var notFoundPage = []byte(strings.TrimLeft(`
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found</title>
</head>
<body>
<h1>Not found</h1>
<p><a href="/">Back to the release overview</a></p>
</body>
</html>
`, "\n"))
