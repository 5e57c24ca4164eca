package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Streaming reads a data folder without holding its cases: the suite's
// cases arrive in batches, in file order, and each snapshot's outputs one
// line at a time, so that a caller that judges as it reads keeps memory
// flat in the size of the suite (docs/design.md, "Scale: streaming
// evaluation"). These readers check only what a well-formed data folder
// needs; they give up on anything else with ErrNotStreamable or an error
// whose wording is not promised. A caller then reads the folder again
// with Suite and Outputs, which word every problem.

// ErrNotStreamable says that a data folder cannot be streamed as it is
// (a duplicate or empty suite, outputs out of suite order, trials): read
// it whole instead.
var ErrNotStreamable = errors.New("the data folder cannot be streamed")

// SuiteStream reads a suite's cases in batches.
type SuiteStream struct {
	// Suite is the suite without its cases: policy, gate, vocabulary and
	// the hashes of POLICY.md and gate.json. CasesSHA256 is set once Each
	// has read every case.
	Suite  *suite.Suite
	dir    string
	path   string
	schema *CaseSchema
}

// OpenSuiteStream reads the policy, schema and thresholds of the data
// folder dir, as Suite does (gates as in Options.Gates), and leaves the
// cases to Each.
func OpenSuiteStream(dir string, gates decide.Gates) (*SuiteStream, error) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, ErrNotStreamable
	}
	read := func(path string, limit int64) ([]byte, string, error) {
		b, err := ReadFile(dir, path, limit)
		if err != nil {
			return nil, "", err
		}
		sum := sha256.Sum256(b)
		return b, hex.EncodeToString(sum[:]), nil
	}
	var policy *suite.Policy
	policySrc, policySum, err := read(filepath.Join(dir, PolicyFile), MaxDocumentBytes)
	if err == nil {
		policy, err = suite.ParsePolicy(filepath.Join(dir, PolicyFile), policySrc)
	} else if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	schemaSrc, _, err := read(filepath.Join(dir, SchemaFile), MaxDocumentBytes)
	if err != nil {
		return nil, err
	}
	schema, err := CompileSchema(filepath.Join(dir, SchemaFile), schemaSrc)
	if err != nil {
		return nil, err
	}
	gatePath := filepath.Join(dir, GateFile)
	gateSrc, gateSum, err := read(gatePath, MaxSmallJSONBytes)
	if err != nil {
		return nil, err
	}
	gate, err := Gate(gatePath, gateSrc, gates)
	if err != nil {
		return nil, err
	}
	s := suite.NewSuite(policy, nil, gate)
	s.Decisions = schema.Decisions
	s.PolicySHA256, s.GateSHA256 = policySum, gateSum
	return &SuiteStream{Suite: s, dir: dir, path: filepath.Join(dir, CasesFile), schema: schema}, nil
}

// Each parses the cases on all cores and calls yield with them in file
// order, a batch at a time; a batch is not touched again once yielded.
// It returns the number of cases. Case ids are checked for uniqueness by
// hash: a repeated hash (a duplicate, or very rarely a collision) gives
// ErrNotStreamable.
func (ss *SuiteStream) Each(yield func(batch []*suite.Case) error) (int, error) {
	f, err := Open(ss.dir, ss.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := sha256.New()
	p := &caseParser{file: ss.path, schema: ss.schema, policy: ss.Suite.Policy, decisions: ss.schema.Decisions}
	seen := make(map[uint64]struct{})
	seed := maphash.MakeSeed()
	n := 0
	err = streamLines(newLineReader(ss.path, io.TeeReader(f, h)), p.parse, func(batch []*suite.Case) error {
		for _, c := range batch {
			k := maphash.String(seed, c.ID)
			if _, dup := seen[k]; dup {
				return ErrNotStreamable
			}
			seen[k] = struct{}{}
		}
		n += len(batch)
		return yield(batch)
	})
	if err != nil {
		return n, err
	}
	if n == 0 {
		return 0, ErrNotStreamable
	}
	ss.Suite.CasesSHA256 = hex.EncodeToString(h.Sum(nil))
	return n, nil
}

// streamLines is parseLines that hands each chunk of parsed lines to
// yield in file order as soon as it and every chunk before it are
// parsed, holding a few chunks at a time rather than the whole file.
func streamLines[T any](lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (T, error), yield func([]T) error) error {
	type span struct{ end, line int }
	type chunk struct {
		text  []byte
		spans []span
		out   []T
		err   error
		done  chan struct{}
	}
	const chunkLines = 256
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan *chunk)
	// ordered holds the chunks in file order; its capacity bounds how far
	// reading runs ahead of yield.
	ordered := make(chan *chunk, 2*workers+2)
	// Parsed chunks hand their text back, as in parseLines, so that the
	// reader does not grow a new buffer for every chunk.
	free := make(chan []byte, cap(ordered)+workers+1)
	stop := make(chan struct{})
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
				recycle(free, c.text)
				c.text, c.spans = nil, nil
				close(c.done)
			}
		})
	}
	var readErr error
	go func() {
		defer close(ordered)
		defer close(jobs)
		newChunk := func() *chunk {
			return &chunk{text: reuse(free), done: make(chan struct{}), spans: make([]span, 0, chunkLines)}
		}
		c := newChunk()
		send := func() bool {
			select {
			case ordered <- c:
			case <-stop:
				return false
			}
			select {
			case jobs <- c:
			case <-stop:
				return false
			}
			c = newChunk()
			return true
		}
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
			if len(c.spans) == chunkLines && !send() {
				return
			}
		}
		if len(c.spans) > 0 {
			send()
		}
	}()
	var err error
	for c := range ordered {
		if err != nil {
			continue
		}
		<-c.done
		if c.err != nil {
			err = c.err
		} else {
			err = yield(c.out)
		}
		if err != nil {
			close(stop)
		}
	}
	wg.Wait()
	if err == nil {
		err = readErr
	}
	return err
}

// recycle hands the text of a parsed chunk back to the reader through
// free, unless free is full or the buffer has grown past 4 MiB for a huge
// line.
func recycle(free chan<- []byte, text []byte) {
	if cap(text) > 4<<20 {
		return
	}
	select {
	case free <- text[:0]:
	default:
	}
}

// reuse takes a buffer from free, or nil when there is none.
func reuse(free <-chan []byte) []byte {
	select {
	case text := <-free:
		return text
	default:
		return nil
	}
}

// OutputStream reads one snapshot's outputs a line at a time.
type OutputStream struct {
	src       SnapshotFile
	file      string
	f         *os.File
	h         hash.Hash
	lr        *lineReader
	d         *jsonDecoder
	decisions suite.Vocabulary
	// sorted, when set, hands out the lines in suite order in place of
	// lr (OpenSortedOutputStream).
	sorted *sortedLines
}

// OpenOutputStream opens the outputs of file for reading with Next;
// decisions are the decisions an output may give.
func OpenOutputStream(file SnapshotFile, decisions suite.Vocabulary) (*OutputStream, error) {
	f, err := file.Open()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	return &OutputStream{src: file, file: file.Path, f: f, h: h, lr: newLineReader(file.Path, io.TeeReader(f, h)), d: newJSONDecoder(), decisions: decisions}, nil
}

// Next parses the next output line, io.EOF after the last. The Output
// is the caller's to keep. A trial above what a snapshot may hold gives
// ErrNotStreamable, for Outputs to word.
func (o *OutputStream) Next() (*suite.Output, error) {
	var text []byte
	var line int
	var err error
	if o.sorted != nil {
		text, line, err = o.sorted.nextLine(o.f)
	} else {
		text, line, err = o.lr.next()
	}
	if err != nil {
		return nil, err
	}
	out, err := parseOutput(o.d, o.file, line, text, o.decisions)
	if err == nil && out.Trial > maxTrial {
		err = ErrNotStreamable
	}
	return out, err
}

// LastTrial is the trial of the file's last line, read from the end of
// the file apart from Next: 0 when it has none, or when the line cannot
// be read at once (a long or bad line, which Next will come to). A
// snapshot whose trials are written trial after trial ends with its
// last trial, so its first case's single line tells it apart from one
// trial a case before the whole file is read.
func (o *OutputStream) LastTrial() int {
	if o.sorted != nil {
		return o.sorted.lastTrial()
	}
	info, err := o.f.Stat()
	if err != nil {
		return 0
	}
	const tail = 64 << 10
	start := max(info.Size()-tail, 0)
	b := make([]byte, info.Size()-start)
	if n, err := o.f.ReadAt(b, start); err != nil && err != io.EOF || n != len(b) {
		return 0
	}
	b = bytes.TrimRight(b, " \t\r\n")
	nl := bytes.LastIndexByte(b, '\n')
	if nl < 0 && start > 0 {
		return 0 // the line starts before the tail
	}
	out, err := parseOutput(newJSONDecoder(), o.file, 0, bytes.TrimSpace(b[nl+1:]), o.decisions)
	if err != nil {
		return 0
	}
	return out.Trial
}

// SHA256 is the hash of the file as read so far: of the whole file once
// Next has returned io.EOF.
func (o *OutputStream) SHA256() string {
	if o.sorted != nil {
		return o.sorted.sha
	}
	return hex.EncodeToString(o.h.Sum(nil))
}

// Missing reports whether a stream read in suite order has no line for
// the case at position p; false for a stream read in file order.
func (o *OutputStream) Missing(p int) bool { return o.sorted != nil && !o.sorted.has(p) }

// Close closes the file.
func (o *OutputStream) Close() error { return o.f.Close() }
