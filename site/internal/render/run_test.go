package render

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// A job's own bytes reach emit as they are, in order with the buffered
// jobs' copies, and an error from one stops the run with that error.
func TestRunHandsOverMadeBytes(t *testing.T) {
	r := &Renderer{}
	own := []byte("results")
	jobs := []Job{
		{path: "a", Make: func(w *bytes.Buffer) error { w.WriteString("page"); return nil }},
		{path: "b", Made: func() ([]byte, error) { return own, nil }},
	}
	for _, writers := range []int{0, 2} {
		got := runAll(t, r, jobs, RunOptions{Writers: writers})
		if string(got["a"]) != "page" || string(got["b"]) != "results" {
			t.Fatalf("writers %d: emitted %q", writers, got)
		}
		if &got["b"][0] != &own[0] {
			t.Errorf("writers %d: a job's own bytes were copied", writers)
		}
	}
	boom := errors.New("boom")
	failing := make([]Job, 50)
	for i := range failing {
		failing[i] = Job{path: fmt.Sprint(i), Made: func() ([]byte, error) { return []byte("x"), nil }}
	}
	failing[20].Made = func() ([]byte, error) { return nil, boom }
	if err := r.Run(failing, func(string, []byte) error { return nil }, RunOptions{}); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	// A job put off for later makes the same bytes through a buffer.
	var b bytes.Buffer
	if err := jobs[1].bufferMake()(&b); err != nil || b.String() != "results" {
		t.Fatalf("bufferMake: %q, %v", b.String(), err)
	}
}

// runAll runs jobs with opts and gives every file emitted by its path.
func runAll(t *testing.T, r *Renderer, jobs []Job, opts RunOptions) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	var mu sync.Mutex
	err := r.Run(jobs, func(path string, data []byte) error {
		mu.Lock()
		defer mu.Unlock()
		got[path] = data
		return nil
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRunSizesLargePages: with the sizes of the last rendering, a large
// page is rendered into a buffer of about its size and handed to emit
// without a copy; no file emitted holds much more memory than its bytes,
// each stays the caller's however it came, and sizes that are wrong
// change no byte.
func TestRunSizesLargePages(t *testing.T) {
	page := func(n int, fill byte) func(w *bytes.Buffer) error {
		return func(w *bytes.Buffer) error {
			for range n / 1024 {
				w.Write(bytes.Repeat([]byte{fill}, 1024)) // a little at a time, as a template writes
			}
			return nil
		}
	}
	const large = 3 << 20
	sizes := map[string]int{"large-a": large, "large-b": large + 7<<10, "small": 4 << 10, "large-c": large}
	var jobs []Job
	for _, p := range []string{"large-a", "large-b", "small", "large-c"} {
		jobs = append(jobs, Job{path: p, Make: page(sizes[p], p[len(p)-1])})
	}
	for _, tc := range []struct {
		name     string
		sizeOf   func(string) int
		handOver bool // the large pages reach emit in the buffer sized for them
	}{
		{"no sizes", nil, false},
		{"last sizes", func(p string) int { return sizes[p] }, true},
		{"sizes too small", func(string) int { return 1 << 20 }, false},
		{"sizes too large", func(string) int { return 64 << 20 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Renderer{} // no buffer pooled yet, as after a collection
			got := runAll(t, r, jobs, RunOptions{SizeOf: tc.sizeOf})
			for _, j := range jobs {
				data := got[j.path]
				if len(data) != sizes[j.path] || bytes.Count(data, data[:1]) != len(data) || data[0] != j.path[len(j.path)-1] {
					t.Fatalf("%s: emitted %d bytes, not the %d it made", j.path, len(data), sizes[j.path])
				}
				if j.path == "small" {
					continue
				}
				// A copy is rounded up to whole pages of memory; a buffer
				// sized from the hint has room for a 64th more.
				spare := cap(data) - len(data)
				if spare > len(data)/32+8192 {
					t.Errorf("%s: %d bytes spare kept with %d", j.path, spare, len(data))
				}
				if tc.handOver && spare < len(data)/64 {
					t.Errorf("%s: %d bytes spare: copied, not handed over in its buffer", j.path, spare)
				}
			}
		})
	}
}
