package load

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Outputs streams the outputs of one snapshot from r, calling yield with
// each in file order. It checks each line against the contract and the
// suite: every case_id must be a case of the suite, at most once. It
// returns the SHA-256 of everything read. The Output passed to yield is
// the caller's to keep.
func Outputs(file string, r io.Reader, s *suite.Suite, yield func(*suite.Output) error) (sha string, err error) {
	h := sha256.New()
	lr := newLineReader(io.TeeReader(r, h))
	d := newJSONDecoder()
	firstLine := make([]int, len(s.Cases))
	for {
		text, line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		out, err := parseOutput(d, file, line, text)
		if err != nil {
			return "", err
		}
		i, ok := s.CaseIndex(out.CaseID)
		if !ok {
			return "", &suite.InputError{File: file, Line: line, Field: "case_id", Msg: fmt.Sprintf("%q is not a case of the suite", out.CaseID)}
		}
		if firstLine[i] != 0 {
			return "", &suite.InputError{File: file, Line: line, Field: "case_id", Msg: fmt.Sprintf("duplicate case_id %q (first at line %d)", out.CaseID, firstLine[i])}
		}
		firstLine[i] = line
		if err := yield(out); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// parseOutput reads one output line and names its first problem. Fields the
// contract does not name are ignored, so snapshots may carry their own
// metadata.
func parseOutput(d *jsonDecoder, file string, line int, text []byte) (*suite.Output, error) {
	v, _, err := d.decode(text, "")
	if err != nil {
		return nil, &suite.InputError{File: file, Line: line, Msg: err.Error()}
	}
	r := &fieldReader{file: file, line: line}
	obj := r.object(v, "")
	o := &suite.Output{Line: line}
	o.CaseID = r.str(r.field(obj, "", "case_id"), "case_id")
	o.Decision = suite.Decision(r.str(r.field(obj, "", "decision"), "decision"))
	if r.err == nil && !o.Decision.Valid() {
		r.fail("decision", "unknown decision %q: use approve, request_receipt, escalate_finance, reject or no_op", o.Decision)
	}
	o.ToolCalls = r.toolCalls(r.field(obj, "", "tool_calls"), "tool_calls")
	o.Citations = r.strs(r.field(obj, "", "citations"), "citations")
	o.LatencyMS = r.nonNegative(r.field(obj, "", "latency_ms"), "latency_ms")
	o.CostUSD = r.nonNegative(r.field(obj, "", "cost_usd"), "cost_usd")
	if r.err != nil {
		return nil, r.err
	}
	return o, nil
}
