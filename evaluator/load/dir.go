// Package load reads a data folder into the values of package suite and
// refuses bad input with errors that name file, line and field. It is the
// only part of the evaluator that touches files.
//
// Each kind of JSON line has one reader that words every problem: the
// token decoder (parseOutputTokens for outputs, decodeTokens and
// caseParser.parseTree for cases), and tool calls in any wire format are
// read by outputCall alone. Fast paths stand beside them where they
// measurably pay for themselves: the schema fast path (quickschema.go,
// and quicktext.go on a line's text), not decoding inputs the schema
// does not look into (opaqueMember), the check for valid JSON in one pass
// (valid.go), the scanner for valid lines (quick.go), case lines read
// straight into their Case (quickcase.go) and parsing lines on every
// core (lines.go). Each
// has a differential fuzz target that holds it to the reader it shortcuts,
// and docs/design.md, "Fast paths", gives the benchmark that measures it
// and its figures.
package load

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// The files of a data folder.
const (
	PolicyFile  = "POLICY.md"
	SchemaFile  = "case.schema.json"
	CasesFile   = "cases.jsonl"
	GateFile    = "gate.json"
	HandoffFile = "HANDOFF.md"
	OutputsDir  = "outputs"
)

// Options tune how a suite is read.
type Options struct {
	// CasesPath overrides dir/cases.jsonl when not empty.
	CasesPath string
	// KeepInputs keeps each case's input as written, for pages that show
	// it; without it a large suite takes much less memory.
	KeepInputs bool
	// CompactInputs, with KeepInputs and without CaseLines, keeps the
	// place of each case's line instead of its input
	// (suite.Case.InputPlace): the cases file is then held open for
	// suite.Suite.Input to read inputs again, until Suite.Inputs is
	// closed.
	CompactInputs bool
	// Gates are the gates gate.json is read for; nil reads
	// decide.DefaultGates.
	Gates decide.Gates
	// CaseLines, when set, keeps the cases of each reading by their
	// lines, so that the next reading parses only the lines that changed.
	CaseLines *CaseLines
}

// Suite reads the policy, schema, thresholds and cases of the data folder
// dir.
func Suite(dir string, opts Options) (*suite.Suite, error) {
	if e := folderProblem(dir, opts.CasesPath == ""); e != nil {
		return nil, e
	}
	casesPath := opts.CasesPath
	if casesPath == "" {
		casesPath = filepath.Join(dir, CasesFile)
	}
	read := func(path string, limit int64) ([]byte, string, error) {
		b, err := ReadFile(dir, path, limit)
		if err != nil {
			return nil, "", err
		}
		sum := sha256.Sum256(b)
		return b, hex.EncodeToString(sum[:]), nil
	}
	policyPath, schemaPath, gatePath := filepath.Join(dir, PolicyFile), filepath.Join(dir, SchemaFile), filepath.Join(dir, GateFile)
	// POLICY.md is optional: without it there are no rules to cite.
	var policy *suite.Policy
	policySrc, policySum, err := read(policyPath, MaxDocumentBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if policy, err = suite.ParsePolicy(policyPath, policySrc); err != nil {
			return nil, err
		}
	}
	schemaSrc, schemaSum, err := read(schemaPath, MaxDocumentBytes)
	if err != nil {
		return nil, missingFile(err, schemaPath)
	}
	schema, err := CompileSchema(schemaPath, schemaSrc)
	if err != nil {
		return nil, err
	}
	gateSrc, gateSum, err := read(gatePath, MaxSmallJSONBytes)
	if err != nil {
		return nil, missingFile(err, gatePath)
	}
	gate, err := Gate(gatePath, gateSrc, opts.Gates)
	if err != nil {
		return nil, err
	}
	var casesFile *os.File
	if opts.CasesPath != "" {
		casesFile, err = OpenNamed(casesPath)
	} else {
		casesFile, err = Open(dir, casesPath)
	}
	if err != nil {
		return nil, err
	}
	placed := opts.KeepInputs && opts.CompactInputs && opts.CaseLines == nil
	if !placed {
		defer casesFile.Close()
	}
	h := sha256.New()
	p := newCaseParser(casesPath, schema, policy, opts.KeepInputs && !placed)
	p.placeInputs = placed
	cases, err := casesRemembered(casesPath, io.TeeReader(casesFile, h), p, opts.CaseLines, schemaSum)
	if err != nil {
		if placed {
			casesFile.Close()
		}
		return nil, caseProblems(err, dir, casesPath, opts.CasesPath != "", schema, policy)
	}
	casesSum := hex.EncodeToString(h.Sum(nil))
	s := suite.NewSuite(policy, cases, gate)
	if placed {
		s.Inputs = &inputsFile{path: casesPath, f: casesFile, parser: newCaseParser(casesPath, schema, policy, true)}
	}
	s.Decisions = schema.Decisions
	s.CasesSHA256, s.PolicySHA256, s.GateSHA256 = casesSum, policySum, gateSum
	return s, nil
}

// SnapshotFile is one outputs/<label>.jsonl.
type SnapshotFile struct {
	Label string
	Path  string
	// Dir is the data folder the file was listed in, which it must stay
	// inside; "" for a file named on the command line.
	Dir string
	// Meta is what outputs/<label>.meta.json says, nil without one.
	Meta *suite.Meta
}

// Snapshots lists the snapshot files of dir/outputs in release order:
// by recorded_at when every snapshot's meta.json gives one (ties by
// label), otherwise by label with digit runs compared as numbers
// (candidate-v2 before candidate-v10). Files whose names begin with "."
// are hidden and skipped, as are files not ending in .jsonl or
// .meta.json; every other label must be a safe name, and every
// meta.json must describe a snapshot.
func Snapshots(dir string) ([]SnapshotFile, error) {
	outDir := filepath.Join(dir, OutputsDir)
	if err := CheckDir(dir, outDir); err != nil {
		return nil, missingFile(err, outDir)
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	var files []SnapshotFile
	var metas []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.IsDir() {
			continue
		}
		if strings.HasSuffix(name, MetaSuffix) {
			metas = append(metas, name)
			continue
		}
		if !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		path := filepath.Join(outDir, name)
		label, err := Label(path)
		if err != nil {
			return nil, err
		}
		if err := checkRegular(dir, path); err != nil {
			return nil, err
		}
		files = append(files, SnapshotFile{Label: label, Path: path, Dir: dir})
	}
	if len(files) == 0 {
		return nil, &suite.InputError{File: outDir, Msg: "no snapshots: add one outputs/<label>.jsonl per snapshot"}
	}
	for _, name := range metas {
		path := filepath.Join(outDir, name)
		label := strings.TrimSuffix(name, MetaSuffix)
		i := slices.IndexFunc(files, func(f SnapshotFile) bool { return f.Label == label })
		if i < 0 {
			return nil, &suite.InputError{File: path, Msg: fmt.Sprintf("describes no snapshot: there is no %s/%s.jsonl", OutputsDir, label)}
		}
		data, err := ReadFile(dir, path, MaxSmallJSONBytes)
		if err != nil {
			return nil, err
		}
		if files[i].Meta, err = Meta(path, data); err != nil {
			return nil, err
		}
	}
	SortSnapshots(files)
	return files, nil
}

// SortSnapshots puts snapshots in release order (see Snapshots).
func SortSnapshots(files []SnapshotFile) {
	byLabel := func(a, b SnapshotFile) int {
		if c := NaturalCompare(a.Label, b.Label); c != 0 {
			return c
		}
		return strings.Compare(a.Label, b.Label)
	}
	times := make(map[string]time.Time, len(files))
	for _, f := range files {
		t, ok := RecordedAt(f.Meta)
		if !ok {
			slices.SortFunc(files, byLabel)
			return
		}
		times[f.Label] = t
	}
	slices.SortFunc(files, func(a, b SnapshotFile) int {
		if c := times[a.Label].Compare(times[b.Label]); c != 0 {
			return c
		}
		return byLabel(a, b)
	})
}

// Label returns the snapshot label of an outputs file: its base name
// without .jsonl, which must be a safe name.
func Label(path string) (string, error) {
	label := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if !suite.SafeID(label) {
		return "", &suite.InputError{File: path, Msg: fmt.Sprintf("snapshot label %q is not a safe name: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", label)}
	}
	return label, nil
}

// NaturalCompare orders strings with digit runs compared by value.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}
