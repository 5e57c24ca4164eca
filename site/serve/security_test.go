package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	releasegate "github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/serve/livereload"
)

// rawRequest sends one request exactly as written over a new connection
// and returns the response with its body read.
func rawRequest(t *testing.T, addr, request string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%q: %v", request, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func hostOf(url string) string {
	return strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
}

func TestHostPolicy(t *testing.T) {
	p := &hostPolicy{port: "8080"}
	tests := []struct {
		host string
		ok   bool
	}{
		{"localhost:8080", true},
		{"LOCALHOST:8080", true},
		{"localhost.:8080", true},
		{"127.0.0.1:8080", true},
		{"[::1]:8080", true},
		{"evil.example:8080", false},
		{"evil.example", false},
		{"localhost.evil.example:8080", false},
		{"127.0.0.1.nip.io:8080", false},
		{"localhost:8081", false},
		{"127.0.0.1:80", false},
		{"localhost", false}, // port 80, not the server's
		{"[::1]", false},
		{"::1:8080", false},
		{"", false},
		{"[localhost]:8080", false},
		{"10.0.0.1:8080", false},
		{"0.0.0.0:8080", false},
	}
	for _, tt := range tests {
		if got := p.allows(tt.host); got != tt.ok {
			t.Errorf("allows(%q) = %v, want %v", tt.host, got, tt.ok)
		}
	}
	if !(&hostPolicy{port: "80"}).allows("localhost") || !(&hostPolicy{port: "80"}).allows("[::1]") {
		t.Error("a server on port 80 refuses a Host without a port")
	}
}

func FuzzHostPolicy(f *testing.F) {
	for _, h := range []string{"localhost:8080", "[::1]:8080", "evil.example", "127.0.0.1:8080", "[::1]"} {
		f.Add(h)
	}
	p := &hostPolicy{port: "8080"}
	f.Fuzz(func(t *testing.T, host string) {
		if !p.allows(host) {
			return
		}
		name, port, err := net.SplitHostPort(host)
		if err != nil || port != "8080" {
			t.Fatalf("allowed %q: not a host with the server's port", host)
		}
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if name != "localhost" && !(net.ParseIP(name) != nil && net.ParseIP(name).IsLoopback()) {
			t.Fatalf("allowed %q: not a loopback name", host)
		}
	})
}

// TestServerRefusesForeignHosts is the DNS-rebinding probe: a page on
// evil.example whose name now resolves to 127.0.0.1 asks for the report.
func TestServerRefusesForeignHosts(t *testing.T) {
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake})
	addr := hostOf(ts.url)
	_, port, _ := net.SplitHostPort(addr)
	for _, path := range []string{"/", "/index.html", livereload.ScriptPath, livereload.EventsPath, "/results/candidate-v3.json"} {
		for _, host := range []string{"evil.example", "evil.example:" + port, "localhost.evil.example:" + port, "127.0.0.1:1"} {
			resp, body := rawRequest(t, addr, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
			if resp.StatusCode != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with Host %s: status %d, want 421", path, host, resp.StatusCode)
			}
			if strings.Contains(body, "candidate-v3") || strings.Contains(body, "PASS") {
				t.Errorf("GET %s with Host %s leaked the report: %.80q", path, host, body)
			}
		}
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "LocalHost:" + port} {
		resp, body := rawRequest(t, addr, "GET / HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "candidate-v3") {
			t.Errorf("GET / with Host %s: status %d, want the overview", host, resp.StatusCode)
		}
	}
}

// TestSecurityHeadersOnEveryResponse checks pages, assets, errors and the
// live-reload endpoints.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake})
	addr := hostOf(ts.url)
	want := map[string]string{
		"Content-Security-Policy": render.HeaderPolicy,
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Referrer-Policy":         "no-referrer",
	}
	requests := []string{
		"GET / HTTP/1.1\r\nHost: " + addr + "\r\n",
		"HEAD /index.html HTTP/1.1\r\nHost: " + addr + "\r\n",
		"GET /assets/site.css HTTP/1.1\r\nHost: " + addr + "\r\n",
		"GET /missing.html HTTP/1.1\r\nHost: " + addr + "\r\n",
		"GET " + livereload.ScriptPath + " HTTP/1.1\r\nHost: " + addr + "\r\n",
		"POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 0\r\n",
		"GET / HTTP/1.1\r\nHost: evil.example\r\n",
	}
	for _, r := range requests {
		resp, _ := rawRequest(t, addr, r+"Connection: close\r\n\r\n")
		for k, v := range want {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("%s → %d: %s = %q, want %q", strings.SplitN(r, "\r\n", 2)[0], resp.StatusCode, k, got, v)
			}
		}
	}
	// The event stream answers with its headers before its first event.
	req, _ := http.NewRequest(http.MethodGet, ts.url+strings.TrimPrefix(livereload.EventsPath, "/"), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, err := ts.client.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("event stream: %s = %q, want %q", k, got, v)
		}
	}
	cancel()
	resp.Body.Close()
	// The policy a page carries is the header's, but for frame-ancestors.
	if !strings.HasPrefix(render.HeaderPolicy, render.ContentSecurityPolicy+"; ") || !strings.Contains(render.HeaderPolicy, "frame-ancestors 'none'") {
		t.Errorf("header policy %q does not extend the pages' %q", render.HeaderPolicy, render.ContentSecurityPolicy)
	}
}

// TestOnlyGetAndHeadEverywhere sends every other method to pages and to
// the live-reload endpoints.
func TestOnlyGetAndHeadEverywhere(t *testing.T) {
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake})
	addr := hostOf(ts.url)
	for _, path := range []string{"/", "/index.html", "/missing.html", livereload.ScriptPath, livereload.EventsPath} {
		for _, method := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"} {
			resp, _ := rawRequest(t, addr, method+" "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q; want 405 with GET, HEAD", method, path, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	}
}

// startTimedServer runs a server with short timeouts.
func startTimedServer(t *testing.T, readHeader, idle time.Duration) string {
	t.Helper()
	fake, _ := fakeRenderers()
	ready := make(chan string, 1)
	cfg := Config{Data: copyDir(t, sampleData), Web: releasegate.Web(), Addr: "127.0.0.1:0",
		ReadHeaderTimeout: readHeader, IdleTimeout: idle, Ready: func(u string) { ready <- u }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, fake) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case u := <-ready:
		return hostOf(u)
	case err := <-done:
		t.Fatalf("server stopped: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server not ready")
	}
	return ""
}

// closedWithin reports how long the server took to close conn, failing
// after limit.
func closedWithin(t *testing.T, conn net.Conn, r *bufio.Reader, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	conn.SetReadDeadline(start.Add(limit))
	_, err := r.ReadByte()
	took := time.Since(start)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("connection still open after %s", limit)
	}
	if err == nil {
		t.Fatal("the server sent more than asked for")
	}
	return took
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	addr := startTimedServer(t, 400*time.Millisecond, idle)

	// A kept-alive connection after one request.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.Close {
		t.Fatal("the server closed a keep-alive connection at once")
	}
	if took := closedWithin(t, conn, r, 5*time.Second); took < idle/2 {
		t.Errorf("closed after %s, before the idle timeout of %s", took, idle)
	}

	// A connection that never finishes its headers.
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fmt.Fprintf(slow, "GET / HTTP/1.1\r\nHost: %s\r\n", addr)
	closedWithin(t, slow, bufio.NewReader(slow), 5*time.Second)
}

func TestNonLoopbackAddressWarns(t *testing.T) {
	fake, _ := fakeRenderers()
	log := &syncBuffer{}
	ready := make(chan string, 1)
	cfg := Config{Data: copyDir(t, sampleData), Web: releasegate.Web(), Addr: "0.0.0.0:0", Log: log, Ready: func(u string) { ready <- u }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, fake) }()
	select {
	case <-ready:
	case err := <-done:
		if errors.Is(err, os.ErrPermission) {
			t.Skip("cannot listen on every interface here")
		}
		t.Fatalf("server stopped: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := log.String()
	if !strings.Contains(got, "warning: serving on 0.0.0.0:") || !strings.Contains(got, "not a loopback address") {
		t.Errorf("no warning naming the address; log:\n%s", got)
	}

	// On loopback, no warning.
	log2 := &syncBuffer{}
	fake2, _ := fakeRenderers()
	ts := Config{Data: cfg.Data, Web: releasegate.Web(), Addr: "127.0.0.1:0", Log: log2, Ready: func(string) { cancel() }}
	ctx2, cancel2 := context.WithCancel(context.Background())
	ts.Ready = func(string) { cancel2() }
	if err := run(ctx2, ts, fake2); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log2.String(), "warning") {
		t.Errorf("warning on loopback: %s", log2.String())
	}
}
