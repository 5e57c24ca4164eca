package serve

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site/internal/render"
)

// TestStoredFilesJoinAsBuilt keeps files as the server does and checks
// that each joins back to its bytes with the footer it was split on, and
// to the same page with another footer in its place.
func TestStoredFilesJoinAsBuilt(t *testing.T) {
	footer := []byte(`<footer class="site-footer"><p>Policy ER-2026.10 · 12 cases</p></footer>`)
	other := []byte(`<footer class="site-footer"><p>Policy ER-2026.10 · 13 cases</p></footer>`)
	long := strings.Repeat("<tr><td>ER-001</td><td>pass</td></tr>\n", 40)
	tests := []struct {
		name, path, before, after string
		framed, packed            bool
	}{
		{"small page", "a.html", "<html><body><main>x</main>", "\n</body></html>\n", true, false},
		{"large page", "snapshots/v1.html", "<html><body><main>" + long + "</main>", "\n</body></html>\n", true, true},
		{"the footer twice: the last is the frame's", "b.html", "<html><body><main><pre>" + string(footer) + "</pre>" + long + "</main>", "</body></html>", true, true},
		{"page without a footer", "404.html", "<html><body>" + long, "</body></html>", false, true},
		{"very large page", "snapshots/v2.html", "<html><body><main>" + strings.Repeat(long, 200), "</main></body></html>", false, false},
		{"not a page", "results/v1.json", `{"footer": "` + long, `"}`, false, false},
		{"empty", ".nojekyll", "", "", false, false},
	}
	packer := newCollector(nil, nil, footer, embeddedSteps(t)).packer
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := []byte(tt.before + tt.after)
			want := page
			if tt.framed {
				page = []byte(tt.before + string(footer) + tt.after)
				want = []byte(tt.before + string(other) + tt.after)
			}
			f := split(tt.path, bytes.Clone(page), footer, embeddedSteps(t), packer)
			if f.framed != tt.framed || f.packed != tt.packed {
				t.Fatalf("framed %v packed %v, want %v %v", f.framed, f.packed, tt.framed, tt.packed)
			}
			if got := f.join(footer); !bytes.Equal(got, page) {
				t.Errorf("joined with its footer:\n%q\nwant\n%q", got, page)
			}
			if got := f.join(other); !bytes.Equal(got, want) {
				t.Errorf("joined with another footer:\n%q\nwant\n%q", got, want)
			}
			if again := split(tt.path, bytes.Clone(page), footer, embeddedSteps(t), packer); !again.same(f) {
				t.Error("the same bytes kept twice differ")
			}
			if tt.packed && len(f.head)+len(f.tail) >= len(page)-len(footer) {
				t.Errorf("packed into %d bytes, from %d", len(f.head)+len(f.tail), len(page))
			}
		})
	}
}

// TestCaseStepsAreReplacedInPlace keeps a drilldown as the server does
// and checks that new case steps, put in place of the kept ones, give the
// page with those steps and any footer, packed or not.
func TestCaseStepsAreReplacedInPlace(t *testing.T) {
	footer := []byte(`<footer class="site-footer"><p>12 cases</p></footer>`)
	other := []byte(`<footer class="site-footer"><p>13 cases</p></footer>`)
	steps := func(next string) string {
		return `<nav class="case-steps" aria-label="Cases of v1">` + "\n<ul>\n<li>" + next + "</li>\n</ul>\n</nav>"
	}
	for _, body := range []string{"<p>short</p>", strings.Repeat("<tr><td>ER-001</td><td>pass</td></tr>\n", 40)} {
		page := func(next string, footer []byte) []byte {
			return []byte(`<html><body><main><h1>ER-002 in v1</h1>` + "\n" + steps(next) + "\n</div>" + body + "</main>" + string(footer) + "</body></html>\n")
		}
		c := newCollector(nil, nil, footer, embeddedSteps(t))
		if err := c.emit("snapshots/v1/ER-002.html", page("No other case fails", footer)); err != nil {
			t.Fatal(err)
		}
		kept := c.site.files["snapshots/v1/ER-002.html"]
		if !kept.stepped || kept.packed != (len(body) > 100) {
			t.Fatalf("stepped %v packed %v", kept.stepped, kept.packed)
		}
		next := newCollector(c.site, c.site, other, embeddedSteps(t))
		if err := next.emitSteps("snapshots/v1/ER-002.html", []byte(steps("Next failing: ER-007"))); err != nil {
			t.Fatal(err)
		}
		got, _ := next.site.get("snapshots/v1/ER-002.html")
		if want := page("Next failing: ER-007", other); !bytes.Equal(got, want) {
			t.Errorf("with new steps and footer:\n%s\nwant\n%s", got, want)
		}
		if !next.changed || next.rendered != 1 {
			t.Errorf("changed %v, rendered %d", next.changed, next.rendered)
		}
		if was, _ := c.site.get("snapshots/v1/ER-002.html"); !bytes.Equal(was, page("No other case fails", footer)) {
			t.Error("the site kept before changed with the new one")
		}
		if err := next.emitSteps("index.html", []byte(steps("x"))); err == nil {
			t.Error("steps accepted for a page not kept")
		}
	}
}

// BenchmarkJoinSnapshotPage measures what serving the largest page of a
// 10,000-case site adds: joining the footer.
func BenchmarkJoinSnapshotPage(b *testing.B) {
	footer := []byte(`<footer class="site-footer"><p>Policy ER-2026.10 · 10000 cases</p></footer>`)
	var page bytes.Buffer
	page.WriteString("<html><body><main><table>")
	for i := range 10000 {
		page.WriteString(`<tr><td><a href="v1/ER-` + strings.Repeat("0", 5) + string(rune('0'+i%10)) + `.html">ER</a></td><td class="pass">pass</td><td>840 ms</td><td>USD 0.011</td></tr>` + "\n")
	}
	page.WriteString("</table></main>")
	page.Write(footer)
	page.WriteString("</body></html>\n")
	f := split("snapshots/v1.html", page.Bytes(), footer, embeddedSteps(b), newCollector(nil, nil, footer, embeddedSteps(b)).packer)
	if f.packed {
		b.Fatal("a large page is kept compressed")
	}
	b.SetBytes(int64(page.Len()))
	for b.Loop() {
		if len(f.join(footer)) != page.Len() {
			b.Fatal("joined page differs in size")
		}
	}
}

// embeddedSteps are the case-steps marks of the embedded templates.
func embeddedSteps(t testing.TB) render.StepsMarks {
	t.Helper()
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		t.Fatal(err)
	}
	return r.StepsMarks()
}

// TestSizeOfIsTheServedSize: the size a site gives for each file it
// holds, packed, cut around its footer or around its steps, is the size
// of the file served; 0 for one it does not hold.
func TestSizeOfIsTheServedSize(t *testing.T) {
	b, _ := newTestBuilder(t, siteRenderer)
	kinds := map[string]bool{}
	for name, f := range b.files.files {
		data, ok := b.files.get(name)
		if !ok {
			t.Fatalf("%s: not served", name)
		}
		if got := b.files.sizeOf(name); got != len(data) {
			t.Fatalf("%s: size %d, served %d bytes", name, got, len(data))
		}
		kinds[fmt.Sprint("packed ", f.packed, ", framed ", f.framed, ", stepped ", f.stepped)] = true
	}
	if len(kinds) < 3 {
		t.Fatalf("the site holds files of too few kinds to tell: %v", kinds)
	}
	if got := b.files.sizeOf("no/such/page.html"); got != 0 {
		t.Fatalf("size %d of a file the site does not hold", got)
	}
}
