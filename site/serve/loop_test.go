package serve

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// recordingBuilds records the batches a rebuildLoop hands over; a build
// may be held open with hold.
type recordingBuilds struct {
	mu      sync.Mutex
	batches []changeSet
	started []time.Time
	hold    chan struct{} // when set, each build waits for a value
	running chan struct{} // signalled when a build starts
}

func newRecordingBuilds() *recordingBuilds {
	return &recordingBuilds{running: make(chan struct{}, 100)}
}

func (r *recordingBuilds) build(ch changeSet) {
	r.mu.Lock()
	r.batches = append(r.batches, ch)
	r.started = append(r.started, time.Now())
	hold := r.hold
	r.mu.Unlock()
	r.running <- struct{}{}
	if hold != nil {
		<-hold
	}
}

func (r *recordingBuilds) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.batches)
}

func (r *recordingBuilds) batch(i int) changeSet {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.batches[i]
}

// startLoop runs a loop until the test ends.
func startLoop(t *testing.T, debounce time.Duration, r *recordingBuilds) chan<- change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan change)
	done := make(chan struct{})
	l := &rebuildLoop{debounce: debounce, build: r.build}
	go func() { l.run(ctx, in); close(done) }()
	t.Cleanup(func() {
		cancel()
		r.mu.Lock()
		if r.hold != nil {
			close(r.hold)
			r.hold = nil
		}
		r.mu.Unlock()
		<-done
	})
	return in
}

func snapshotChange(label string) change {
	return change{Kind: snapshotChanged, Label: label, Name: "outputs/" + label + ".jsonl"}
}

func waitBuilds(t *testing.T, r *recordingBuilds, n int) {
	t.Helper()
	eventually(t, 5*time.Second, "builds started", func() bool { return r.count() >= n })
}

// stays checks that no further build starts for a while.
func stays(t *testing.T, r *recordingBuilds, n int, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if got := r.count(); got != n {
		t.Fatalf("%d builds, want exactly %d", got, n)
	}
}

func TestLoopDebouncesABurstIntoOneBuild(t *testing.T) {
	const debounce = 100 * time.Millisecond
	r := newRecordingBuilds()
	in := startLoop(t, debounce, r)
	// One save: several events for one file, and another file with it.
	var last time.Time
	for i := range 20 {
		label := "a"
		if i%5 == 4 {
			label = "b"
		}
		in <- snapshotChange(label)
		last = time.Now()
	}
	waitBuilds(t, r, 1)
	stays(t, r, 1, 3*debounce)
	b := r.batch(0)
	if !b.Labels["a"] || !b.Labels["b"] || len(b.Labels) != 2 {
		t.Errorf("batch labels %v", b.Labels)
	}
	if !slices.Equal(b.Names, []string{"outputs/a.jsonl", "outputs/b.jsonl"}) {
		t.Errorf("batch names %q", b.Names)
	}
	// Trailing: the build waits for the files to be quiet.
	if wait := r.started[0].Sub(last); wait < debounce {
		t.Errorf("build started %s after the last event, before the %s debounce", wait, debounce)
	}
}

func TestLoopChangesDuringABuildCauseExactlyOneMore(t *testing.T) {
	const debounce = 20 * time.Millisecond
	r := newRecordingBuilds()
	r.hold = make(chan struct{})
	in := startLoop(t, debounce, r)

	in <- snapshotChange("a")
	<-r.running // the first build is running and held
	for range 10 {
		in <- snapshotChange("b")
		in <- change{Kind: handoffChanged, Name: "HANDOFF.md"}
	}
	time.Sleep(3 * debounce) // the files went quiet during the build
	stays(t, r, 1, 0)        // one build at a time
	r.hold <- struct{}{}     // end the first build
	<-r.running              // the second starts at once
	r.hold <- struct{}{}
	stays(t, r, 2, 5*debounce)

	if b := r.batch(0); !b.Labels["a"] || b.Labels["b"] {
		t.Errorf("first batch %+v", b)
	}
	if b := r.batch(1); !b.Labels["b"] || b.Labels["a"] || !b.Handoff {
		t.Errorf("second batch %+v, want b and the handoff only", b)
	}
}

func TestLoopChangeLateInABuildWaitsForQuiet(t *testing.T) {
	const debounce = 60 * time.Millisecond
	r := newRecordingBuilds()
	r.hold = make(chan struct{})
	in := startLoop(t, debounce, r)
	in <- snapshotChange("a")
	<-r.running
	in <- snapshotChange("b")
	r.hold <- struct{}{} // the build ends before the files are quiet
	ended := time.Now()
	<-r.running
	r.hold <- struct{}{}
	if wait := time.Since(ended); wait < debounce/2 {
		t.Errorf("second build started %s after the first ended; it should wait for the debounce", wait)
	}
	stays(t, r, 2, 3*debounce)
}

func TestLoopIdleWithoutChanges(t *testing.T) {
	r := newRecordingBuilds()
	startLoop(t, 10*time.Millisecond, r)
	stays(t, r, 0, 100*time.Millisecond)
}

func TestLoopStopsAfterTheRunningBuild(t *testing.T) {
	r := newRecordingBuilds()
	r.hold = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan change)
	done := make(chan struct{})
	l := &rebuildLoop{debounce: time.Millisecond, build: r.build}
	go func() { l.run(ctx, in); close(done) }()
	in <- snapshotChange("a")
	<-r.running
	cancel()
	select {
	case <-done:
		t.Fatal("loop returned while its build was still running")
	case <-time.After(50 * time.Millisecond):
	}
	close(r.hold)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("loop did not return after its build ended")
	}
}

func TestLoopSurvivesClosedInput(t *testing.T) {
	r := newRecordingBuilds()
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan change, 1)
	done := make(chan struct{})
	l := &rebuildLoop{debounce: time.Millisecond, build: r.build}
	go func() { l.run(ctx, in); close(done) }()
	in <- snapshotChange("a")
	close(in)
	waitBuilds(t, r, 1)
	cancel()
	<-done
}
