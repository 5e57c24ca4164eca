package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// bom is the UTF-8 byte-order mark some editors put before the first line.
var bom = []byte{0xEF, 0xBB, 0xBF}

// lineReader yields the non-blank lines of a JSONL stream with their 1-based
// line numbers. Lines may be of any length; a trailing CR and a leading
// byte-order mark are dropped.
type lineReader struct {
	file string
	r    *bufio.Reader
	n    int
	long []byte // reused for lines longer than the buffer
	max  int    // the longest line accepted, MaxLineBytes
}

func newLineReader(file string, r io.Reader) *lineReader {
	return &lineReader{file: file, r: bufio.NewReaderSize(r, 64<<10), max: MaxLineBytes}
}

// next returns the next non-blank line, valid until the following call, or
// io.EOF.
func (l *lineReader) next() ([]byte, int, error) {
	for {
		line, err := l.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			l.long = append(l.long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = l.r.ReadSlice('\n')
				need := len(l.long) + len(line)
				if need > l.max+2 { // +2: the line end is not counted
					l.long = nil
					return nil, l.n + 1, &suite.InputError{File: l.file, Line: l.n + 1, Msg: fmt.Sprintf("line longer than the limit of %s", sizeText(int64(l.max)))}
				}
				if need > cap(l.long) { // double, but never past the limit
					l.long = slices.Grow(l.long, min(max(need, 2*cap(l.long)), l.max+2)-len(l.long))
				}
				l.long = append(l.long, line...)
			}
			if len(bytes.TrimRight(l.long, "\r\n")) > l.max {
				l.long = nil
				return nil, l.n + 1, &suite.InputError{File: l.file, Line: l.n + 1, Msg: fmt.Sprintf("line longer than the limit of %s", sizeText(int64(l.max)))}
			}
			line = l.long
		}
		if err != nil && err != io.EOF {
			return nil, l.n, err
		}
		if len(line) == 0 && err == io.EOF {
			return nil, l.n, io.EOF
		}
		l.n++
		if line = clean(line, l.n); line != nil {
			return line, l.n, nil
		}
		if err == io.EOF {
			return nil, l.n, io.EOF
		}
	}
}

// parseLines parses every line of lr with parse, one after another on
// one decoder, and returns the values in line order; parse must not keep
// the text it is given, which is reused. It stops at the first bad line.
// Parsing in chunks on all cores was dropped: it spent more processor
// time and saved no wall time (see "Fast paths" in docs/design.md).
func parseLines[T any](lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (T, error)) ([]T, error) {
	d := newJSONDecoder()
	var out []T
	for {
		text, n, err := lr.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		v, err := parse(d, text, n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// clean drops a leading byte-order mark from line 1 and the line end, and
// returns nil for a blank line.
func clean(line []byte, n int) []byte {
	if n == 1 {
		line = bytes.TrimPrefix(line, bom)
	}
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	return line
}
