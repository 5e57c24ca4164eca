package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"github.com/releasegate/releasegate/evaluator/decide"
)

// isTerminal reports whether w is a terminal, the only place where colour
// and an updating progress line make sense. Being a character device is
// not enough: /dev/null is one too.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// colourAllowed decides whether to colour output: only on a terminal that
// understands it, and never when NO_COLOR is set, whatever its value.
func colourAllowed(terminal, noColorSet bool, term string) bool {
	return terminal && !noColorSet && term != "dumb"
}

// palette colours decision words, or leaves them alone when colour is off.
type palette struct{ on bool }

// paletteFor returns the palette for output written to w, reading the
// environment now rather than keeping it anywhere.
func paletteFor(w io.Writer) palette {
	_, noColor := os.LookupEnv("NO_COLOR")
	return palette{on: colourAllowed(isTerminal(w), noColor, os.Getenv("TERM"))}
}

// decision returns d as a word, coloured when the palette is on: green,
// yellow, bold red.
func (p palette) decision(d decide.Decision) string {
	var code string
	switch d {
	case decide.Pass:
		code = "\x1b[32m"
	case decide.Review:
		code = "\x1b[33m"
	case decide.Block:
		code = "\x1b[1;31m"
	}
	if !p.on || code == "" {
		return string(d)
	}
	return code + string(d) + "\x1b[0m"
}

// lastWord colours the last occurrence of d in line; it is how the
// aligned comparison table gets colour after tabwriter measured it plain.
func (p palette) lastWord(line string, d decide.Decision) string {
	i := strings.LastIndex(line, string(d))
	if !p.on || i < 0 {
		return line
	}
	return line[:i] + p.decision(d) + line[i+len(d):]
}

// newProgress returns the progress callback for a long build (for
// site.BuildOptions.Progress): one stderr line rewritten in place when
// stderr is a terminal, and nothing at all when it is not, or with
// --quiet. The line is cleared when the count reaches the total, so the
// next message starts on a clean line. It is safe for concurrent use.
func newProgress(stderr io.Writer, quiet bool) func(done, total int) {
	if quiet || !isTerminal(stderr) {
		return func(done, total int) {}
	}
	return progressLine(stderr, "writing site")
}

// progressLine draws "label: done/total files (pct%)" on w, redrawing only
// when the percentage changes so a build of many small files does not
// spend its time on the terminal.
func progressLine(w io.Writer, label string) func(done, total int) {
	var mu sync.Mutex
	lastPct := -1
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total <= 0 {
			return
		}
		if done >= total {
			if lastPct >= 0 {
				fmt.Fprint(w, "\r\x1b[K")
			}
			lastPct = -1
			return
		}
		pct := done * 100 / total
		if pct == lastPct {
			return
		}
		lastPct = pct
		fmt.Fprintf(w, "\r\x1b[K%s: %d/%d files (%d%%)", label, done, total, pct)
	}
}
