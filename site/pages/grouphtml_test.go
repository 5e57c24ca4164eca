package pages

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
)

// FuzzHTMLEscapers holds the writer's escaping to html/template's in each
// place it writes a value: the text of an element, a quoted attribute
// value and an href.
func FuzzHTMLEscapers(f *testing.F) {
	for _, s := range []string{"", "plain", `<a href="x">'&+</a>`, "\x00", "\xff\xfe\xc3", "é✓\u2028", "javascript:alert(1)",
		"JAVASCRIPT:x", "http://a/b c?d=e&f=g+h#i", "mailto:a@b", "../../p0001.html#ER-1~trial-2", "%", "%4", "%41", "%zz", "a/b:c", ":x", "[]@!$'()*,;="} {
		f.Add(s)
	}
	places := []struct {
		name          string
		before, after string
		put           func(w *htmlWriter, s string)
	}{
		{"text", "<p>", "</p>", (*htmlWriter).text},
		{"attribute", `<p class="x-`, `">`, (*htmlWriter).attr},
		{"aria attribute", `<p aria-label="`, `">`, (*htmlWriter).attr},
		{"href", `<a href="`, `">`, (*htmlWriter).url},
	}
	tmpls := make([]*template.Template, len(places))
	for i, p := range places {
		tmpls[i] = template.Must(template.New(p.name).Parse(p.before + "{{.}}" + p.after))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i, p := range places {
			var want strings.Builder
			if err := tmpls[i].Execute(&want, s); err != nil {
				t.Fatal(err)
			}
			w := &htmlWriter{new(bytes.Buffer)}
			p.put(w, s)
			if got := p.before + w.String() + p.after; got != want.String() {
				t.Fatalf("%s of %q: written %q, html/template %q", p.name, s, got, want.String())
			}
		}
	})
}

// FuzzRawText holds the writer's text of a raw output or a case input to
// that of RawText and InputText, which the templates placed.
func FuzzRawText(f *testing.F) {
	for _, s := range []string{"", `{"case_id": "ER-1", "decision": "<b>&amp;</b>"}`, "\x00<>&\"'+", "\xff\xfe", "a&&b<<c>>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := &htmlWriter{new(bytes.Buffer)}
		w.elementText(s)
		d := &DrilldownPage{Raw: s, Input: s}
		if got, want := w.String(), string(d.RawText()); got != want || want != string(d.InputText()) {
			t.Fatalf("%q: written %q, RawText %q", s, got, want)
		}
	})
}
