package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
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
	firstLine := make([]int, len(s.Cases))
	for {
		text, line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		out, err := parseOutput(file, line, text)
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

// wireOutput and wireCall decode the common, valid line quickly; anything
// they cannot take goes to the field-by-field reader for its message.
type wireOutput struct {
	CaseID    *string         `json:"case_id"`
	Decision  *string         `json:"decision"`
	ToolCalls *[]wireCall     `json:"tool_calls"`
	Citations *[]*string      `json:"citations"`
	LatencyMS *jsontext.Value `json:"latency_ms"`
	CostUSD   *jsontext.Value `json:"cost_usd"`
}

type wireCall struct {
	Name      *string        `json:"name"`
	Arguments jsontext.Value `json:"arguments"`
}

// parseOutput reads one output line. Fields the contract does not name are
// ignored, so snapshots may carry their own metadata.
func parseOutput(file string, line int, text []byte) (*suite.Output, error) {
	if o, ok := fastOutput(text); ok {
		o.Line = line
		return o, nil
	}
	return slowOutput(file, line, text)
}

// fastOutput decodes a well-formed line without building a generic tree.
// It reports false for anything unusual, leaving the judgement to
// slowOutput.
func fastOutput(text []byte) (*suite.Output, bool) {
	var w wireOutput
	if jsonv2.Unmarshal(text, &w) != nil || w.CaseID == nil || w.Decision == nil || w.ToolCalls == nil || w.Citations == nil || w.LatencyMS == nil || w.CostUSD == nil {
		return nil, false
	}
	o := &suite.Output{CaseID: *w.CaseID, Decision: suite.Decision(*w.Decision), Citations: make([]string, len(*w.Citations))}
	if !o.Decision.Valid() {
		return nil, false
	}
	for i, c := range *w.Citations {
		if c == nil {
			return nil, false
		}
		o.Citations[i] = *c
	}
	for _, c := range *w.ToolCalls {
		if c.Name == nil || *c.Name == "" || c.Arguments.Kind() != '{' {
			return nil, false
		}
		// The whole line is valid JSON already; keep the literal numbers.
		dec := json.NewDecoder(bytes.NewReader(c.Arguments))
		dec.UseNumber()
		var args map[string]any
		if dec.Decode(&args) != nil {
			return nil, false
		}
		o.ToolCalls = append(o.ToolCalls, suite.ToolCall{Name: *c.Name, Arguments: args})
	}
	var ok bool
	if o.LatencyMS, ok = nonNegativeNumber(*w.LatencyMS); !ok {
		return nil, false
	}
	if o.CostUSD, ok = nonNegativeNumber(*w.CostUSD); !ok {
		return nil, false
	}
	if o.ToolCalls == nil {
		o.ToolCalls = []suite.ToolCall{}
	}
	return o, true
}

func nonNegativeNumber(v jsontext.Value) (suite.Number, bool) {
	if v.Kind() != '0' {
		return suite.Number{}, false
	}
	n, err := suite.ParseNumber(string(v))
	return n, err == nil && n.Sign() >= 0
}

// slowOutput reads a line field by field and names the first problem.
func slowOutput(file string, line int, text []byte) (*suite.Output, error) {
	v, err := decodeJSON(text)
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
