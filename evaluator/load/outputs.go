package load

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Outputs streams the outputs of one snapshot from r, calling yield with
// each in file order and the position of its case in the suite. It checks
// each line against the contract and the suite: every case_id must be a
// case of the suite, at most once. It returns the SHA-256 of everything
// read. The Output passed to yield is the caller's to keep.
func Outputs(file string, r io.Reader, s *suite.Suite, yield func(i int, o *suite.Output) error) (sha string, err error) {
	h := sha256.New()
	lr := newLineReader(io.TeeReader(r, h))
	d := newJSONDecoder()
	firstLine := make([]int, len(s.Cases))
	next := 0 // the case after the last one seen
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
		// Outputs mostly follow the order of the cases, so try the case
		// after the last one before looking the id up.
		i, ok := next, next < len(s.Cases) && s.Cases[next].ID == out.CaseID
		if !ok {
			i, ok = s.CaseIndex(out.CaseID)
		}
		if !ok {
			return "", &suite.InputError{File: file, Line: line, Field: "case_id", Msg: fmt.Sprintf("%q is not a case of the suite", out.CaseID)}
		}
		if firstLine[i] != 0 {
			return "", &suite.InputError{File: file, Line: line, Field: "case_id", Msg: fmt.Sprintf("duplicate case_id %q (first at line %d)", out.CaseID, firstLine[i])}
		}
		firstLine[i], next = line, i+1
		if err := yield(i, out); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// parseOutput reads one output line in a single pass over its tokens and
// names its first problem. Fields the contract does not name are skipped,
// so snapshots may carry their own metadata.
func parseOutput(d *jsonDecoder, file string, line int, text []byte) (*suite.Output, error) {
	if d.valid.check(text) {
		if o, ok := d.quickOutput(text, line); ok {
			return o, nil
		}
	}
	return parseOutputTokens(d, file, line, text)
}

// parseOutputTokens is parseOutput token by token, for lines that are
// invalid or break the contract: it finds and words the first problem.
func parseOutputTokens(d *jsonDecoder, file string, line int, text []byte) (*suite.Output, error) {
	r := &fieldReader{file: file, line: line}
	o := &suite.Output{Line: line}
	var seen uint8 // outputBit of each field read
	err := d.read(text, func() error {
		return d.members(r, place{index: -1}, func(name []byte) error {
			seen |= outputBit(name)
			var err error
			switch string(name) {
			case "case_id":
				o.CaseID, err = d.str(r, at("case_id"))
			case "decision":
				var s string
				s, err = d.sym(r, at("decision"))
				if o.Decision = suite.Decision(s); err == nil && r.err == nil && !o.Decision.Valid() {
					r.fail("decision", "unknown decision %q: use approve, request_receipt, escalate_finance, reject or no_op", s)
				}
			case "tool_calls":
				o.ToolCalls, err = d.toolCalls(r, at("tool_calls"))
			case "citations":
				o.Citations, err = d.syms(r, at("citations"))
			case "latency_ms":
				o.LatencyMS, err = d.nonNegative(r, at("latency_ms"))
			case "cost_usd":
				o.CostUSD, err = d.nonNegative(r, at("cost_usd"))
			default:
				err = d.dec.SkipValue()
			}
			return err
		})
	})
	if err != nil {
		return nil, &suite.InputError{File: file, Line: line, Msg: err.Error()}
	}
	for i, name := range outputFields {
		if seen&(1<<i) == 0 {
			r.fail(name, "missing required field")
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return o, nil
}

// outputFields are the members every output line must have.
var outputFields = [...]string{"case_id", "decision", "tool_calls", "citations", "latency_ms", "cost_usd"}

// allOutputFields has the outputBit of every output field.
const allOutputFields = 1<<len(outputFields) - 1

// outputBit is bit i for outputFields[i], and 0 for any other name.
func outputBit(name []byte) uint8 {
	for i, f := range outputFields {
		if string(name) == f {
			return 1 << i
		}
	}
	return 0
}
