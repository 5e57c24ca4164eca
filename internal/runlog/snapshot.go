package runlog

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/load"
)

// Store keeps the encoded lines of a snapshot while the log is read,
// until they are written out in suite order. A log of gigabytes can give
// lines of gigabytes, so the caller decides where they wait (a temporary
// file); NewMemoryStore keeps them in memory.
type Store interface {
	io.Writer
	io.ReaderAt
}

// memoryStore is a Store in memory.
type memoryStore struct{ b []byte }

// NewMemoryStore returns a Store that keeps lines in memory.
func NewMemoryStore() Store { return &memoryStore{} }

func (m *memoryStore) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}

func (m *memoryStore) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Meta is what a run records about itself, as a snapshot's
// outputs/<label>.meta.json holds it. Empty members are left out.
type Meta struct {
	RecordedAt  string
	Model       string
	Commit      string
	Description string
}

// Empty reports whether the run recorded none of it.
func (m Meta) Empty() bool { return m == Meta{} }

// JSON is the meta.json of the snapshot, nil when the run records
// nothing.
func (m Meta) JSON() []byte {
	if m.Empty() {
		return nil
	}
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b, jsontext.Multiline(true), jsontext.WithIndent("  "))
	enc.WriteToken(jsontext.BeginObject)
	for _, kv := range [][2]string{{"recorded_at", m.RecordedAt}, {"model", m.Model}, {"commit", m.Commit}, {"description", m.Description}} {
		if kv[1] != "" {
			enc.WriteToken(jsontext.String(kv[0]))
			enc.WriteToken(jsontext.String(kv[1]))
		}
	}
	enc.WriteToken(jsontext.EndObject)
	return b.Bytes()
}

// Failure is a record of the run that failed (an API error, an expired
// batch request, a sample that stopped with an error): it gets no line,
// so its case is judged missing_output.
type Failure struct {
	CaseID string
	Trial  int // 0 when the snapshot has no trials
	Reason string
}

// Snapshot is one snapshot of an imported run: where its lines wait, in
// which order they go out, and what it knows about itself.
type Snapshot struct {
	// Provider names the promptfoo provider whose answers the snapshot
	// holds (its label, else its id); "" for the other formats.
	Provider string
	// ProviderKey tells two providers apart that share a name.
	ProviderKey string
	// Meta is what the run records about the snapshot.
	Meta Meta
	// Failed lists the records that failed, in the order lines go out.
	Failed []Failure
	// Trials is k, the largest trial number, or 0 without trials.
	Trials int
	// Records counts the snapshot's records, failed ones included.
	Records int

	store   Store
	size    int64
	entries []entry
	failed  []failedEntry
	// trialsByRun: the run says it was repeated (Inspect's epochs > 1),
	// whatever the trials seen.
	trialsByRun bool
	maxTrial    int
	models      map[string]bool // distinct models of the answers
	modelOrder  []string
}

// entry is one line waiting in the store: its tail (the line after
// `{"case_id": …, "trial": n, `) is at off, n bytes.
type entry struct {
	id    string
	off   int64
	at    int64 // where the record is, for messages (see locate)
	trial int32
	rank  int32
	n     int32
}

type failedEntry struct {
	id     string
	trial  int32
	rank   int32
	at     int64
	reason string
}

// Lines is the number of lines the snapshot writes.
func (s *Snapshot) Lines() int { return len(s.entries) }

// WriteLines writes the snapshot's lines, in suite order (without a
// suite, in the run's order) and then by trial.
func (s *Snapshot) WriteLines(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	back := &readBack{store: s.store, size: s.size}
	var head []byte
	for _, e := range s.entries {
		head = append(head[:0], `{"case_id": `...)
		head, _ = jsontext.AppendQuote(head, e.id)
		if s.Trials > 0 {
			head = append(head, `, "trial": `...)
			head = strconv.AppendInt(head, int64(e.trial), 10)
		}
		head = append(head, ", "...)
		tail, err := back.at(e.off, int(e.n))
		if err != nil {
			return fmt.Errorf("reading the lines back: %w", err)
		}
		bw.Write(head)
		if _, err := bw.Write(tail); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// readBack reads lines back from a store a window at a time: lines
// mostly go out in the order they came in, so one read serves many.
type readBack struct {
	store Store
	size  int64
	buf   []byte
	start int64 // the store offset of buf[0]
}

func (r *readBack) at(off int64, n int) ([]byte, error) {
	if off >= r.start && off+int64(n) <= r.start+int64(len(r.buf)) {
		return r.buf[off-r.start : off-r.start+int64(n)], nil
	}
	size := int(min(max(int64(n), 256<<10), r.size-off))
	if cap(r.buf) < size {
		r.buf = make([]byte, size)
	}
	r.buf, r.start = r.buf[:size], off
	got, err := r.store.ReadAt(r.buf, off)
	r.buf = r.buf[:got]
	if got < n {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return r.buf[:n], nil
}

// lineEncoder writes the part of an output line that follows its case id
// and trial, with the spacing of hand-written snapshots.
type lineEncoder struct {
	buf bytes.Buffer
	enc *jsontext.Encoder
}

func newLineEncoder() *lineEncoder {
	e := &lineEncoder{}
	e.enc = jsontext.NewEncoder(&e.buf, jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true))
	return e
}

// tail encodes the calls, latency and cost of a record as the rest of
// its line: `"tool_calls": […], "latency_ms": …, "cost_usd": …}` and a
// line end. A run records no citations, and an output may leave them out
// (docs/real-data.md).
func (e *lineEncoder) tail(rec *record) ([]byte, error) {
	e.buf.Reset()
	e.enc.Reset(&e.buf, jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true))
	enc := e.enc
	enc.WriteToken(jsontext.BeginObject)
	enc.WriteToken(jsontext.String("tool_calls"))
	enc.WriteToken(jsontext.BeginArray)
	for _, c := range rec.calls {
		enc.WriteToken(jsontext.BeginObject)
		enc.WriteToken(jsontext.String("name"))
		enc.WriteToken(jsontext.String(c.name))
		enc.WriteToken(jsontext.String("arguments"))
		if err := enc.WriteValue(c.args); err != nil {
			return nil, fmt.Errorf("tool call %q: arguments: %v", c.name, err)
		}
		enc.WriteToken(jsontext.EndObject)
	}
	enc.WriteToken(jsontext.EndArray)
	for _, m := range []struct {
		name string
		v    *Decimal
	}{{"latency_ms", rec.latency}, {"cost_usd", rec.cost}} {
		enc.WriteToken(jsontext.String(m.name))
		if m.v == nil {
			enc.WriteToken(jsontext.Null)
			continue
		}
		lit, err := m.v.literal()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.name, err)
		}
		if err := enc.WriteValue(jsontext.Value(lit)); err != nil {
			return nil, fmt.Errorf("%s: %v", m.name, err)
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	// Drop the opening brace; the case id and trial go before the rest.
	return e.buf.Bytes()[1:], nil
}

// maxTail bounds the part of a line after its case id: with the id, a
// line stays within what the evaluator reads.
const maxTail = load.MaxLineBytes - 2048

// finish decides trials and order, and finds duplicates. rank gives
// each id its place; ids come here already checked against the suite.
func (s *Snapshot) finish(rank func(id string) int32, locate func(at int64) string) error {
	if s.trialsByRun || s.maxTrial > 1 {
		s.Trials = max(s.maxTrial, 1)
	} else {
		for i := range s.entries {
			s.entries[i].trial = 0
		}
		for i := range s.failed {
			s.failed[i].trial = 0
		}
	}
	for i := range s.entries {
		s.entries[i].rank = rank(s.entries[i].id)
	}
	for i := range s.failed {
		s.failed[i].rank = rank(s.failed[i].id)
	}
	byPlace := func(r1 int32, id1 string, t1 int32, r2 int32, id2 string, t2 int32) int {
		if c := cmp.Compare(r1, r2); c != 0 {
			return c
		}
		if c := strings.Compare(id1, id2); c != 0 {
			return c
		}
		return cmp.Compare(t1, t2)
	}
	slices.SortStableFunc(s.entries, func(a, b entry) int { return byPlace(a.rank, a.id, a.trial, b.rank, b.id, b.trial) })
	slices.SortStableFunc(s.failed, func(a, b failedEntry) int { return byPlace(a.rank, a.id, a.trial, b.rank, b.id, b.trial) })
	// A case (and trial) answered twice, once failed and once not, or
	// twice either way, is one answer too many for a snapshot.
	type key struct {
		id    string
		trial int32
	}
	seen := make(map[key]int64, len(s.failed))
	for _, f := range s.failed {
		k := key{f.id, f.trial}
		if at, dup := seen[k]; dup {
			return s.duplicate(f.id, f.trial, at, f.at, locate)
		}
		seen[k] = f.at
	}
	for i, e := range s.entries {
		if at, dup := seen[key{e.id, e.trial}]; dup {
			return s.duplicate(e.id, e.trial, at, e.at, locate)
		}
		if i > 0 && s.entries[i-1].id == e.id && s.entries[i-1].trial == e.trial {
			return s.duplicate(e.id, e.trial, s.entries[i-1].at, e.at, locate)
		}
	}
	s.Failed = make([]Failure, len(s.failed))
	for i, f := range s.failed {
		s.Failed[i] = Failure{CaseID: f.id, Trial: int(f.trial), Reason: f.reason}
	}
	if s.Meta.Model == "" && len(s.modelOrder) == 1 {
		s.Meta.Model = s.modelOrder[0]
	}
	return nil
}

// DuplicateError is a run that answers one case (and trial) twice, which
// one snapshot cannot hold.
type DuplicateError struct {
	File     string
	Provider string
	CaseID   string
	Trial    int
	First    string // where the first answer is
	Second   string
	// Hint says what usually causes it in the run's format.
	Hint string
}

func (e *DuplicateError) Error() string {
	what := fmt.Sprintf("case %q", e.CaseID)
	if e.Trial > 0 {
		what += fmt.Sprintf(" trial %d", e.Trial)
	}
	if e.Provider != "" {
		what += fmt.Sprintf(" of provider %q", e.Provider)
	}
	fix := "import runs that answer each case once per trial, or give the records distinct case ids"
	if e.Hint != "" {
		fix = e.Hint
	}
	return fmt.Sprintf("%s: %s is answered twice (%s and %s); a snapshot holds one answer per case and trial: %s", e.File, what, e.First, e.Second, fix)
}

func (s *Snapshot) duplicate(id string, trial int32, a, b int64, locate func(int64) string) error {
	if a > b {
		a, b = b, a
	}
	return &DuplicateError{Provider: s.Provider, CaseID: id, Trial: int(trial), First: locate(a), Second: locate(b)}
}

// addModel notes the model of one answer, for meta.json's model when
// every answer names the same one.
func (s *Snapshot) addModel(m string) {
	if m == "" || s.models[m] {
		return
	}
	if s.models == nil {
		s.models = map[string]bool{}
	}
	s.models[m] = true
	if len(s.modelOrder) < 2 {
		s.modelOrder = append(s.modelOrder, m)
	}
}

// DeriveLabel makes a snapshot label out of a name (a file name, a
// provider's label or id): every run of characters a label may not hold
// becomes one '-', the ends are trimmed of '-', '.' and '_', and the
// result is cut to 64 characters. It returns "" when nothing is left.
func DeriveLabel(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range name {
		ok := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
		if !ok {
			if !dash {
				b.WriteByte('-')
			}
			dash = true
			continue
		}
		b.WriteRune(r)
		dash = false
	}
	label := strings.Trim(b.String(), "-._")
	if len(label) > 64 {
		label = strings.TrimRight(label[:64], "-._")
	}
	return label
}
