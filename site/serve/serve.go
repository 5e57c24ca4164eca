// Package serve is "releasegate serve": it builds the report site into
// memory, serves it over HTTP and, when watching, rebuilds it as the data
// folder (and, when authoring, the templates) change, reloading the open
// pages.
//
// A rebuild does only the work its change needs. An edited snapshot is
// evaluated again against the cached suite, and only its page, the pages
// about every snapshot and the drilldown and history pages of the cases
// whose output or verdict changed are rendered; an edit of the cases, the
// policy or the thresholds judges and renders what it reaches (see
// suiteEdit); a template change renders every page without evaluating
// anything. When every page changes (a snapshot added, a template edited),
// the case pages are put off: each is made when first asked for, and the
// rest in the background. The site is held in memory with every page's
// footer, which names the suite's inputs, and each drilldown's links to
// its neighbours kept apart (see siteFiles). A build that fails leaves
// the last good site served, with an overlay naming the broken file, line
// and field on every page.
//
// Served bytes are the built bytes: the reload script and the overlay are
// injected into HTML responses only, never into the stored site.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/site/serve/livereload"
)

// DefaultAddr is where the server listens unless told otherwise: loopback
// only, so a report under construction is not published by accident.
const DefaultAddr = "127.0.0.1:8080"

// Config describes one server.
type Config struct {
	// Data is the data folder.
	Data string
	// Web holds templates/ and assets/; used when WebDir is "".
	Web fs.FS
	// WebDir, when set, is a folder whose templates/ and assets/ are read
	// instead of Web, and watched.
	WebDir string
	// Addr is the TCP address to listen on; "" means DefaultAddr.
	Addr string
	// Watch rebuilds on every change and reloads the open pages.
	Watch bool
	// Debounce is the quiet time before a rebuild; 0 means DefaultDebounce.
	Debounce time.Duration
	// Log receives one line per build; nil discards them.
	Log io.Writer
	// Ready, when set, is called once the site is served, with its URL.
	Ready func(url string)
	// ReadHeaderTimeout bounds the wait for a request's headers, and
	// IdleTimeout how long a kept-alive connection may wait for its next
	// request; 0 means DefaultReadHeaderTimeout and DefaultIdleTimeout.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
}

// A connection that sends nothing is closed after these times, so that
// idle or slow clients cannot hold the server's connections for ever.
// Event streams are not idle: they stay open while their page does.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
)

// Run serves until ctx is done, then shuts down: the HTTP server, the
// event streams, the watcher and any running build all end before it
// returns. Without Watch, a first build that fails is an error; with it,
// the server starts anyway and shows what to fix.
func Run(ctx context.Context, cfg Config) error {
	return run(ctx, cfg, siteRenderer)
}

func run(ctx context.Context, cfg Config, newRenderer newRendererFunc) error {
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	roots, web, err := resolveRoots(cfg)
	if err != nil {
		return err
	}
	ln, err := listen(cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	hosts, exposed := hostsFor(ln.Addr())
	if exposed {
		where := cfg.Addr
		if actual := ln.Addr().String(); actual != where {
			where += " (" + actual + ")"
		}
		fmt.Fprintf(logw, "warning: serving on %s, which is not a loopback address: anyone who can reach this machine on that address can read the report; use --addr %s to keep it on this machine\n", where, DefaultAddr)
	}

	if cfg.Watch {
		defer keepMemoryLimit()()
		startMemoryLimit()
	}
	s := &server{
		builder: builder{data: cfg.Data, web: web, newRenderer: newRenderer, fitMemory: cfg.Watch, completeLater: cfg.Watch},
		log:     &lineLog{w: logw},
	}
	s.current.Store(&state{generation: uint64(time.Now().UnixMilli())})

	var changes chan change
	var w *watcher
	if cfg.Watch {
		// Watch before the first build, so that nothing saved during it is
		// missed.
		dirs := []string{roots.Data}
		if roots.Web != "" {
			dirs = append(dirs, filepath.Join(roots.Web, "templates"), filepath.Join(roots.Web, "assets"))
		}
		w, err = newWatcher(roots, dirs, s.log.line)
		if err != nil {
			return err
		}
		w.status = s.watchStatus
		changes = make(chan change, 64)
		s.hub = livereload.New(s.current.Load().generation)
	}

	ok := s.rebuild(changeSet{})
	if !ok && !cfg.Watch {
		return s.current.Load().failure
	}

	srv := &http.Server{
		Handler:           &handler{current: &s.current, hub: s.hub, hosts: hosts},
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	// Shutdown waits for connections to go idle. Event streams never do,
	// and a connection a browser opened ahead of need counts as busy for
	// five seconds, so both are ended as soon as shutdown begins.
	fresh := &freshConns{conns: map[net.Conn]struct{}{}}
	srv.ConnState = fresh.track
	srv.RegisterOnShutdown(fresh.closeAll)
	if s.hub != nil {
		srv.RegisterOnShutdown(s.hub.Close)
	}
	var wg sync.WaitGroup
	serveErr := make(chan error, 1)
	wg.Go(func() { serveErr <- srv.Serve(ln) })
	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	if w != nil {
		wg.Go(func() { w.run(loopCtx, changes) })
		loop := &rebuildLoop{debounce: cfg.Debounce, build: func(ch changeSet) { s.rebuild(ch) }}
		wg.Go(func() { loop.run(loopCtx, changes) })
	}
	if cfg.Ready != nil {
		cfg.Ready(siteURL(ln.Addr()))
	}

	var result error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		result = err
	}
	stopLoop()
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		if result == nil {
			result = err
		}
	}
	wg.Wait()
	// No rebuild runs now: the builder is ours.
	s.builder.stop()
	if errors.Is(result, http.ErrServerClosed) {
		result = nil
	}
	return result
}

// resolveRoots makes the watched folders absolute and picks the web files.
func resolveRoots(cfg Config) (watchRoots, fs.FS, error) {
	data, err := filepath.Abs(cfg.Data)
	if err != nil {
		return watchRoots{}, nil, err
	}
	if info, err := os.Stat(data); err != nil || !info.IsDir() {
		// Worded as every command words it.
		if e := load.DataFolderProblem(cfg.Data); e != nil {
			return watchRoots{}, nil, e
		}
		return watchRoots{}, nil, fmt.Errorf("%s: not a folder", cfg.Data)
	}
	roots := watchRoots{Data: data}
	web := cfg.Web
	if cfg.WebDir != "" {
		dir, err := filepath.Abs(cfg.WebDir)
		if err != nil {
			return watchRoots{}, nil, err
		}
		for _, sub := range []string{"templates", "assets"} {
			if info, err := os.Stat(filepath.Join(dir, sub)); err != nil || !info.IsDir() {
				return watchRoots{}, nil, fmt.Errorf("--web %s: it has no %s/ folder", cfg.WebDir, sub)
			}
		}
		roots.Web, web = dir, os.DirFS(dir)
	}
	if web == nil {
		return watchRoots{}, nil, errors.New("serve: no templates given")
	}
	return roots, web, nil
}

// listen opens the address, explaining the usual failure.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%s is already in use; pick another with --addr", addr)
	}
	return ln, err
}

// hostsFor picks the Host headers a server listening on a answers. On a
// loopback address only loopback names are answered; on any other address
// every name is, since the author chose to be reached from elsewhere, and
// exposed says so.
func hostsFor(a net.Addr) (hosts *hostPolicy, exposed bool) {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return nil, true
	}
	if tcp.IP.IsLoopback() {
		return &hostPolicy{port: fmt.Sprint(tcp.Port)}, false
	}
	return nil, true
}

// siteURL is the address to open in a browser.
func siteURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String() + "/"
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(tcp.Port)) + "/"
}

// freshConns tracks connections that have not yet sent a request.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, s http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s == http.StateNew {
		f.conns[c] = struct{}{}
	} else {
		delete(f.conns, c)
	}
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		c.Close()
	}
}

// server ties the builder to what is served.
type server struct {
	builder builder // used only by the goroutine running rebuild
	// publish is held while a new state is made from the current one:
	// rebuilds and the watcher both publish.
	publish sync.Mutex
	current atomic.Pointer[state]
	hub     *livereload.Hub // nil when not watching
	log     *lineLog
}

// rebuild builds, publishes the result and logs one line. It reports
// whether the build succeeded.
func (s *server) rebuild(ch changeSet) bool {
	started := time.Now()
	out, err := s.builder.build(ch)
	took := time.Since(started)
	s.publish.Lock()
	defer s.publish.Unlock()
	prev := s.current.Load()
	next := &state{files: prev.files, failure: err, generation: prev.generation, watchLost: prev.watchLost}
	if err == nil {
		next.files = out.files
	}
	visible := err == nil && out.changed ||
		(err == nil) != (prev.failure == nil) ||
		err != nil && prev.failure != nil && err.Error() != prev.failure.Error()
	if visible {
		next.generation++
	}
	s.current.Store(next)
	// Log before telling browsers, so the line is there when a page
	// reloads.
	s.log.line(logLine(ch, took, out, err, prev.files == nil, prev.failure != nil))
	if visible && s.hub != nil {
		s.hub.Reload(next.generation)
	}
	return err == nil
}

// watchStatus shows on every page whether changes can be seen, and
// reloads the open pages to say so.
func (s *server) watchStatus(problem string) {
	s.publish.Lock()
	defer s.publish.Unlock()
	prev := s.current.Load()
	if prev.watchLost == problem {
		return
	}
	next := *prev
	next.watchLost = problem
	next.generation++
	s.current.Store(&next)
	if s.hub != nil {
		s.hub.Reload(next.generation)
	}
}

// logLine is the one line a build logs, e.g.
// "rebuilt (outputs/candidate-v3.jsonl) in 12ms; candidate-v3: PASS → BLOCK".
// first: no build had succeeded before; recovered: the previous one failed.
func logLine(ch changeSet, took time.Duration, out *outcome, err error, first, recovered bool) string {
	var b strings.Builder
	verb := "rebuilt"
	switch {
	case first && err != nil:
		verb = "build failed"
	case first:
		verb = "built"
	case err != nil:
		verb = "rebuild failed"
	}
	b.WriteString(verb)
	if names := changedNames(ch.Names); names != "" {
		fmt.Fprintf(&b, " (%s)", names)
	}
	fmt.Fprintf(&b, " in %s", took.Round(time.Millisecond))
	if err != nil {
		msg := strings.Join(strings.Fields(err.Error()), " ")
		fmt.Fprintf(&b, ": %s", msg)
		if !first {
			b.WriteString("; still serving the last good site")
		}
		return b.String()
	}
	if first {
		fmt.Fprintf(&b, ": %d files", out.files.len())
		if later := out.files.len() - out.rendered; out.full && later > 0 {
			fmt.Fprintf(&b, " (%d case pages made in the background)", later)
		}
		for i, d := range out.decisions {
			sep := ", "
			if i == 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s %s", sep, d.Label, d.After)
		}
		return b.String()
	}
	if recovered {
		b.WriteString("; the inputs are valid again")
	}
	if !out.changed {
		b.WriteString("; no page changed")
	}
	for _, d := range out.decisions {
		fmt.Fprintf(&b, "; %s", d)
	}
	return b.String()
}

// changedNames lists what changed, a few names at most.
func changedNames(names []string) string {
	const shown = 3
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// lineLog writes whole lines from several goroutines.
type lineLog struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineLog) line(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintln(l.w, s)
}
