package load

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// inputsFile reads again the inputs of cases kept as the place of their
// line (Options.CompactInputs), from the cases file held open since it
// was read: a file replaced since is read as it was, and one written over
// is found out by each line's CRC.
type inputsFile struct {
	path   string
	f      *os.File
	parser *caseParser // keeps inputs, for lines the quick scan cannot read
	// readers are an *inputReader each, for one goroutine at a time.
	readers sync.Pool
	// closed is set by Close: a reader may still hold lines read
	// before, which are not to be given out after it.
	closed atomic.Bool
}

// inputReader is what one goroutine reads inputs with.
type inputReader struct {
	d      *jsonDecoder
	window lineWindow
}

// ReadInput returns the input of c as written, read from its line.
func (in *inputsFile) ReadInput(c *suite.Case) (json.RawMessage, error) {
	if in.closed.Load() {
		return nil, fmt.Errorf("%s: line %d: the file was closed, and its inputs can no longer be read", in.path, c.Line)
	}
	return in.readAt(in.f, c)
}

// readAt is ReadInput reading the cases file from f.
func (in *inputsFile) readAt(f io.ReaderAt, c *suite.Case) (json.RawMessage, error) {
	r, _ := in.readers.Get().(*inputReader)
	if r == nil {
		r = &inputReader{d: newJSONDecoder()}
	}
	defer in.readers.Put(r)
	text, err := readLineAt(f, in.path, c.Line, c.InputPlace, &r.window)
	if err != nil {
		return nil, err
	}
	if input, ok := inputText(r.d, text); ok {
		return slices.Clone(input), nil
	}
	whole, err := in.parser.parseLine(r.d, text, c.Line)
	if err != nil {
		return nil, err
	}
	return whole.Input, nil
}

// Close closes the cases file; closing it again does nothing.
func (in *inputsFile) Close() error {
	if in.closed.Swap(true) {
		return nil
	}
	return in.f.Close()
}

// lineWindow holds the bytes of a file last read from it, from off, so
// that the lines after the one asked for are read with it: pages ask for
// the lines of neighbouring cases one after another.
type lineWindow struct {
	off  int64
	data []byte
}

// windowSize is how much of a file a lineWindow reads at least. At
// 100,000 cases × 3 a build reads about 200,000 lines again: one read a
// line costs about 1 µs of processor time each, six times what reading
// them through the window does (BenchmarkFastPathLineWindow; figures in
// docs/design.md, Fast paths).
const windowSize = 64 << 10

// readLineAt reads the line at place from r, the file named file,
// through w, and returns it cleaned, as it was parsed; an error when the
// bytes there are no longer the line read first.
func readLineAt(r io.ReaderAt, file string, line int, at suite.LinePlace, w *lineWindow) ([]byte, error) {
	end := at.Offset + int64(at.Size)
	if at.Offset < w.off || end > w.off+int64(len(w.data)) {
		size := max(int(at.Size), windowSize)
		w.data = slices.Grow(w.data[:0], size)[:size]
		n, err := r.ReadAt(w.data, at.Offset)
		w.off, w.data = at.Offset, w.data[:n]
		if n < int(at.Size) {
			if err != nil && err != io.EOF {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			return nil, changedLine(file, line)
		}
	}
	text := clean(w.data[at.Offset-w.off:end-w.off], line)
	if text == nil || crc32.Checksum(text, castagnoli) != at.Sum {
		return nil, changedLine(file, line)
	}
	return text, nil
}

// changedLine is the error of a line read again that is no longer the
// line read first: the file was written over while it was in use.
func changedLine(file string, line int) error {
	return &suite.InputError{File: file, Line: line, Msg: "the line changed while the site was being made from it",
		Fix: "run the command again once the file is saved (an editor that saves by renaming a new file over the old one does not disturb a build)"}
}

// inputText is the member "input" of a case line read before, as
// written, found by a quick scan of its members; false when its name is
// not written plainly, and the line must be parsed whole.
func inputText(d *jsonDecoder, text []byte) ([]byte, bool) {
	s := newValidScanner(text, d)
	if s.next() != '{' {
		return nil, false
	}
	var input []byte
	s.members(func(name []byte) bool {
		if string(name) != "input" {
			s.skip()
			return true
		}
		if s.next() == '{' {
			start := s.i
			s.skip()
			input = text[start:s.i]
		}
		return false
	})
	return input, input != nil
}
