//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// pageSafety is what a page of the hostile site shows about injection.
type pageSafety struct {
	// Planted lists elements and attributes that only injected markup
	// makes: event-handler attributes, javascript: URLs, img src=x, frames.
	Planted []string `json:"planted"`
	// Scripts are the page's script elements: the src of external ones,
	// the text of inline ones.
	Scripts []pageScript `json:"scripts"`
	// Text is the text of the page as a reader sees it.
	Text string `json:"text"`
}

type pageScript struct {
	Src  string `json:"src"`
	Text string `json:"text"`
}

const pageSafetyJS = `(() => {
	const planted = [];
	for (const el of document.querySelectorAll("*")) {
		for (const a of el.attributes) {
			if (/^on/i.test(a.name)) planted.push("<" + el.localName + " " + a.name + "=" + JSON.stringify(a.value) + ">");
			if (/^(href|src|action|formaction|xlink:href|data)$/i.test(a.name) && /^\s*javascript:/i.test(a.value))
				planted.push("<" + el.localName + " " + a.name + "=" + JSON.stringify(a.value) + ">");
		}
		if (el.localName === "img" && el.getAttribute("src") === "x") planted.push("<img src=x>");
		if (["iframe", "frame", "object", "embed", "base"].includes(el.localName)) planted.push("<" + el.localName + ">");
	}
	return {
		planted,
		scripts: Array.from(document.scripts, s => ({src: s.src, text: s.src ? "" : s.text})),
		text: document.body ? document.body.innerText : "",
	};
})()`

func safetyProbe(tb *tab) (pageSafety, error) { return eval[pageSafety](tb, pageSafetyJS) }

// TestHostileDataIsInert builds the site from a suite whose free text is
// full of markup and script, opens every page and checks that none of it
// runs or turns into elements, while all of it is shown as text.
func TestHostileDataIsInert(t *testing.T) {
	t.Parallel()
	browser := shared.needBrowser(t)
	s := serveHTTP(t, shared.hostileSite(t))
	views := crawl(browser, s, nil, safetyProbe)
	forEachPage(t, views, func(t *testing.T, v *pageView[pageSafety]) {
		for _, d := range v.Log.Dialogs {
			t.Errorf("a dialog opened: %s", d)
		}
		// A payload that breaks out of a script shows up as a syntax error.
		for _, p := range v.Log.problems() {
			t.Errorf("%s", p)
		}
		for _, p := range v.Probe.Planted {
			t.Errorf("injected markup in the DOM: %s", p)
		}
		for _, sc := range v.Probe.Scripts {
			if sc.Src != "" {
				if _, ok := s.rel(sc.Src); !ok {
					t.Errorf("script from outside the site: %s", sc.Src)
				}
				continue
			}
			if code := codeOutsideStrings(sc.Text); strings.Contains(code, "alert(") {
				t.Errorf("inline script runs injected code: %.300s", sc.Text)
			}
		}
	})
	t.Run("payloads shown as text", func(t *testing.T) {
		var text strings.Builder
		for _, v := range views {
			text.WriteString(v.Probe.Text)
		}
		for _, p := range payloads {
			if !strings.Contains(text.String(), p) {
				t.Errorf("no page shows %q as text: was it dropped instead of escaped?", p)
			}
		}
	})
	t.Run("links", func(t *testing.T) {
		for _, p := range brokenLinks(s, views) {
			t.Error(p)
		}
	})
}

// codeOutsideStrings returns JavaScript source with the contents of its
// string and template literals and its comments removed, so that a payload
// that is merely data in a literal does not look like code. It is a lexer
// for the plain scripts the site writes (chart options are JSON), not for
// all of JavaScript: a regular expression literal is read as code.
func codeOutsideStrings(src string) string {
	var out strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			out.WriteByte(c)
			for i++; i < len(src) && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			out.WriteByte(c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			out.WriteByte('\n')
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = len(src)
			} else {
				i += end + 3
			}
			out.WriteByte(' ')
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}

func TestCodeOutsideStrings(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"plain code", `alert(1)`, `alert(1)`},
		{"double quotes", `let a = "alert(1)";`, `let a = "";`},
		{"single quotes", `f('x</script>')`, `f('')`},
		{"template", "`${alert(1)}`", "``"},
		{"escaped quote", `"a\"alert(1)" + b`, `"" + b`},
		{"line comment", "x // alert(1)\ny", "x \ny"},
		{"block comment", "x /* alert(1) */ y", "x   y"},
		{"code after string", `{"t":"x"};alert(1)`, `{"":""};alert(1)`},
		{"unterminated", `"abc`, `""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := codeOutsideStrings(tt.src); got != tt.want {
				t.Errorf("codeOutsideStrings(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func FuzzCodeOutsideStrings(f *testing.F) {
	for _, s := range []string{`alert(1)`, `"a\"b"`, "`x`", "/* c */", "// c\n", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		got := codeOutsideStrings(src)
		// Each input byte yields at most one output byte, plus the quote
		// that closes an unterminated literal.
		if len(got) > len(src)+1 {
			t.Errorf("output %q longer than input %q", got, src)
		}
		if strings.Contains(src, "alert(") && !strings.ContainsAny(src, "\"'`/") && !strings.Contains(got, "alert(") {
			t.Errorf("code %q lost its call", src)
		}
	})
}
