package serve

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io/fs"
	"maps"
	"strings"
	"sync"

	"github.com/releasegate/releasegate/site"
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
// footer, then tail; any other file is head alone. A drilldown is lead,
// its case-steps part (steps), then head: a case that comes or starts
// failing changes that part of many drilldowns and nothing else of them
// (see site.Parts.Steps). A large suite's site is hundreds of MiB of
// HTML, so most pages are kept compressed (packed), all but the steps: a
// third of the size, for microseconds of the rebuild and of each request.
type storedFile struct {
	lead, steps []byte
	head, tail  []byte
	framed      bool
	stepped     bool // lead and steps hold the page's first parts
	packed      bool
	size        int // of lead, head and tail unpacked
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
// framed or packed page is joined into a new slice; any other file is
// shared, and must not be modified.
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
	if !f.framed && !f.packed && !f.stepped {
		return f.head
	}
	// One allocation of the page's size (and a little room the reader
	// asks for), each part inflated into place.
	out := bytes.NewBuffer(make([]byte, 0, f.size+len(f.steps)+len(footer)+bytes.MinRead))
	add := func(part []byte) {
		if !f.packed {
			out.Write(part)
		} else if len(part) > 0 {
			if _, err := out.ReadFrom(flate.NewReader(bytes.NewReader(part))); err != nil {
				// Compressed in this process: it cannot be corrupt.
				panic("serve: a page kept in memory does not inflate: " + err.Error())
			}
		}
	}
	if f.stepped {
		add(f.lead)
		out.Write(f.steps)
	}
	add(f.head)
	if f.framed {
		out.Write(footer)
	}
	add(f.tail)
	return out.Bytes()
}

// Pages from packMin to packMax bytes are kept compressed: the case
// pages, tens of thousands of a few KiB each, which most rebuilds keep.
// The few large pages (a snapshot's case table, the report) are rendered
// again by nearly every rebuild and served most often, so they are kept
// as they are: compressing them would be work on every save.
const (
	packMin = 512
	packMax = 256 << 10
)

// deflate compresses b with w, into a slice of its own.
func deflate(w *flate.Writer, b []byte) []byte {
	var out bytes.Buffer
	w.Reset(&out)
	w.Write(b) // a bytes.Buffer does not fail
	w.Close()
	return bytes.Clone(out.Bytes())
}

// split keeps a rendered file: an HTML page holding footer is cut around
// its last occurrence (a page's own content comes before its footer), and
// a drilldown around its case-steps part. A page is kept compressed with
// w; other files, whole.
func split(name string, data, footer []byte, w *flate.Writer) storedFile {
	if !strings.HasSuffix(name, ".html") {
		return storedFile{head: data}
	}
	f := storedFile{head: data}
	if len(footer) > 0 {
		if at := bytes.LastIndex(data, footer); at >= 0 {
			f = storedFile{head: data[:at:at], tail: data[at+len(footer):], framed: true}
		}
	}
	if start, end, ok := site.CaseStepsAt(f.head); ok {
		f.lead, f.steps, f.head, f.stepped = f.head[:start:start], f.head[start:end:end], f.head[end:], true
	}
	if len(data) >= packMin && len(data) <= packMax {
		f.size = len(f.lead) + len(f.head) + len(f.tail)
		f.lead, f.head, f.tail, f.packed = deflate(w, f.lead), deflate(w, f.head), deflate(w, f.tail), true
		// Kept as it is, but not with the whole page it was cut from.
		f.steps = bytes.Clone(f.steps)
	}
	return f
}

// same reports whether two stored files give the same bytes when each is
// joined with its own footer, which the caller compares on its own.
// Compression is deterministic, so packed files compare packed.
func (f storedFile) same(g storedFile) bool {
	return f.framed == g.framed && f.packed == g.packed && f.stepped == g.stepped &&
		bytes.Equal(f.lead, g.lead) && bytes.Equal(f.steps, g.steps) && bytes.Equal(f.head, g.head) && bytes.Equal(f.tail, g.tail)
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
	// packer compresses pages; emit is called by one goroutine at a time.
	packer *flate.Writer
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
	packer, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level: no error
	c := &collector{site: &siteFiles{footer: footer, files: files}, old: old, packer: packer}
	// The footer is on every kept page: when it changed, they did.
	c.changed = old == nil || !bytes.Equal(old.footer, footer) && len(files) > 0
	return c
}

func (c *collector) emit(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
		return fmt.Errorf("site: refusing to serve %q: not a path inside the site", name)
	}
	// data is ours to keep: site.Emit gives every call a slice of its own.
	c.mu.Lock()
	defer c.mu.Unlock()
	f := split(name, data, c.site.footer, c.packer)
	c.rendered++
	if c.old == nil {
		c.changed = true
	} else if prev, ok := c.old.files[name]; !ok || !prev.same(f) || f.framed && !bytes.Equal(c.old.footer, c.site.footer) {
		c.changed = true
	}
	c.site.files[name] = f
	return nil
}

// emitSteps puts a drilldown's new case-steps part in place of the one
// the page kept has.
func (c *collector) emitSteps(name string, steps []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.site.files[name]
	if !ok || !f.stepped {
		return fmt.Errorf("serve: %s: no case steps kept to replace", name)
	}
	c.rendered++
	if !bytes.Equal(f.steps, steps) {
		c.changed = true
	}
	f.steps = steps // ours to keep, as with emit
	c.site.files[name] = f
	return nil
}

// keepOnly drops every file of the new site not at one of paths: the
// pages of cases that went.
func (c *collector) keepOnly(paths []string) {
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.site.files {
		if !want[name] {
			delete(c.site.files, name)
			c.changed = true
		}
	}
}
