package livereload

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestInject(t *testing.T) {
	const x = "<X>"
	tests := []struct {
		name, page, want string
	}{
		{"before the closing body tag", "<html><body><p>hi</p></body></html>", "<html><body><p>hi</p><X></body></html>"},
		{"upper case tag", "<HTML><BODY>hi</BODY></HTML>", "<HTML><BODY>hi<X></BODY></HTML>"},
		{"mixed case tag", "<body>hi</Body>\n", "<body>hi<X></Body>\n"},
		{"the last of several", "<pre>&lt;/body&gt;</body>x</body>", "<pre>&lt;/body&gt;</body>x<X></body>"},
		{"literal body tag in a script is not the last", "<script>'</body>'</script></body>", "<script>'</body>'</script><X></body>"},
		{"no closing tag: appended", "<p>fragment", "<p>fragment<X>"},
		{"empty page", "", "<X>"},
		{"tag split across nothing", "</bod", "</bod<X>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := []byte(tt.page)
			got := Inject(page, []byte(x))
			if string(got) != tt.want {
				t.Errorf("Inject(%q) = %q, want %q", tt.page, got, tt.want)
			}
			if string(page) != tt.page {
				t.Errorf("Inject modified its input: %q", page)
			}
		})
	}
}

func FuzzInject(f *testing.F) {
	f.Add([]byte("<html><body>x</body></html>"), []byte("<script></script>"))
	f.Add([]byte("</BODY></body>"), []byte(""))
	f.Add([]byte(""), []byte("x"))
	f.Fuzz(func(t *testing.T, page, extra []byte) {
		orig := bytes.Clone(page)
		got := Inject(page, extra)
		if !bytes.Equal(page, orig) {
			t.Fatal("input modified")
		}
		if len(got) != len(page)+len(extra) {
			t.Fatalf("length %d, want %d", len(got), len(page)+len(extra))
		}
		// Removing extra where it was put gives the page back.
		at := lastIndexFold(page, []byte("</body>"))
		if at < 0 {
			at = len(page)
		}
		if !bytes.Equal(got[at:at+len(extra)], extra) {
			t.Fatalf("extra not at %d", at)
		}
		back := append(bytes.Clone(got[:at]), got[at+len(extra):]...)
		if !bytes.Equal(back, page) {
			t.Fatal("page not preserved around the insertion")
		}
		// Nothing after the insertion point is a closing body tag except
		// the one it precedes.
		if rest := got[at+len(extra):]; lastIndexFold(rest, []byte("</body>")) > 0 {
			t.Fatal("inserted before an earlier </body>")
		}
	})
}

func TestSnippet(t *testing.T) {
	got := string(Snippet(1700000000123))
	want := `<script src="/__releasegate/reload.js" data-generation="1700000000123"></script>`
	if got != want {
		t.Errorf("Snippet = %s, want %s", got, want)
	}
}

func TestScriptListensForBothEvents(t *testing.T) {
	s := string(Script())
	for _, want := range []string{`new EventSource("` + EventsPath + `")`, `"hello"`, `"reload"`, "location.reload()", "data-generation"} {
		if !strings.Contains(s, want) {
			t.Errorf("reload.js lacks %s", want)
		}
	}
}

// event is one Server-Sent Event.
type event struct{ name, data string }

// stream connects to the hub and returns its events.
func stream(t *testing.T, url string) (<-chan event, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	out := make(chan event, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					out <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.name = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				ev.data = line[len("data: "):]
			}
		}
	}()
	return out, func() {
		cancel()
		<-done
		http.DefaultClient.CloseIdleConnections()
	}
}

func next(t *testing.T, events <-chan event) event {
	t.Helper()
	select {
	case ev, ok := <-events:
		if !ok {
			t.Fatal("stream ended")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return event{}
}

func TestHubAnnouncesGenerations(t *testing.T) {
	hub := New(41)
	srv := httptest.NewServer(hub)
	defer srv.Close()
	defer hub.Close()

	a, stopA := stream(t, srv.URL)
	defer stopA()
	b, stopB := stream(t, srv.URL)
	defer stopB()
	for _, events := range []<-chan event{a, b} {
		if ev := next(t, events); ev != (event{"hello", "41"}) {
			t.Fatalf("first event %+v, want hello 41", ev)
		}
	}
	if n := hub.Clients(); n != 2 {
		t.Fatalf("%d clients, want 2", n)
	}
	hub.Reload(42)
	for _, events := range []<-chan event{a, b} {
		if ev := next(t, events); ev != (event{"reload", "42"}) {
			t.Fatalf("got %+v, want reload 42", ev)
		}
	}
	if g := hub.Generation(); g != 42 {
		t.Errorf("Generation() = %d", g)
	}
}

func TestHubCoalescesUnreadReloads(t *testing.T) {
	hub := New(1)
	// Not connected: Reload must never block, however many come.
	for g := uint64(2); g < 1000; g++ {
		hub.Reload(g)
	}
	srv := httptest.NewServer(hub)
	defer srv.Close()
	defer hub.Close()
	events, stop := stream(t, srv.URL)
	defer stop()
	if ev := next(t, events); ev != (event{"hello", "999"}) {
		t.Fatalf("got %+v, want hello 999", ev)
	}
	// A burst while connected ends with the newest generation.
	for g := uint64(1000); g <= 1100; g++ {
		hub.Reload(g)
	}
	for {
		ev := next(t, events)
		if ev.name != "reload" {
			t.Fatalf("got %+v", ev)
		}
		if ev.data == "1100" {
			break
		}
	}
}

func TestHubCloseEndsStreams(t *testing.T) {
	hub := New(7)
	srv := httptest.NewServer(hub)
	defer srv.Close()
	events, stop := stream(t, srv.URL)
	defer stop()
	next(t, events) // hello
	hub.Close()
	select {
	case ev, ok := <-events:
		if ok {
			t.Fatalf("got %+v after Close, want the stream to end", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stream still open 5s after Close")
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: status %d, want 503", resp.StatusCode)
	}
	hub.Close() // a second Close is harmless
	eventuallyZero(t, hub)
}

func eventuallyZero(t *testing.T, hub *Hub) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for hub.Clients() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d clients still subscribed", hub.Clients())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHubForgetsDisconnectedPages(t *testing.T) {
	hub := New(1)
	srv := httptest.NewServer(hub)
	defer srv.Close()
	defer hub.Close()
	events, stop := stream(t, srv.URL)
	next(t, events)
	stop()
	eventuallyZero(t, hub)
}

func BenchmarkInject(b *testing.B) {
	page := bytes.Repeat([]byte("<p>row</p>\n"), 10000)
	page = append(page, "</body></html>\n"...)
	extra := Snippet(1)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		Inject(page, extra)
	}
}
