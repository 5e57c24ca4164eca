// Package livereload tells open browser pages to reload when the site they
// show has been rebuilt. It is modelled on Hugo's livereload but uses only
// Server-Sent Events from the standard library: a page loads a tiny script
// that opens an EventSource and reloads itself when told to.
//
// The script is never part of a built page. A server injects a snippet
// (Snippet) into the HTML responses it serves with Inject, so the bytes a
// build writes stay exactly as they are.
package livereload

import (
	"bytes"
	_ "embed"
	"fmt"
	"net/http"
	"strconv"
	"sync"
)

// Reserved paths. They live under a prefix no generated site uses, so they
// can never shadow a page.
const (
	Prefix     = "/__releasegate/"
	ScriptPath = Prefix + "reload.js"
	EventsPath = Prefix + "events"
)

// script is served at ScriptPath.
//
//go:embed reload.js
var script []byte

// Script returns the reload script served at ScriptPath.
func Script() []byte { return bytes.Clone(script) }

// Snippet is the tag to inject into a page served at generation gen. The
// page reloads when the hub announces a newer generation, including one
// that was announced while the page was still loading.
func Snippet(gen uint64) []byte {
	return fmt.Appendf(nil, `<script src="%s" data-generation="%d"></script>`, ScriptPath, gen)
}

// Hub fans out reload events to every connected page. The zero value is
// not usable; create one with New.
type Hub struct {
	mu     sync.Mutex
	gen    uint64
	subs   map[chan struct{}]struct{}
	closed chan struct{}
	once   sync.Once
}

// New returns a hub whose pages are at generation gen.
func New(gen uint64) *Hub {
	return &Hub{gen: gen, subs: map[chan struct{}]struct{}{}, closed: make(chan struct{})}
}

// Generation is the generation last announced.
func (h *Hub) Generation() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen
}

// Reload announces generation gen to every connected page. It never
// blocks: a page that has not yet received the previous announcement gets
// only the newest one.
func (h *Hub) Reload(gen uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen = gen
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending; it will read the new generation
		}
	}
}

// Clients is the number of connected pages.
func (h *Hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

// Close ends every event stream and refuses new ones, so that an
// http.Server can shut down: streams never go idle by themselves.
func (h *Hub) Close() { h.once.Do(func() { close(h.closed) }) }

func (h *Hub) subscribe() chan struct{} {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *Hub) unsubscribe(ch chan struct{}) {
	h.mu.Lock()
	delete(h.subs, ch)
	h.mu.Unlock()
}

// ServeHTTP streams events to one page: "hello" with the current
// generation on connect, then "reload" with each newer one.
func (h *Hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-h.closed:
		http.Error(w, "server is shutting down", http.StatusServiceUnavailable)
		return
	default:
	}
	ch := h.subscribe()
	defer h.unsubscribe(ch)

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(event string, gen uint64) bool {
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, strconv.FormatUint(gen, 10)); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// retry: how long a browser waits before reconnecting after the server
	// went away, e.g. while it restarts.
	if _, err := fmt.Fprint(w, "retry: 1000\n\n"); err != nil {
		return
	}
	if !send("hello", h.Generation()) {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.closed:
			return
		case <-ch:
			if !send("reload", h.Generation()) {
				return
			}
		}
	}
}

// Inject returns a copy of page with extra inserted just before its last
// </body> (matched without regard to case), or appended when there is
// none. page itself is left untouched: it may be shared.
func Inject(page, extra []byte) []byte {
	at := lastIndexFold(page, []byte("</body>"))
	if at < 0 {
		at = len(page)
	}
	out := make([]byte, 0, len(page)+len(extra))
	out = append(out, page[:at]...)
	out = append(out, extra...)
	return append(out, page[at:]...)
}

// lastIndexFold is bytes.LastIndex with ASCII case folding.
func lastIndexFold(s, sep []byte) int {
	for i := len(s) - len(sep); i >= 0; i-- {
		if bytes.EqualFold(s[i:i+len(sep)], sep) {
			return i
		}
	}
	return -1
}
