package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watched starts a watcher on a copy of the sample data and returns the
// folder and the changes seen.
func watched(t *testing.T) (data string, changes <-chan change, warnings func() []string) {
	t.Helper()
	data = copyDir(t, sampleData)
	abs, err := filepath.Abs(data)
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	warnCh := make(chan string, 16)
	w, err := newWatcher(watchRoots{Data: abs}, []string{abs}, func(s string) { warnCh <- s })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan change, 1024)
	done := make(chan struct{})
	go func() { w.run(ctx, out); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return abs, out, func() []string {
		for {
			select {
			case s := <-warnCh:
				warned = append(warned, s)
			default:
				return warned
			}
		}
	}
}

// expectChange waits for a change with the given name, skipping others.
func expectChange(t *testing.T, changes <-chan change, want change) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ch := <-changes:
			if ch == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %+v within 5s", want)
		}
	}
}

// drainChanges discards changes until none has come for 200ms.
func drainChanges(changes <-chan change) {
	for {
		select {
		case <-changes:
		case <-time.After(200 * time.Millisecond):
			return
		}
	}
}

// expectQuiet checks that no change arrives for a while.
func expectQuiet(t *testing.T, changes <-chan change) {
	t.Helper()
	select {
	case ch := <-changes:
		t.Fatalf("unexpected change %+v", ch)
	case <-time.After(150 * time.Millisecond):
	}
}

func TestWatcherSeesInPlaceWrites(t *testing.T) {
	data, changes, _ := watched(t)
	p := filepath.Join(data, "outputs", "candidate-v3.jsonl")
	b, _ := os.ReadFile(p)
	writeFile(t, p, firstLines(b, 3))
	expectChange(t, changes, snapshotChange("candidate-v3"))
	writeFile(t, filepath.Join(data, "HANDOFF.md"), []byte("# Handoff\n"))
	expectChange(t, changes, change{Kind: handoffChanged, Name: "HANDOFF.md"})
}

func TestWatcherSurvivesReplaceByRename(t *testing.T) {
	data, changes, _ := watched(t)
	p := filepath.Join(data, "outputs", "candidate-v3.jsonl")
	b, _ := os.ReadFile(p)
	// A file watch would be lost after the first rename; a folder watch
	// sees every one.
	for i := range 3 {
		replaceFile(t, p, firstLines(b, 4+i))
		expectChange(t, changes, snapshotChange("candidate-v3"))
	}
	expectQuiet(t, changes)
}

func TestWatcherIgnoresChmodAndTemporaryFiles(t *testing.T) {
	data, changes, _ := watched(t)
	out := filepath.Join(data, "outputs")
	if err := os.Chmod(filepath.Join(out, "candidate-v3.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".candidate-v3.jsonl.swp", "candidate-v3.jsonl~", "4913", ".#candidate-v3.jsonl", "x.tmp", "notes.txt"} {
		writeFile(t, filepath.Join(out, name), []byte("x"))
		if err := os.Remove(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	expectQuiet(t, changes)
}

func TestWatcherSeesNewSnapshotsAndRemovals(t *testing.T) {
	data, changes, _ := watched(t)
	src := filepath.Join(data, "outputs", "candidate-v3.jsonl")
	b, _ := os.ReadFile(src)
	p := filepath.Join(data, "outputs", "candidate-v4.jsonl")
	writeFile(t, p, b)
	expectChange(t, changes, snapshotChange("candidate-v4"))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	expectChange(t, changes, snapshotChange("candidate-v4"))
}

func TestWatcherWatchesNewFolders(t *testing.T) {
	data, changes, warnings := watched(t)
	out := filepath.Join(data, "outputs")
	saved := filepath.Join(t.TempDir(), "outputs")
	if err := os.Rename(out, saved); err != nil {
		t.Fatal(err)
	}
	expectChange(t, changes, change{Kind: everythingChanged, Name: "outputs/"})
	// The move may be reported more than once: drain it, so that the next
	// change awaited is the new folder's, sent once it is watched.
	drainChanges(changes)
	// A fresh outputs folder: not watched until the watcher adds it.
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	expectChange(t, changes, change{Kind: everythingChanged, Name: "outputs/"})
	time.Sleep(50 * time.Millisecond) // let the watch be added
	b, _ := os.ReadFile(filepath.Join(saved, "candidate-v3.jsonl"))
	writeFile(t, filepath.Join(out, "candidate-v3.jsonl"), b)
	expectChange(t, changes, snapshotChange("candidate-v3"))

	// Nested folders created at once are watched too.
	deep := filepath.Join(data, "archive", "2026", "q4")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if w := warnings(); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
}

func TestTranslateRebuildsEverythingOnOverflow(t *testing.T) {
	events := make(chan fsnotify.Event)
	errs := make(chan error)
	out := make(chan change, 4)
	var warned []string
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	roots := watchRoots{Data: "/d"}
	go func() {
		translate(ctx, events, errs, func(ev fsnotify.Event) (change, bool) { return roots.classify(ev.Name) },
			func(s string) { warned = append(warned, s) }, out)
		close(done)
	}()
	errs <- fsnotify.ErrEventOverflow
	if ch := <-out; ch.Kind != everythingChanged {
		t.Errorf("overflow gave %+v, want Everything", ch)
	}
	errs <- errors.New("disk on fire")
	events <- fsnotify.Event{Name: "/d/cases.jsonl", Op: fsnotify.Chmod}
	events <- fsnotify.Event{Name: "/d/cases.jsonl", Op: fsnotify.Write | fsnotify.Chmod}
	if ch := <-out; ch != (change{Kind: suiteChanged, Name: "cases.jsonl"}) {
		t.Errorf("got %+v", ch)
	}
	cancel()
	<-done
	if len(warned) != 1 || warned[0] != "watching for changes: disk on fire" {
		t.Errorf("warnings %q", warned)
	}
}

// TestWatcherOverflowForReal fills the kernel's event queue while nobody
// reads it, and expects a full rebuild instead of lost changes.
func TestWatcherOverflowForReal(t *testing.T) {
	if testing.Short() {
		t.Skip("creates tens of thousands of files")
	}
	limit, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	if err != nil {
		t.Skip("not inotify")
	}
	var max int
	for _, c := range limit {
		if c >= '0' && c <= '9' {
			max = max*10 + int(c-'0')
		}
	}
	if max > 70000 {
		t.Skipf("max_queued_events is %d; too many files to create", max)
	}
	dir := t.TempDir()
	w, err := newWatcher(watchRoots{Data: dir}, []string{dir}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer w.fs.Close()
	// fsnotify's reader blocks on its unbuffered channel as soon as one
	// event is pending, so the kernel queue fills up. Distinct names: the
	// kernel merges identical consecutive events.
	for i := 0; i < max+100; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := make(chan change, 1<<17)
	done := make(chan struct{})
	go func() { w.run(ctx, out); close(done) }()
	// Draining the queued events first takes seconds on a busy machine;
	// the wait only matters when the overflow is never reported.
	timeout := time.After(60 * time.Second)
	for {
		select {
		case ch := <-out:
			if ch.Kind == everythingChanged {
				cancel()
				<-done
				return
			}
		case <-timeout:
			t.Fatal("no full rebuild after an overflow")
		}
	}
}
