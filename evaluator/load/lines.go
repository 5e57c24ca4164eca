package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sync"

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
	// off is how many bytes the lines read so far hold, and start where
	// the last line returned starts, from where reading began.
	off, start int64
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
		l.start = l.off
		l.off += int64(len(line))
		l.n++
		if line = clean(line, l.n); line != nil {
			return line, l.n, nil
		}
		if err == io.EOF {
			return nil, l.n, io.EOF
		}
	}
}

// place is where the line last read lies in the file, for text, that
// line cleaned.
func (l *lineReader) place(text []byte) suite.LinePlace {
	return suite.LinePlace{Offset: l.start, Size: int32(l.off - l.start), Sum: crc32.Checksum(text, castagnoli)}
}

// parseLines parses every line of r with parse on all cores, each core
// with its own decoder, and returns the values in line order. Lines are
// read and handed out in chunks, so memory holds the parsed values, not
// the file; parse must not keep the text it is given, which is reused.
// On failure it returns the error of the earliest bad line, so the
// message does not depend on scheduling. With places set, it appends the
// place of each line parsed, in the order of the values.
func parseLines[T any](lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (T, error), places *[]suite.LinePlace) ([]T, error) {
	type span struct{ end, line int }
	type chunk struct {
		text  []byte // the lines, one after another
		spans []span // where each line ends in text, and its number
		out   []T
		err   error
	}
	const chunkLines, maxReusedChunk = 256, 4 << 20
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *chunk)
	// Parsed chunks hand their text back, so reading a large file
	// allocates a few buffers rather than one per line.
	free := make(chan []byte, 2*workers+2)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			d := newJSONDecoder()
			for c := range jobs {
				c.out = make([]T, 0, len(c.spans))
				start := 0
				for _, sp := range c.spans {
					v, err := parse(d, c.text[start:sp.end], sp.line)
					if err != nil {
						c.err = err
						break
					}
					c.out = append(c.out, v)
					start = sp.end
				}
				if cap(c.text) <= maxReusedChunk { // a huge line's buffer goes
					select {
					case free <- c.text[:0]:
					default:
					}
				}
				c.text, c.spans = nil, nil
			}
		})
	}
	newChunk := func() *chunk {
		select {
		case text := <-free:
			return &chunk{text: text}
		default:
			return &chunk{}
		}
	}
	var chunks []*chunk
	var readErr error
	c := newChunk()
	for {
		text, n, err := lr.next()
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
		c.text = append(c.text, text...)
		c.spans = append(c.spans, span{len(c.text), n})
		if places != nil {
			*places = append(*places, lr.place(text))
		}
		if len(c.spans) == chunkLines {
			chunks = append(chunks, c)
			jobs <- c
			c = newChunk()
		}
	}
	if len(c.spans) > 0 {
		chunks = append(chunks, c)
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	if readErr != nil {
		return nil, readErr
	}
	total := 0
	for _, c := range chunks {
		if c.err != nil {
			return nil, c.err
		}
		total += len(c.out)
	}
	out := make([]T, 0, total)
	for _, c := range chunks {
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
