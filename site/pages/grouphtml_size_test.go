package pages_test

import (
	"bytes"
	"testing"

	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/pages"
)

// TestGroupHTMLSize checks that the buffer of a grouped page's parts is
// made large enough at once, and not much larger, on the sample, every
// example and generated suites with and without trials.
func TestGroupHTMLSize(t *testing.T) {
	dirs := pages.TestDataDirs(t)
	check := func(dir, page string, hint, size int) {
		t.Helper()
		t.Logf("%s: %s: %d bytes for %d written (%.2f)", dir, page, hint, size, float64(hint)/float64(size))
		if hint < size || hint > size+size/4+1024 {
			t.Errorf("%s: %s: %d bytes made for %d written", dir, page, hint, size)
		}
	}
	for _, dir := range dirs {
		in, err := site.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		in.GroupAbove = 1
		m, err := pages.NewModel(in)
		if err != nil {
			t.Fatal(err)
		}
		n := len(in.Release.Suite.Cases)
		for _, s := range in.Release.Snapshots {
			for g := range m.Paths.ResultGroups(n) {
				p, err := m.ResultGroupPage(s, g)
				if err != nil {
					t.Fatal(err)
				}
				check(dir, pages.ResultGroupPath(s.Label(), g), p.SplicedSize(), spliced(p))
			}
		}
		for g := range m.Paths.HistoryGroups(n) {
			p := m.HistoryGroupPage(g)
			check(dir, pages.HistoryGroupPath(g), p.SplicedSize(), spliced(p))
		}
	}
}

// spliced is the length of what p writes where its template marks.
func spliced(p pages.Spliced) int {
	var b bytes.Buffer
	p.WriteSpliced(&b)
	return b.Len()
}
