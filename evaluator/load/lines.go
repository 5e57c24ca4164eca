package load

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
)

// bom is the UTF-8 byte-order mark some editors put before the first line.
var bom = []byte{0xEF, 0xBB, 0xBF}

// lineReader yields the non-blank lines of a JSONL stream with their 1-based
// line numbers. Lines may be of any length; a trailing CR and a leading
// byte-order mark are dropped.
type lineReader struct {
	r    *bufio.Reader
	n    int
	long []byte // reused for lines longer than the buffer
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
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
				l.long = append(l.long, line...)
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

// numbered is one non-blank line and where it stood.
type numbered struct {
	text []byte
	line int
}

// splitLines cuts a whole file into its non-blank lines, without copying.
func splitLines(data []byte) []numbered {
	var out []numbered
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if line = clean(line, n); line != nil {
			out = append(out, numbered{text: line, line: n})
		}
	}
	return out
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

// parseAll parses every line with parse on all cores and returns the values
// in line order. On failure it returns the error of the earliest bad line,
// so the message does not depend on scheduling.
func parseAll[T any](lines []numbered, parse func(text []byte, line int) (T, error)) ([]T, error) {
	out := make([]T, len(lines))
	errs := make([]error, len(lines))
	workers := runtime.GOMAXPROCS(0)
	const chunk = 512
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for start := range next {
				for i := start; i < min(start+chunk, len(lines)); i++ {
					out[i], errs[i] = parse(lines[i].text, lines[i].line)
				}
			}
		}()
	}
	for start := 0; start < len(lines); start += chunk {
		next <- start
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
