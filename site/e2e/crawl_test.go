//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// tabsInParallel is how many pages a crawl loads at once. The machine has
// two cores; a third tab keeps them busy while one waits for its load.
const tabsInParallel = 3

// pageView is what one visit of a page found.
type pageView[T any] struct {
	Rel    string // slash path inside the site
	URL    string
	Status int64 // status of the document; chromium says 200 for a file
	Log    pageLog
	// Links are the absolute targets of the page's a[href] elements.
	Links []string
	// IDs are the element ids, the targets of #fragment links.
	IDs []string
	// Probe is what the crawl's probe returned on this page.
	Probe T
	// Err is a visit that could not finish; the other fields may be empty.
	Err error
}

// probe runs extra checks on an open, settled page.
type probe[T any] func(tb *tab) (T, error)

// crawl loads the site's index.html, then every page it links to, and so
// on, loading pages in parallel tabs of the shared browser. Only .html
// files inside the site are followed. Pages come back sorted by path.
// prepare and look may be nil.
func crawl[T any](browser context.Context, s served, prepare setup, look probe[T]) []*pageView[T] {
	tabs := newTabPool(browser, s.inScope, prepare)
	defer tabs.close()
	seen := map[string]bool{"index.html": true}
	level := []string{"index.html"}
	var all []*pageView[T]
	for len(level) > 0 {
		views := visitAll(tabs, s, level, look)
		all = append(all, views...)
		var next []string
		for _, v := range views {
			for _, l := range v.Links {
				rel, ok := s.rel(l)
				if ok && strings.HasSuffix(rel, ".html") && !seen[rel] {
					seen[rel] = true
					next = append(next, rel)
				}
			}
		}
		sort.Strings(next)
		level = next
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Rel < all[j].Rel })
	return all
}

// visitAll visits the pages at the slash paths rels, at most tabsInParallel
// at a time, and returns their views in the order of rels.
func visitAll[T any](tabs *tabPool, s served, rels []string, look probe[T]) []*pageView[T] {
	views := make([]*pageView[T], len(rels))
	slots := make(chan struct{}, tabsInParallel)
	var wg sync.WaitGroup
	for i, rel := range rels {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			views[i] = visit(tabs, s, rel, look)
		})
	}
	wg.Wait()
	return views
}

// pageFacts is what every visit reads from the page.
type pageFacts struct {
	Links []string `json:"links"`
	IDs   []string `json:"ids"`
}

const pageFactsJS = `({
	links: Array.from(document.querySelectorAll("a[href]"), a => a.href),
	ids: Array.from(document.querySelectorAll("[id]"), e => e.id),
})`

// visit opens one page in a tab of the pool, reads its facts and runs look.
// A tab whose visit failed is closed rather than lent again.
func visit[T any](tabs *tabPool, s served, rel string, look probe[T]) *pageView[T] {
	v := &pageView[T]{Rel: rel, URL: s.url(rel)}
	tb, err := tabs.get()
	if err != nil {
		v.Err = err
		return v
	}
	defer func() {
		if v.Err == nil {
			tabs.put(tb)
		} else {
			tb.close()
		}
	}()
	tb.reset()
	page, cancel := tb.deadline(pageTimeout)
	defer cancel()
	defer func() { v.Log = tb.log.snapshot() }()
	if v.Status, err = page.open(v.URL); err != nil {
		v.Err = err
		return v
	}
	facts, err := eval[pageFacts](page, pageFactsJS)
	if err != nil {
		v.Err = fmt.Errorf("read links: %w", err)
		return v
	}
	v.Links, v.IDs = facts.Links, facts.IDs
	if look != nil {
		if v.Probe, err = look(page); err != nil {
			v.Err = err
		}
	}
	return v
}

// brokenLinks checks every link of the crawled pages that stays inside the
// site: its file must exist and, when it names a #fragment on a crawled
// page, that page must have an element with that id. It also lists HTML
// files that no link reaches (404.html excepted: hosts show it for a
// missing address). Each problem is one line.
func brokenLinks[T any](s served, views []*pageView[T]) []string {
	ids := map[string][]string{}
	for _, v := range views {
		ids[v.Rel] = v.IDs
	}
	var problems []string
	for _, v := range views {
		for _, l := range v.Links {
			rel, ok := s.rel(l)
			if !ok {
				continue
			}
			if _, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(rel))); err != nil {
				problems = append(problems, fmt.Sprintf("%s links to %s, which does not exist", v.Rel, rel))
				continue
			}
			// A fragment with "=" is a view of a case table
			// (#result=fail), read by the page's script, not an id.
			_, frag, found := strings.Cut(l, "#")
			if target, crawled := ids[rel]; found && frag != "" && !strings.Contains(frag, "=") && crawled && !slices.Contains(target, frag) {
				problems = append(problems, fmt.Sprintf("%s links to %s#%s, which has no element with that id", v.Rel, rel, frag))
			}
		}
	}
	files, err := htmlFiles(s.dir)
	if err != nil {
		return append(problems, err.Error())
	}
	for _, f := range files {
		if _, reached := ids[f]; !reached && f != "404.html" {
			problems = append(problems, fmt.Sprintf("%s: no link from index.html leads here", f))
		}
	}
	return problems
}

// forEachPage runs check on every view as a subtest named by its path,
// after failing it for a visit that did not finish.
func forEachPage[T any](t *testing.T, views []*pageView[T], check func(t *testing.T, v *pageView[T])) {
	t.Helper()
	for _, v := range views {
		t.Run(v.Rel, func(t *testing.T) {
			if v.Err != nil {
				t.Fatalf("visit %s: %v", v.URL, v.Err)
			}
			check(t, v)
		})
	}
}
