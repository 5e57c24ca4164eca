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

// parseLines parses every line of r with parse on all cores, each core
// with its own decoder, and returns the values in line order. Lines are
// read and handed out in chunks, so memory holds the parsed values, not
// the file. On failure it returns the error of the earliest bad line, so
// the message does not depend on scheduling.
func parseLines[T any](lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (T, error)) ([]T, error) {
	type chunk struct {
		lines []numbered
		out   []T
		err   error
	}
	const chunkLines = 256
	jobs := make(chan *chunk)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			d := newJSONDecoder()
			for c := range jobs {
				c.out = make([]T, 0, len(c.lines))
				for _, l := range c.lines {
					v, err := parse(d, l.text, l.line)
					if err != nil {
						c.err = err
						break
					}
					c.out = append(c.out, v)
				}
				c.lines = nil // the text is no longer needed
			}
		})
	}
	var chunks []*chunk
	var readErr error
	c := &chunk{}
	for {
		text, n, err := lr.next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		c.lines = append(c.lines, numbered{text: bytes.Clone(text), line: n})
		if len(c.lines) == chunkLines {
			chunks = append(chunks, c)
			jobs <- c
			c = &chunk{}
		}
	}
	if len(c.lines) > 0 {
		chunks = append(chunks, c)
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	var out []T
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
		out = append(out, c.out...)
	}
	return out, nil
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
