package serve

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"sync"
)

// siteFiles is a site held in memory. Every framed page carries the same
// footer, which names the suite's inputs by their hashes and so changes
// with every edit of the cases, the policy or the thresholds. Each page
// is therefore kept as its bytes before and after the footer, and the
// footer once: an edit that changes the footer and a few pages renders
// those pages and swaps the footer, instead of rendering every page. A
// page is joined again when it is served, so what is served is what a
// build writes.
type siteFiles struct {
	footer []byte
	files  map[string]storedFile
}

// storedFile is one file of the site. A framed page is head, the site's
// footer, then tail; any other file is head alone.
type storedFile struct {
	head, tail []byte
	framed     bool
}

// len is the number of files.
func (s *siteFiles) len() int {
	if s == nil {
		return 0
	}
	return len(s.files)
}

// has reports whether the site holds a file at name.
func (s *siteFiles) has(name string) bool {
	if s == nil {
		return false
	}
	_, ok := s.files[name]
	return ok
}

// get returns the bytes of the file at name as a build writes them. A
// framed page is joined into a new slice; any other file is shared, and
// must not be modified.
func (s *siteFiles) get(name string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	f, ok := s.files[name]
	if !ok {
		return nil, false
	}
	return f.join(s.footer), true
}

func (f storedFile) join(footer []byte) []byte {
	if !f.framed {
		return f.head
	}
	out := make([]byte, 0, len(f.head)+len(footer)+len(f.tail))
	out = append(out, f.head...)
	out = append(out, footer...)
	return append(out, f.tail...)
}

// split keeps a rendered file: an HTML page holding footer is cut around
// its last occurrence (a page's own content comes before its footer),
// without copying. Other files are kept whole.
func split(name string, data, footer []byte) storedFile {
	if len(footer) > 0 && strings.HasSuffix(name, ".html") {
		if at := bytes.LastIndex(data, footer); at >= 0 {
			return storedFile{head: data[:at:at], tail: data[at+len(footer):], framed: true}
		}
	}
	return storedFile{head: data}
}

// same reports whether two stored files give the same bytes when each is
// joined with its own footer, which the caller compares on its own.
func (f storedFile) same(g storedFile) bool {
	return f.framed == g.framed && bytes.Equal(f.head, g.head) && bytes.Equal(f.tail, g.tail)
}

// collector gathers rendered files into a new site with a new footer,
// starting from a copy of base, and notes whether any differ from old.
// Its emit may be called from several goroutines.
type collector struct {
	mu      sync.Mutex
	site    *siteFiles
	old     *siteFiles
	changed bool
	// rendered counts the files emitted.
	rendered int
}

// newCollector starts a site from base's files (none when base is nil)
// with footer as every page's footer.
func newCollector(base, old *siteFiles, footer []byte) *collector {
	var files map[string]storedFile
	if base != nil {
		files = maps.Clone(base.files)
	} else {
		files = make(map[string]storedFile, old.len())
	}
	c := &collector{site: &siteFiles{footer: footer, files: files}, old: old}
	// The footer is on every kept page: when it changed, they did.
	c.changed = old == nil || !bytes.Equal(old.footer, footer) && len(files) > 0
	return c
}

func (c *collector) emit(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
		return fmt.Errorf("site: refusing to serve %q: not a path inside the site", name)
	}
	// data is ours to keep: site.Emit gives every call a slice of its own.
	f := split(name, data, c.site.footer)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rendered++
	if c.old == nil {
		c.changed = true
	} else if prev, ok := c.old.files[name]; !ok || !prev.same(f) || f.framed && !bytes.Equal(c.old.footer, c.site.footer) {
		c.changed = true
	}
	c.site.files[name] = f
	return nil
}
