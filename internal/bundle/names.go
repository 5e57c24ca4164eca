package bundle

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// checkNames refuses, from the bytes of the inputs alone, snapshot labels
// and case ids that are equal under case folding, so that a large suite a
// bundle cannot hold is refused before it is evaluated. Of each line of
// cases.jsonl it reads only the top-level case_id; a line it cannot read
// is left to the evaluation, which words the error, and checkFolding
// checks the evaluated suite again.
func checkNames(data string, inputs []input) error {
	labels := map[string]string{}
	var cases []byte
	for _, in := range inputs {
		if in.path == load.CasesFile {
			cases = in.data
		}
		name, ok := strings.CutPrefix(in.path, load.OutputsDir+"/")
		label, isSnapshot := strings.CutSuffix(name, ".jsonl")
		if !ok || !isSnapshot {
			continue
		}
		folded := strings.ToLower(label)
		if prev, seen := labels[folded]; seen {
			return labelsFold(data, label, prev)
		}
		labels[folded] = label
	}
	first := map[string]caseAt{}
	var ids idReader
	n := 0
	for line := range bytes.SplitSeq(cases, []byte("\n")) {
		n++
		id, ok := ids.caseID(line)
		if !ok {
			continue
		}
		folded := strings.ToLower(id)
		if prev, seen := first[folded]; seen && prev.id != id {
			return idsFold(data, n, id, prev.id, prev.line)
		}
		if _, seen := first[folded]; !seen {
			first[folded] = caseAt{id, n}
		}
	}
	return nil
}

type caseAt struct {
	id   string
	line int
}

// idReader reads the top-level case_id of lines, one decoder for all.
type idReader struct {
	r   bytes.Reader
	dec *jsontext.Decoder
}

// caseID reads the case_id member of the JSON object on line, if it has
// one that is a string.
func (ir *idReader) caseID(line []byte) (string, bool) {
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte{0xEF, 0xBB, 0xBF}))
	if len(line) == 0 || line[0] != '{' {
		return "", false
	}
	ir.r.Reset(line)
	if ir.dec == nil {
		ir.dec = jsontext.NewDecoder(&ir.r)
	} else {
		ir.dec.Reset(&ir.r)
	}
	dec := ir.dec
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", false
	}
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			return "", false
		}
		if name.String() != "case_id" {
			if dec.SkipValue() != nil {
				return "", false
			}
			continue
		}
		value, err := dec.ReadToken()
		if err != nil || value.Kind() != '"' {
			return "", false
		}
		return value.String(), true
	}
	return "", false
}

// labelsFold is the error for two snapshot labels equal under case
// folding.
func labelsFold(data, label, prev string) error {
	return &suite.InputError{
		File: filepath.Join(data, load.OutputsDir, label+".jsonl"),
		Msg:  fmt.Sprintf("snapshot label %q is the same as %q under case folding; a bundle cannot hold both, since their pages would share a file name on a case-insensitive disk", label, prev),
	}
}

// idsFold is the error for two case ids equal under case folding.
func idsFold(data string, line int, id, prev string, prevLine int) error {
	return &suite.InputError{
		File: filepath.Join(data, load.CasesFile), Line: line, Field: "case_id",
		Msg: fmt.Sprintf("%q is the same as %q (line %d) under case folding; a bundle cannot hold both, since their pages would share a file name on a case-insensitive disk", id, prev, prevLine),
	}
}
