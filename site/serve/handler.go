package serve

import (
	"bytes"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/serve/livereload"
)

// state is what the server shows: the last good site and, while the
// inputs are broken, the error that keeps it from being rebuilt. A state
// is never modified once published, so a request sees one consistent
// site even while a rebuild swaps in the next.
type state struct {
	files      *siteFiles // nil until a build succeeded
	failure    error      // the last build's error, nil when it succeeded
	generation uint64     // grows with every published state
	// watchLost says why changes cannot be seen; "" while they can.
	watchLost string
}

// handler serves the site from memory. Only files the renderer produced
// exist, so no request can reach anything else on disk.
type handler struct {
	current *atomic.Pointer[state]
	hub     *livereload.Hub // nil when not watching: pages never change
	// hosts, when set, are the only Host headers answered: a server on
	// loopback answers only names of loopback, so that a web page the
	// author visits cannot read the report through DNS rebinding.
	hosts *hostPolicy
}

// securityHeaders go on every response, errors and event streams
// included.
var securityHeaders = [][2]string{
	{"Content-Security-Policy", render.HeaderPolicy},
	{"X-Content-Type-Options", "nosniff"},
	{"X-Frame-Options", "DENY"},
	{"Referrer-Policy", "no-referrer"},
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	for _, kv := range securityHeaders {
		hdr.Set(kv[0], kv[1])
	}
	if h.hosts != nil && !h.hosts.allows(r.Host) {
		http.Error(w, "misdirected request: this server answers only to localhost, 127.0.0.1 and [::1]", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if h.hub != nil {
		switch r.URL.Path {
		case livereload.EventsPath:
			h.hub.ServeHTTP(w, r)
			return
		case livereload.ScriptPath:
			h.write(w, r, http.StatusOK, "reload.js", livereload.Script(), nil)
			return
		}
	}
	st := h.current.Load()
	if st.files == nil {
		// No build has succeeded yet: a bare page carrying the overlay,
		// which reloads once the inputs are fixed.
		h.write(w, r, http.StatusServiceUnavailable, "index.html", noSitePage, st)
		return
	}
	name, found := resolve(r.URL.Path, st.files)
	switch {
	case found == redirectToFolder:
		// Relative links inside x/index.html need the trailing slash.
		w.Header().Set("Location", "./"+url.PathEscape(path.Base(r.URL.Path))+"/"+queryOf(r))
		w.WriteHeader(http.StatusFound)
	case found == notFound:
		page, ok := st.files.get("404.html")
		if !ok {
			page = notFoundPage
		}
		h.write(w, r, http.StatusNotFound, "404.html", page, st)
	default:
		page, ok := st.files.get(name)
		if !ok {
			// A page put off that could not be made: the next build
			// reports why.
			http.Error(w, "releasegate: "+name+" could not be rendered", http.StatusInternalServerError)
			return
		}
		h.write(w, r, http.StatusOK, name, page, st)
	}
}

func queryOf(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// write sends one file. HTML served while watching gets the reload
// script and, after a failed build, the error overlay; the stored bytes
// are never changed.
func (h *handler) write(w http.ResponseWriter, r *http.Request, status int, name string, data []byte, st *state) {
	ctype := contentType(name)
	if st != nil && h.hub != nil && strings.HasPrefix(ctype, "text/html") {
		extra := livereload.Snippet(st.generation)
		if st.failure != nil {
			extra = append(overlay(st.failure, st.files != nil), extra...)
		}
		if st.watchLost != "" {
			extra = append(watchBanner(st.watchLost), extra...)
		}
		data = livereload.Inject(data, extra)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", ctype)
	hdr.Set("Cache-Control", "no-store")
	if status != http.StatusOK {
		hdr.Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			w.Write(data)
		}
		return
	}
	// ServeContent adds HEAD, Range and conditional requests.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// hostPolicy admits the Host headers that name a loopback address with
// the server's port.
type hostPolicy struct {
	port string
}

// loopbackNames are the host names a browser on this machine uses for a
// loopback server. Any other name may resolve to loopback only through
// DNS the author does not control.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// allows reports whether host, a request's Host header, names loopback
// and the server's port. Without a port it is port 80, as for a browser.
func (p *hostPolicy) allows(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		// No port: a bare name, or a bracketed IPv6 address.
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
		if strings.ContainsAny(name, "[]") {
			return false
		}
	}
	if port != p.port || strings.HasPrefix(host, "[") && net.ParseIP(name) == nil {
		return false
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	return slices.Contains(loopbackNames, name)
}

// found says what a request path points at.
type found int

const (
	notFound found = iota
	aFile
	redirectToFolder
)

// resolve maps a request path (already percent-decoded once by net/http)
// to a file of the site: "/" and "/x/" mean their index.html, and "/x"
// where x/index.html exists is a folder asked for without its slash.
// Anything that is not a clean relative path inside the site is not
// found; since only the site's own files are looked up, nothing else can
// be reached whatever the path holds.
func resolve(urlPath string, files *siteFiles) (string, found) {
	name, ok := strings.CutPrefix(urlPath, "/")
	if !ok || strings.ContainsAny(name, "\\\x00") {
		return "", notFound
	}
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if !fs.ValidPath(name) {
		return "", notFound
	}
	if files.has(name) {
		return name, aFile
	}
	if files.has(name + "/index.html") {
		return name + "/", redirectToFolder
	}
	return "", notFound
}

// contentTypes fixes the types of the files a site holds, so they do not
// depend on the machine's mime tables.
var contentTypes = map[string]string{
	".html":  "text/html; charset=utf-8",
	".css":   "text/css; charset=utf-8",
	".js":    "text/javascript; charset=utf-8",
	".mjs":   "text/javascript; charset=utf-8",
	".json":  "application/json",
	".md":    "text/markdown; charset=utf-8",
	".txt":   "text/plain; charset=utf-8",
	".svg":   "image/svg+xml",
	".png":   "image/png",
	".ico":   "image/x-icon",
	".woff2": "font/woff2",
	".xml":   "application/xml",
	// GitHub Pages' marker file, empty.
	".nojekyll": "text/plain; charset=utf-8",
}

// contentType is the Content-Type of a site file, by its extension; files
// without a known one are plain text or bytes, never sniffed as HTML.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}
