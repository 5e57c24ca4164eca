package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/pages"
)

// parts is a pages.Spliced writing fixed text.
type parts string

func (p parts) WriteSpliced(w *bytes.Buffer) { w.WriteString(string(p)) }
func (p parts) SplicedSize() int             { return len(p) }

func TestSplice(t *testing.T) {
	for _, tc := range []struct {
		before, page, want, err string
	}{
		{"", "<head>" + pages.SpliceMark + "<tail>", "<head>PARTS<tail>", ""},
		{"earlier page", "<head>" + pages.SpliceMark, "earlier page<head>PARTS", ""},
		{"", pages.SpliceMark, "PARTS", ""},
		{pages.SpliceMark, "<head>" + pages.SpliceMark + "<tail>", pages.SpliceMark + "<head>PARTS<tail>", ""}, // only this page's mark
		{"", "<head><tail>", "", "templates/results.html writes no place for the page's parts"},
	} {
		var w bytes.Buffer
		w.WriteString(tc.before)
		start := w.Len()
		w.WriteString(tc.page)
		err := splice(&w, start, parts("PARTS"), "results")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.page, err, tc.err)
			}
			continue
		}
		if err != nil || w.String() != tc.want {
			t.Errorf("%q spliced: %q, %v; want %q", tc.page, w.String(), err, tc.want)
		}
	}
}
