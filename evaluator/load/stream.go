package load

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"

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
// folder dir, as Suite does, and leaves the cases to Each.
func OpenSuiteStream(dir string) (*SuiteStream, error) {
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
	gate, err := Gate(gatePath, gateSrc)
	if err != nil {
		return nil, err
	}
	s := suite.NewSuite(policy, nil, gate)
	s.Decisions = schema.Decisions
	s.PolicySHA256, s.GateSHA256 = policySum, gateSum
	return &SuiteStream{Suite: s, dir: dir, path: filepath.Join(dir, CasesFile), schema: schema}, nil
}

// Each parses the cases and calls yield with them in file
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

// streamLines is parseLines that hands the parsed lines to yield in
// file order, streamBatch at a time, holding one batch rather than the
// whole file. It stops at the first bad line, having yielded the batches
// before its own, or at the first error of yield; a read error comes
// after every line read before it is yielded. Parsing in chunks on all cores was dropped:
// it spent more processor time and saved no wall time, and the caller's
// snapshots judge each batch on goroutines of their own meanwhile (see
// "Fast paths" in docs/design.md).
func streamLines[T any](lr *lineReader, parse func(d *jsonDecoder, text []byte, line int) (T, error), yield func([]T) error) error {
	d := newJSONDecoder()
	batch := make([]T, 0, streamBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := yield(batch)
		batch = make([]T, 0, streamBatch) // a yielded batch is not touched again
		return err
	}
	for {
		text, n, err := lr.next()
		if err != nil {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			if err == io.EOF {
				return nil
			}
			return err
		}
		v, err := parse(d, text, n)
		if err != nil {
			return err // the lines of its batch before it are not yielded
		}
		if batch = append(batch, v); len(batch) == streamBatch {
			if err := flush(); err != nil {
				return err
			}
		}
	}
}

// streamBatch is how many parsed lines streamLines hands on at a time.
const streamBatch = 256

// OutputStream reads one snapshot's outputs a line at a time.
type OutputStream struct {
	file      string
	f         *os.File
	h         hash.Hash
	lr        *lineReader
	d         *jsonDecoder
	decisions suite.Vocabulary
}

// OpenOutputStream opens the outputs of file for reading with Next;
// decisions are the decisions an output may give.
func OpenOutputStream(file SnapshotFile, decisions suite.Vocabulary) (*OutputStream, error) {
	f, err := file.Open()
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	return &OutputStream{file: file.Path, f: f, h: h, lr: newLineReader(file.Path, io.TeeReader(f, h)), d: newJSONDecoder(), decisions: decisions}, nil
}

// Next parses the next output line, io.EOF after the last. The Output
// is the caller's to keep. A line with a trial gives ErrNotStreamable.
func (o *OutputStream) Next() (*suite.Output, error) {
	text, line, err := o.lr.next()
	if err != nil {
		return nil, err
	}
	out, err := parseOutput(o.d, o.file, line, text, o.decisions)
	if err == nil && out.Trial != 0 {
		err = ErrNotStreamable
	}
	return out, err
}

// SHA256 is the hash of the file as read so far: of the whole file once
// Next has returned io.EOF.
func (o *OutputStream) SHA256() string { return hex.EncodeToString(o.h.Sum(nil)) }

// Close closes the file.
func (o *OutputStream) Close() error { return o.f.Close() }
