package pages

import (
	"fmt"
	"testing"
)

func TestGroupFile(t *testing.T) {
	for g, want := range map[int]string{
		0: "p0001.html", 8: "p0009.html", 9: "p0010.html", 99: "p0100.html",
		998: "p0999.html", 9998: "p9999.html", 9999: "p10000.html", 123455: "p123456.html",
	} {
		if got := GroupFile(g); got != want {
			t.Errorf("GroupFile(%d) = %q, want %q", g, got, want)
		}
		if got, want := fmt.Sprintf("p%04d.html", g+1), want; got != want {
			t.Errorf("the table is wrong at %d: %q, fmt says %q", g, want, got)
		}
	}
}

// A result's link, made in one allocation, is the path of its page, the
// anchor and the root before them, in both schemes.
func TestResultLinks(t *testing.T) {
	stems := []string{"case-1", "case-2", "case-3", "case-4", "case-5"}
	grouped := ResultPaths{PerPage: 2, HistoryPerPage: 2, Stems: stems}
	for i, want := range []string{
		"../snapshots/v2/p0001.html#case-1", "../snapshots/v2/p0001.html#case-2",
		"../snapshots/v2/p0002.html#case-3", "../snapshots/v2/p0002.html#case-4",
		"../snapshots/v2/p0003.html#case-5",
	} {
		if got := grouped.resultFrom("../", "v2", i); got != want {
			t.Errorf("grouped result %d: %q, want %q", i, got, want)
		}
		if got := "../" + grouped.Result("v2", i); got != want {
			t.Errorf("grouped Result %d: %q, want %q", i, got, want)
		}
	}
	for i, want := range []string{"cases/p0001.html#case-1", "cases/p0001.html#case-2", "cases/p0002.html#case-3"} {
		if got := grouped.History(i); got != want {
			t.Errorf("grouped history %d: %q, want %q", i, got, want)
		}
	}
	own := ResultPaths{Stems: stems}
	if got, want := own.resultFrom("../", "v2", 3), "../"+DrilldownPath("v2", "case-4"); got != want {
		t.Errorf("own page: %q, want %q", got, want)
	}
}

// groupedLinks accepts exactly the links that lead to each bar's grouped
// page at its key.
func TestGroupedLinks(t *testing.T) {
	keys := []string{"a", "b", "c"}
	links := []string{"s/v1/p0001.html#a", "s/v1/p0001.html#b", "s/v1/p0002.html#c"}
	if prefix, ok := groupedLinks(links, keys, 2); !ok || prefix != "s/v1/" {
		t.Fatalf("groupedLinks = %q, %v; want s/v1/, true", prefix, ok)
	}
	for _, bad := range [][]string{
		{"s/v1/p0001.html#a", "s/v1/p0001.html#b", "s/v1/p0001.html#c"},
		{"s/v1/p0001.html#a", "s/v1/p0001.html#bb", "s/v1/p0002.html#c"},
		{"s/v1/p0001.html#a", "t/v1/p0001.html#b", "s/v1/p0002.html#c"},
		{"s/v1/p0001.html#a", "s/v1/p0001.html#", "s/v1/p0002.html#c"},
		{"s/v1/p0001.html#a", "s/v1/p0001.htmlxb", "s/v1/p0002.html#c"},
	} {
		if _, ok := groupedLinks(bad, keys, 2); ok {
			t.Errorf("groupedLinks accepted %q", bad)
		}
	}
}

// Kept paths are used only for the same ids, snapshots and grouping.
func TestPathsKept(t *testing.T) {
	var k PathsKept
	ids := []string{"a", "b"}
	if _, ok := k.reuse(ids, 3, 0); ok {
		t.Fatal("nothing kept, yet reused")
	}
	k.keep(ids, 3, 0, NewResultPaths(ids, 3, 0))
	if p, ok := k.reuse([]string{"a", "b"}, 3, 0); !ok || p.Stems[1] != "b" {
		t.Fatalf("the same ids: %v, %v", p, ok)
	}
	for _, other := range []struct {
		ids          []string
		snaps, group int
	}{{[]string{"a", "c"}, 3, 0}, {[]string{"a"}, 3, 0}, {ids, 2, 0}, {ids, 3, 1}} {
		if _, ok := k.reuse(other.ids, other.snaps, other.group); ok {
			t.Errorf("reused for %v", other)
		}
	}
	var none *PathsKept
	if _, ok := none.reuse(ids, 3, 0); ok {
		t.Error("a nil PathsKept reused paths")
	}
	none.keep(ids, 3, 0, ResultPaths{}) // must not panic
}
