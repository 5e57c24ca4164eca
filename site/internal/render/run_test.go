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
		got := map[string][]byte{}
		var mu sync.Mutex
		err := r.Run(jobs, func(path string, data []byte) error {
			mu.Lock()
			defer mu.Unlock()
			got[path] = data
			return nil
		}, RunOptions{Writers: writers})
		if err != nil {
			t.Fatal(err)
		}
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
