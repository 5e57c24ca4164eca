package load

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"hash/maphash"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// A snapshot whose outputs are not in suite order is streamed in suite
// order all the same (docs/design.md, "Scale: streaming evaluation").
// ReadCaseOrder reads the suite's case ids once, keeping a hash of each
// and its position. OpenSortedOutputStream then reads the snapshot's
// lines once, for its SHA-256 and, for each line, its case's position,
// its trial, where its text lies and a CRC-32C of it. The lines are
// handed out sorted by case and trial, read again from the file a window
// at a time, each window gathered in one pass over the file. A line read
// otherwise than it was summed (the file changed meanwhile) gives
// ErrNotStreamable, so that the results file's hash stands for the bytes
// judged.

// A window holds an eighth of the lines' text, so that the file is read
// at most nine times in all, but at least sortWindowBytes: a window is
// gathered by reading the file from its first line to its last, and the
// lines of a shuffled file are spread all over it.
const (
	sortWindowBytes = 8 << 20
	sortWindows     = 8
)

// CaseOrder is where each case of a suite stands, by a hash of its id.
type CaseOrder struct {
	seed maphash.Seed
	pos  map[uint64]uint32
	n    int
}

// ReadCaseOrder reads the case ids of the suite in the data folder dir.
// Any line whose id cannot be read at once, and two ids of the same hash
// (a duplicate, or very rarely a collision), give ErrNotStreamable: the
// suite's own reading words what is wrong.
func ReadCaseOrder(dir string) (*CaseOrder, error) {
	path := filepath.Join(dir, CasesFile)
	f, err := Open(dir, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &CaseOrder{seed: maphash.MakeSeed(), pos: make(map[uint64]uint32)}
	lr := newLineReader(path, f)
	d := newJSONDecoder()
	for {
		text, _, err := lr.next()
		if err == io.EOF {
			return o, nil
		}
		if err != nil {
			return nil, ErrNotStreamable
		}
		id, ok := d.caseID(text)
		k := maphash.Bytes(o.seed, id)
		if _, dup := o.pos[k]; !ok || dup {
			return nil, ErrNotStreamable
		}
		o.pos[k] = uint32(o.n)
		o.n++
	}
}

// Len is the number of cases.
func (o *CaseOrder) Len() int { return o.n }

// Position is where the case of id stands, false for an id of no case.
// Two ids may share a hash, so the caller checks that the case at the
// position it gets has id.
func (o *CaseOrder) Position(id string) (int, bool) {
	p, ok := o.pos[maphash.String(o.seed, id)]
	return int(p), ok
}

// caseID reads the case_id of a case line: at once when the line starts
// with it, as most writers put it, and otherwise by reading the line's
// members, which checks the line too. False when the line has no string
// case_id, or is not read at once.
func (d *jsonDecoder) caseID(text []byte) ([]byte, bool) {
	if id, ok := leadingID(text); ok {
		return id, true
	}
	id, _, ok := d.lineKey(text)
	return id, ok
}

// leadingID is the case_id a line starts with, as most writers put it:
// false unless the line starts {"case_id":" and the id holds no escape.
// The first member of an object is never a repeat, and a line that is
// bad further on is refused when it is read whole.
func leadingID(text []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(text, []byte(`{"case_id":"`))
	if !ok {
		return nil, false
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 || slices.ContainsFunc(rest[:i], func(c byte) bool { return c == '\\' || c < 0x20 }) {
		return nil, false
	}
	return rest[:i], true
}

// sortKey is lineKey for the lines of a snapshot read in suite order,
// which are read again whole, and checked, as they are judged: a line
// that starts with its case_id and either names no "trial" or ends with
// it ("trial":2}) is read no further. An id or trial read wrong here
// puts a line where the output read whole does not answer, which sends
// the folder to the whole evaluation.
func (d *jsonDecoder) sortKey(text []byte) (id []byte, trial int, ok bool) {
	id, ok = leadingID(text)
	if !ok {
		return d.lineKey(text)
	}
	name := []byte(`"trial":`)
	i := bytes.Index(text, name)
	if i < 0 && !bytes.Contains(text, []byte(`"trial"`)) {
		return id, 0, true
	}
	if i < 0 || bytes.LastIndex(text, name) != i {
		return d.lineKey(text)
	}
	digits, closed := bytes.CutSuffix(text[i+len(name):], []byte("}"))
	if !closed || len(digits) == 0 || slices.ContainsFunc(digits, func(c byte) bool { return c < '0' || c > '9' }) {
		return d.lineKey(text)
	}
	if trial, ok = parseTrial(digits); !ok {
		return d.lineKey(text)
	}
	return id, trial, true
}

// lineKey reads the case_id and trial (0 without one) of a case or
// output line, checking the whole line; false when the line is invalid,
// is not an object, has no string case_id, or has a trial that is not a
// whole number from 1 to maxTrial.
func (d *jsonDecoder) lineKey(text []byte) (id []byte, trial int, ok bool) {
	found := false
	d.names = d.names[:0]
	d.ends.stop()
	s := &validScanner{b: text, d: d, check: true}
	read := s.checkedMembers(func(member []byte) bool {
		switch string(member) {
		case "case_id":
			if s.space(); s.checkedNext() != '"' {
				return false
			}
			id, found = append(id[:0], s.checkedText()...), true
		case "trial":
			s.space()
			var good bool
			if trial, good = parseTrial(s.checkedNumber()); !good {
				return false
			}
		default:
			s.checkedSkip()
		}
		return true
	})
	if !read || !found || !s.checkedEnd() {
		return nil, 0, false
	}
	return id, trial, true
}

// sortedLine is one non-blank line of a snapshot read in suite order.
type sortedLine struct {
	off   int64  // where its text starts in the file
	n     uint32 // its length, without the line end
	line  uint32 // its line number
	pos   uint32 // its case's position
	trial uint32
	sum   uint32 // CRC-32C of its text
}

// sortedLines hands out a snapshot's lines in suite order, a window of
// them at a time.
type sortedLines struct {
	lines   []sortedLine // by case position, then trial
	present []uint64     // a bit for each case position with a line
	next    int          // the next line to hand out
	sha     string       // of the file, as read whole
	// window holds lines[from:to], one after another, the text of
	// lines[i] ending at ends[i-from].
	window   []byte
	limit    int // the most bytes of text a window holds, but for a longer line
	ends     []int
	from, to int
	chunk    []byte // a stretch of the file, read while gathering a window
}

// OpenSortedOutputStream opens the outputs of file to be read with Next
// in suite order, cases telling where each case stands: by case, then by
// trial. It reads the file whole first. Lines that cannot be read at
// once, an id of no case, two lines of the same case and trial, and
// lines with trials that leave a case without any give ErrNotStreamable,
// for Outputs to word.
func OpenSortedOutputStream(file SnapshotFile, decisions suite.Vocabulary, cases *CaseOrder) (*OutputStream, error) {
	f, err := file.Open()
	if err != nil {
		return nil, err
	}
	sl, err := sortLines(file.Path, f, cases)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &OutputStream{src: file, file: file.Path, f: f, d: newJSONDecoder(), decisions: decisions, sorted: sl}, nil
}

// sortLines reads f whole and sorts its lines by case and trial.
func sortLines(path string, f *os.File, cases *CaseOrder) (*sortedLines, error) {
	h := sha256.New()
	lr := newLineReader(path, io.TeeReader(f, h))
	d := newJSONDecoder()
	sl := &sortedLines{present: make([]uint64, (cases.n+63)/64)}
	var total int64 // the lines' text
	trials := false
	for {
		text, line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil || len(text) > math.MaxUint32 || line > math.MaxUint32 {
			return nil, ErrNotStreamable
		}
		id, trial, ok := d.sortKey(text)
		if !ok {
			return nil, ErrNotStreamable
		}
		p, ok := cases.pos[maphash.Bytes(cases.seed, id)]
		if !ok {
			return nil, ErrNotStreamable
		}
		off := lr.start
		if line == 1 && fileStartsWithBOM(f) {
			off += int64(len(bom))
		}
		trials = trials || trial != 0
		total += int64(len(text))
		sl.present[p/64] |= 1 << (p % 64)
		sl.lines = append(sl.lines, sortedLine{off: off, n: uint32(len(text)), line: uint32(line), pos: p, trial: uint32(trial), sum: crc32.Checksum(text, castagnoli)})
	}
	sl.sha = hex.EncodeToString(h.Sum(nil))
	sl.limit = int(max(sortWindowBytes, total/sortWindows+1))
	slices.SortFunc(sl.lines, byKey)
	for i := 1; i < len(sl.lines); i++ {
		if byKey(sl.lines[i-1], sl.lines[i]) == 0 {
			return nil, ErrNotStreamable
		}
	}
	if trials && sl.answered() < cases.n {
		return nil, ErrNotStreamable
	}
	return sl, nil
}

// fileStartsWithBOM reports whether f starts with a byte-order mark, which
// the line reader drops from the first line.
func fileStartsWithBOM(f *os.File) bool {
	b := make([]byte, len(bom))
	n, _ := f.ReadAt(b, 0)
	return n == len(b) && bytes.Equal(b, bom)
}

// byKey orders lines by case position, then trial.
func byKey(a, b sortedLine) int {
	return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.trial, b.trial))
}

// answered is the number of case positions with a line.
func (sl *sortedLines) answered() int {
	n := 0
	for _, w := range sl.present {
		n += bits.OnesCount64(w)
	}
	return n
}

// has reports whether the case at position p has a line.
func (sl *sortedLines) has(p int) bool {
	return p/64 < len(sl.present) && sl.present[p/64]&(1<<(p%64)) != 0
}

// nextLine returns the next line's text, valid until the window moves
// on, and its line number; io.EOF after the last.
func (sl *sortedLines) nextLine(f *os.File) ([]byte, int, error) {
	if sl.next == len(sl.lines) {
		return nil, 0, io.EOF
	}
	if sl.next == sl.to {
		if err := sl.gather(f); err != nil {
			return nil, 0, err
		}
	}
	i := sl.next - sl.from
	start := 0
	if i > 0 {
		start = sl.ends[i-1]
	}
	l := sl.lines[sl.next]
	sl.next++
	return sl.window[start:sl.ends[i]], int(l.line), nil
}

// gather reads the window of lines from sl.next: as many as fit in
// sl.limit, at least one, read in the order they stand in the file, a
// stretch of it at a time.
func (sl *sortedLines) gather(f *os.File) error {
	sl.from, sl.to = sl.next, sl.next
	size := 0
	for sl.to < len(sl.lines) && (sl.to == sl.from || size+int(sl.lines[sl.to].n) <= sl.limit) {
		size += int(sl.lines[sl.to].n)
		sl.to++
	}
	sl.window = slices.Grow(sl.window[:0], size)[:size]
	sl.ends = sl.ends[:0]
	byFile := make([]int, 0, sl.to-sl.from)
	end := 0
	for i := sl.from; i < sl.to; i++ {
		end += int(sl.lines[i].n)
		sl.ends = append(sl.ends, end)
		byFile = append(byFile, i)
	}
	slices.SortFunc(byFile, func(a, b int) int { return cmp.Compare(sl.lines[a].off, sl.lines[b].off) })
	const stretch = 1 << 20
	var at int64 = -1 // where the stretch in sl.chunk starts
	for _, i := range byFile {
		l := sl.lines[i]
		if at < 0 || l.off < at || l.off+int64(l.n) > at+int64(len(sl.chunk)) {
			at = l.off
			sl.chunk = slices.Grow(sl.chunk[:0], max(stretch, int(l.n)))[:max(stretch, int(l.n))]
			n, err := f.ReadAt(sl.chunk, at)
			if err != nil && err != io.EOF || n < int(l.n) {
				return ErrNotStreamable
			}
			sl.chunk = sl.chunk[:n]
		}
		text := sl.chunk[l.off-at : l.off-at+int64(l.n)]
		if crc32.Checksum(text, castagnoli) != l.sum {
			return ErrNotStreamable // the file changed since it was hashed
		}
		start := 0
		if i > sl.from {
			start = sl.ends[i-sl.from-1]
		}
		copy(sl.window[start:], text)
	}
	return nil
}

// lastTrial is the trial of the last line in suite order.
func (sl *sortedLines) lastTrial() int {
	if len(sl.lines) == 0 {
		return 0
	}
	return int(sl.lines[len(sl.lines)-1].trial)
}
