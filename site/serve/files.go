package serve

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/internal/render"
)

// siteFiles is a site held in memory. Every framed page carries the same
// footer, which names the suite's inputs by their hashes and so changes
// with every edit of the cases, the policy or the thresholds. Each page
// is therefore kept as its bytes before and after the footer, and the
// footer once: an edit that changes the footer and a few pages renders
// those pages and swaps the footer, instead of rendering every page. A
// page is joined again when it is served, so what is served is what a
// build writes.
//
// When every page changes (a snapshot added, a template edited), the case
// pages, nearly all of a large site, are put off (see
// render.RenderAllLater): each is made when it is first asked for, and the
// rest in the background, so the page an author looks at reloads at once.
type siteFiles struct {
	footer []byte
	// steps enclose a drilldown's case-steps part.
	steps render.StepsMarks
	// mu guards files, later and next: a request that asks for a page put
	// off makes it, and the site may be completed meanwhile.
	mu    sync.Mutex
	files map[string]storedFile
	// later holds the pages put off; order lists their paths in the order
	// complete makes them, from next on.
	later map[string]render.Later
	order []string
	next  int
	// packers are flate writers for the pages made later.
	packers *sync.Pool
}

// newPackers is a pool of writers at the fastest level.
func newPackers() *sync.Pool {
	return &sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level: no error
		return w
	}}
}

// storedFile is one file of the site. A framed page is head, the site's
// footer, then tail; any other file is head alone. A drilldown is lead,
// its case-steps part (steps), then head: a case that comes or starts
// failing changes that part of many drilldowns and nothing else of them
// (see render.Parts.Steps). A large suite's site is hundreds of MiB of
// HTML, so most pages are kept compressed (packed), all but the steps:
// what that saves and costs is in "Fast paths" in docs/design.md.
type storedFile struct {
	lead, steps []byte
	head, tail  []byte
	framed      bool
	stepped     bool // lead and steps hold the page's first parts
	packed      bool
	size        int // of lead, head and tail unpacked
}

// len is the number of files, those put off included.
func (s *siteFiles) len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files) + len(s.later)
}

// sizeOf is the size of the file the site holds at name, 0 when it holds
// none or has put it off.
func (s *siteFiles) sizeOf(name string) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.files[name]
	if !ok {
		return 0
	}
	n := len(f.lead) + len(f.steps) + len(f.head) + len(f.tail)
	if f.packed {
		n = f.size + len(f.steps)
	}
	if f.framed {
		n += len(s.footer)
	}
	return n
}

// has reports whether the site holds a file at name, made or put off.
func (s *siteFiles) has(name string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.files[name]
	if !ok {
		_, ok = s.later[name]
	}
	return ok
}

// pending is the number of pages put off and not made yet.
func (s *siteFiles) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.later)
}

// stored returns the file kept at name, making it first if it was put
// off. ok is false when there is none, or when it cannot be made.
func (s *siteFiles) stored(name string) (f storedFile, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok = s.files[name]; ok {
		return f, true
	}
	l, put := s.later[name]
	if !put {
		return storedFile{}, false
	}
	f, err := s.make(l)
	if err != nil {
		// Only a template can fail here (the inputs were judged when the
		// page was put off): the request gets an error status.
		return storedFile{}, false
	}
	s.keep(l.Path, f)
	return f, true
}

// make renders a page put off and splits it as emit does.
func (s *siteFiles) make(l render.Later) (storedFile, error) {
	data, err := l.Make()
	if err != nil {
		return storedFile{}, err
	}
	w := s.packers.Get().(*flate.Writer)
	defer s.packers.Put(w)
	return split(l.Path, data, s.footer, s.steps, w), nil
}

// keep stores a page, made now or from later. The caller holds s.mu, or
// has the site to itself.
func (s *siteFiles) keep(name string, f storedFile) {
	s.files[name] = f
	delete(s.later, name)
}

// complete makes the pages put off, one at a time, until none is left or
// ctx is done; it reports whether none is left. Requests that ask for a
// page meanwhile make it themselves.
func (s *siteFiles) complete(ctx context.Context) bool {
	for ctx.Err() == nil {
		s.mu.Lock()
		var l render.Later
		found := false
		for !found && s.next < len(s.order) {
			l, found = s.later[s.order[s.next]]
			s.next++
		}
		s.mu.Unlock()
		if !found {
			return true
		}
		// Made outside the lock, so that requests wait for none of it.
		f, err := s.make(l)
		if err != nil {
			continue // left put off: a request for it gets an error status
		}
		s.mu.Lock()
		if _, still := s.later[l.Path]; still {
			s.keep(l.Path, f)
		}
		s.mu.Unlock()
	}
	return false
}

// get returns the bytes of the file at name as a build writes them. A
// framed or packed page is joined into a new slice; any other file is
// shared, and must not be modified.
func (s *siteFiles) get(name string) ([]byte, bool) {
	if s == nil {
		return nil, false
	}
	f, ok := s.stored(name)
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
func split(name string, data, footer []byte, steps render.StepsMarks, w *flate.Writer) storedFile {
	if !strings.HasSuffix(name, ".html") {
		return storedFile{head: data}
	}
	f := storedFile{head: data}
	if len(footer) > 0 {
		if at := bytes.LastIndex(data, footer); at >= 0 {
			f = storedFile{head: data[:at:at], tail: data[at+len(footer):], framed: true}
		}
	}
	if start, end, ok := steps.At(f.head); ok {
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

// newCollector starts a site from base's files, and the pages it put off
// (none when base is nil), with footer as every page's footer and steps
// enclosing every drilldown's case-steps part.
func newCollector(base, old *siteFiles, footer []byte, steps render.StepsMarks) *collector {
	next := &siteFiles{footer: footer, steps: steps, later: map[string]render.Later{}}
	if base != nil {
		base.mu.Lock()
		next.files, next.later = maps.Clone(base.files), maps.Clone(base.later)
		next.order = slices.Clone(base.order[base.next:])
		next.packers = base.packers
		base.mu.Unlock()
	} else {
		next.files = make(map[string]storedFile, old.len())
	}
	if next.packers == nil {
		next.packers = newPackers()
	}
	c := &collector{site: next, old: old, packer: next.packers.Get().(*flate.Writer)}
	// The footer is on every kept page: when it changed, they did.
	c.changed = old == nil || !bytes.Equal(old.footer, footer) && next.len() > 0
	return c
}

func (c *collector) emit(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." || strings.Contains(name, `\`) {
		return fmt.Errorf("site: refusing to serve %q: not a path inside the site", name)
	}
	// data is ours to keep: render.Emit gives every call a slice of its own.
	c.mu.Lock()
	defer c.mu.Unlock()
	f := split(name, data, c.site.footer, c.site.steps, c.packer)
	c.rendered++
	if !c.changed && (c.old == nil || !c.old.holds(name, f) || f.framed && !bytes.Equal(c.old.footer, c.site.footer)) {
		c.changed = true
	}
	c.site.keep(name, f)
	return nil
}

// holds reports whether the site keeps f at name, made.
func (s *siteFiles) holds(name string, f storedFile) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.files[name]
	return ok && prev.same(f)
}

// emitSteps puts a drilldown's new case-steps part in place of the one
// the page kept has.
func (c *collector) emitSteps(name string, steps []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, put := c.site.later[name]; put {
		// Made whole when asked for, for the input the site is for.
		c.rendered++
		return nil
	}
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
	for name := range c.site.later {
		if !want[name] {
			delete(c.site.later, name)
			c.changed = true
		}
	}
}

// putOff keeps pages to make later, in the order given.
func (c *collector) putOff(later []render.Later) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.site.putOff(later)
	if len(later) > 0 {
		// Whether they differ is known only once they are made.
		c.changed = true
	}
}

// replan makes the pages still put off, which were put off under an
// earlier input, pages of in: those a rebuild rendered are made already,
// and any other may have changed with it.
func (c *collector) replan(r renderer, in *site.Input) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.site.later) == 0 {
		return nil
	}
	var paths []string
	for _, p := range c.site.order {
		if _, put := c.site.later[p]; put {
			paths = append(paths, p)
		}
	}
	later, err := r.MakeLater(in, paths)
	if err != nil {
		return err
	}
	c.site.later, c.site.order = make(map[string]render.Later, len(later)), nil
	c.site.putOff(later)
	return nil
}

// putOff adds pages to make later, after those put off already. The
// caller holds s.mu, or has the site to itself.
func (s *siteFiles) putOff(later []render.Later) {
	for _, l := range later {
		s.later[l.Path] = l
		s.order = append(s.order, l.Path)
	}
}
