// Package load reads a data folder into the values of package suite and
// refuses bad input with errors that name file, line and field. It is the
// only part of the evaluator that touches files.
package load

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
}

// Suite reads the policy, schema, thresholds and cases of the data folder
// dir.
func Suite(dir string, opts Options) (*suite.Suite, error) {
	casesPath := opts.CasesPath
	if casesPath == "" {
		casesPath = filepath.Join(dir, CasesFile)
	}
	read := func(path string) ([]byte, string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, "", err
		}
		sum := sha256.Sum256(b)
		return b, hex.EncodeToString(sum[:]), nil
	}
	policyPath, schemaPath, gatePath := filepath.Join(dir, PolicyFile), filepath.Join(dir, SchemaFile), filepath.Join(dir, GateFile)
	policySrc, policySum, err := read(policyPath)
	if err != nil {
		return nil, err
	}
	policy, err := suite.ParsePolicy(policyPath, policySrc)
	if err != nil {
		return nil, err
	}
	schemaSrc, _, err := read(schemaPath)
	if err != nil {
		return nil, err
	}
	schema, err := CompileSchema(schemaPath, schemaSrc)
	if err != nil {
		return nil, err
	}
	gateSrc, gateSum, err := read(gatePath)
	if err != nil {
		return nil, err
	}
	gate, err := Gate(gatePath, gateSrc)
	if err != nil {
		return nil, err
	}
	casesFile, err := os.Open(casesPath)
	if err != nil {
		return nil, err
	}
	defer casesFile.Close()
	h := sha256.New()
	cases, err := Cases(casesPath, io.TeeReader(casesFile, h), schema, policy, opts.KeepInputs)
	if err != nil {
		return nil, err
	}
	casesSum := hex.EncodeToString(h.Sum(nil))
	s := suite.NewSuite(policy, cases, gate)
	s.CasesSHA256, s.PolicySHA256, s.GateSHA256 = casesSum, policySum, gateSum
	return s, nil
}

// SnapshotFile is one outputs/<label>.jsonl.
type SnapshotFile struct {
	Label string
	Path  string
}

// Snapshots lists the snapshot files of dir/outputs in natural label order
// (candidate-v2 before candidate-v10). Files whose names begin with "." are
// hidden and skipped, as are files not ending in .jsonl; every other label
// must be a safe name.
func Snapshots(dir string) ([]SnapshotFile, error) {
	outDir := filepath.Join(dir, OutputsDir)
	entries, err := os.ReadDir(outDir)
	if err != nil {
		return nil, err
	}
	var files []SnapshotFile
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".jsonl") || e.IsDir() {
			continue
		}
		path := filepath.Join(outDir, name)
		label, err := Label(path)
		if err != nil {
			return nil, err
		}
		files = append(files, SnapshotFile{Label: label, Path: path})
	}
	if len(files) == 0 {
		return nil, &suite.InputError{File: outDir, Msg: "no snapshots: add one outputs/<label>.jsonl per snapshot"}
	}
	slices.SortFunc(files, func(a, b SnapshotFile) int {
		if c := NaturalCompare(a.Label, b.Label); c != 0 {
			return c
		}
		return strings.Compare(a.Label, b.Label)
	})
	return files, nil
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
