package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
)

func TestColourAllowed(t *testing.T) {
	tests := []struct {
		name       string
		terminal   bool
		noColorSet bool
		term       string
		want       bool
	}{
		{"terminal", true, false, "xterm-256color", true},
		{"terminal without TERM", true, false, "", true},
		{"not a terminal", false, false, "xterm", false},
		{"NO_COLOR set", true, true, "xterm", false},
		{"dumb terminal", true, false, "dumb", false},
	}
	for _, tt := range tests {
		if got := colourAllowed(tt.terminal, tt.noColorSet, tt.term); got != tt.want {
			t.Errorf("%s: colourAllowed = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPalette(t *testing.T) {
	on, off := palette{on: true}, palette{}
	tests := []struct {
		d    decide.Decision
		want string
	}{
		{decide.Pass, "\x1b[32mPASS\x1b[0m"},
		{decide.Review, "\x1b[33mREVIEW\x1b[0m"},
		{decide.Block, "\x1b[1;31mBLOCK\x1b[0m"},
	}
	for _, tt := range tests {
		if got := on.decision(tt.d); got != tt.want {
			t.Errorf("coloured %s = %q, want %q", tt.d, got, tt.want)
		}
		if got := off.decision(tt.d); got != string(tt.d) {
			t.Errorf("plain %s = %q", tt.d, got)
		}
	}
	// The label "PASS-candidate" must not be coloured, only the last word.
	line := "PASS-candidate  12/12  PASS  \n"
	if got, want := on.lastWord(line, decide.Pass), "PASS-candidate  12/12  \x1b[32mPASS\x1b[0m  \n"; got != want {
		t.Errorf("lastWord = %q, want %q", got, want)
	}
	if got := off.lastWord(line, decide.Pass); got != line {
		t.Errorf("lastWord without colour changed the line: %q", got)
	}
}

func TestNoColourWhenNotATerminal(t *testing.T) {
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	os.Unsetenv("NO_COLOR") // restored after the test by Setenv
	var buf bytes.Buffer
	if paletteFor(&buf).on {
		t.Error("colour for a buffer")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) || paletteFor(f).on {
		t.Error("a regular file taken for a terminal")
	}
}

// TestDevNullIsNotATerminal: /dev/null is a character device, but output
// sent there must get neither colour nor a progress line.
func TestDevNullIsNotATerminal(t *testing.T) {
	t.Setenv("TERM", "xterm")
	t.Setenv("NO_COLOR", "")
	os.Unsetenv("NO_COLOR") // restored after the test by Setenv
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is not a character device here, so this test proves nothing", os.DevNull)
	}
	if isTerminal(f) {
		t.Errorf("%s taken for a terminal", os.DevNull)
	}
	if paletteFor(f).on {
		t.Errorf("colour for %s", os.DevNull)
	}
}

func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := progressLine(&buf, "writing site")
	for done := 0; done <= 400; done++ {
		p(done, 400)
	}
	out := buf.String()
	if strings.Contains(out, "\n") {
		t.Errorf("progress wrote a line break: %q", out)
	}
	if n := strings.Count(out, "\r\x1b[K"); n != 101 {
		// 100 percentages (0..99) drawn, then one clear at the end.
		t.Errorf("drew %d times, want 101 (once per percent, then cleared)", n)
	}
	if !strings.Contains(out, "writing site: 200/400 files (50%)") {
		t.Errorf("no half-way line in %q", out)
	}
	if !strings.HasSuffix(out, "(99%)\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", out[len(out)-40:])
	}
}

func TestProgressIsConcurrencySafe(t *testing.T) {
	var buf bytes.Buffer
	p := progressLine(&buf, "x")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				p(i*100+j, 1000)
			}
		})
	}
	wg.Wait()
	if buf.Len() == 0 {
		t.Error("no progress drawn")
	}
}

func TestProgressSilentOffTerminal(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		var buf bytes.Buffer
		p := newProgress(&buf, quiet)
		for done := 0; done <= 10; done++ {
			p(done, 10)
		}
		if buf.Len() != 0 {
			t.Errorf("quiet=%v: progress written to a non-terminal: %q", quiet, buf.String())
		}
	}
}
