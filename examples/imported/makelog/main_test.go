package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedLogIsMade checks that runs/support-agent.eval is what
// makelog writes from log/, so the log the example imports is the one
// whose members can be read here.
func TestCommittedLogIsMade(t *testing.T) {
	out := filepath.Join(t.TempDir(), "support-agent.eval")
	if err := write("log", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "runs", "support-agent.eval"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("makelog writes %d bytes that differ from the committed runs/support-agent.eval (%d bytes): run go run ./examples/imported/makelog", len(got), len(want))
	}
}
