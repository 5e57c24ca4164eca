package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/stats"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/suggest"
)

// The optional keys of gate.json that are not a gate's threshold.
const (
	// trialPassRateKey is the share of a case's trials that must pass.
	trialPassRateKey = "min_trial_pass_rate"
	// confidenceKey is the confidence level of intervals and tests.
	confidenceKey = "confidence"
	// requireEvidenceKey makes the pass-rate gate ask for proof.
	requireEvidenceKey = "require_evidence"
)

// Gate parses gate.json: one threshold for each gate of gates against a
// limit (nil gates reads decide.DefaultGates), each a number or null (the gate is off); optionally
// min_trial_pass_rate, confidence (0.8, 0.9, 0.95 or 0.99),
// require_evidence (true or false) and baseline (a snapshot label, or
// null for none; CheckBaseline checks that the snapshot exists). Every
// required threshold must be there and unknown keys are refused (a
// misspelt threshold must not silently fall away); errors name the line
// of the offending key, and syntax errors the line and column.
func Gate(file string, data []byte, gates decide.Gates) (suite.Gate, error) {
	if gates == nil {
		gates = decide.DefaultGates()
	}
	g := suite.Gate{Thresholds: map[string]*suite.Number{}, MinTrialPassRate: suite.MustNumber("1")}
	r := &gateReader{file: file, data: bytes.TrimPrefix(data, bom), gates: gates}
	dec := jsontext.NewDecoder(bytes.NewReader(r.data))
	if dec.PeekKind() != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return g, r.syntax(err)
		}
		return g, r.fail(0, "", "expected a JSON object of thresholds")
	}
	if _, err := dec.ReadToken(); err != nil {
		return g, r.syntax(err)
	}
	// A syntax error ends the reading; a key or value that is wrong is
	// noted and the reading goes on, so that one run reports them all.
	var problems []error
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) && syn.Err == jsontext.ErrDuplicateName {
			problems = append(problems, r.fail(syn.ByteOffset, syn.JSONPointer.LastToken(), "set twice"))
			return g, JoinProblems(problems)
		}
		if err != nil {
			return g, r.syntax(err)
		}
		key, keyAt := tok.String(), dec.InputOffset()
		kind := dec.PeekKind()
		raw, err := dec.ReadValue()
		if err != nil {
			return g, r.syntax(err)
		}
		seen[key] = true
		if err := r.member(&g, key, keyAt, kind, raw); err != nil {
			problems = append(problems, err)
		}
	}
	if err := r.end(dec); err != nil {
		return g, err
	}
	problems = append(problems, missingThresholds(file, gates, seen)...)
	return g, JoinProblems(problems)
}

// end reads the end of the object, which must end the file.
func (r *gateReader) end(dec *jsontext.Decoder) error {
	if _, err := dec.ReadToken(); err != nil {
		return r.syntax(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			return r.fail(dec.InputOffset(), "", "unexpected data after the object")
		}
		return r.syntax(err)
	}
	return nil
}

// missingThresholds words each required threshold of gates not seen. A
// key misspelt is reported once, as unknown with the key it meant, not
// again as that key missing.
func missingThresholds(file string, gates decide.Gates, seen map[string]bool) []error {
	meant := map[string]bool{}
	for key := range seen {
		if best, ok := suggest.Closest(key, gateKeyList(gates)); ok && !seen[best] {
			meant[best] = true
		}
	}
	var problems []error
	for _, spec := range gates {
		if !seen[spec.Key] && !spec.Optional && !meant[spec.Key] {
			problems = append(problems, &suite.InputError{File: file, Field: spec.Key, Msg: "missing required threshold (null turns its gate off)"})
		}
	}
	return problems
}

// gateReader reads one gate.json: its name and bytes, and the gates
// whose thresholds it may hold.
type gateReader struct {
	file  string
	data  []byte
	gates decide.Gates
}

// lineAt is the line of the byte at off.
func (r *gateReader) lineAt(off int64) int {
	return 1 + bytes.Count(r.data[:min(int(off), len(r.data))], []byte("\n"))
}

// fail words a problem of the member at off.
func (r *gateReader) fail(off int64, field, format string, args ...any) error {
	return &suite.InputError{File: r.file, Line: r.lineAt(off), Field: field, Msg: fmt.Sprintf(format, args...)}
}

// syntax words a JSON syntax error with its line and column.
func (r *gateReader) syntax(err error) error {
	off := int64(len(r.data))
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		off = syn.ByteOffset
	}
	if syn == nil || errors.Is(err, io.ErrUnexpectedEOF) {
		return documentSyntaxError(r.file, r.data, int(off), true, "")
	}
	return documentSyntaxError(r.file, r.data, int(off), false, syn.Err.Error())
}

// member reads one key of gate.json, whose value of kind is raw, into g.
func (r *gateReader) member(g *suite.Gate, key string, keyAt int64, kind jsontext.Kind, raw []byte) error {
	spec, _ := r.gates.Keyed(key)
	switch {
	case spec == nil && key != trialPassRateKey && key != confidenceKey && key != requireEvidenceKey:
		e := r.fail(keyAt, key, "").(*suite.InputError)
		e.Msg, e.Fix = unknownName("key", key, gateKeyList(r.gates))
		return e
	case key == requireEvidenceKey:
		if kind != 't' && kind != 'f' {
			return r.fail(keyAt, key, "expected true or false, got %s", kindName(kind))
		}
		g.RequireEvidence = kind == 't'
		return nil
	case key == confidenceKey:
		level, ok := confidenceLevel(kind, raw)
		if !ok {
			return r.fail(keyAt, key, "must be 0.8, 0.9, 0.95 or 0.99 (the default is 0.95), got %s", valueText(kind, raw))
		}
		g.Confidence = level
		return nil
	case spec != nil && spec.Kind == decide.AgainstBaseline:
		return r.baseline(g, key, keyAt, kind, raw)
	case kind == 'n':
		if spec != nil {
			g.Thresholds[key] = nil // the gate is off
		}
		return nil
	}
	n, err := r.threshold(spec, key, keyAt, kind, raw)
	if err != nil {
		return err
	}
	if spec == nil {
		g.MinTrialPassRate = n
		return nil
	}
	g.Thresholds[key] = &n
	return nil
}

// baseline reads the label of the baseline snapshot, or null for none.
func (r *gateReader) baseline(g *suite.Gate, key string, keyAt int64, kind jsontext.Kind, raw []byte) error {
	if kind == 'n' {
		return nil // no baseline
	}
	var label string
	if kind != '"' || json.Unmarshal(raw, &label) != nil {
		return r.fail(keyAt, key, "expected the label of a snapshot (its outputs/<label>.jsonl), got %s", kindName(kind))
	}
	if !suite.SafeID(label) {
		return r.fail(keyAt, key, "%q is not a snapshot label: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", label)
	}
	g.Baseline, g.BaselineLine = label, r.lineAt(keyAt)
	return nil
}

// threshold reads a number limit of spec (nil: min_trial_pass_rate, a
// fraction) and checks it against the gate's unit.
func (r *gateReader) threshold(spec *decide.Spec, key string, keyAt int64, kind jsontext.Kind, raw []byte) (suite.Number, error) {
	if kind != '0' {
		return suite.Number{}, r.fail(keyAt, key, "expected a number or null, got %s", kindName(kind))
	}
	n, err := suite.ParseNumber(string(raw))
	switch {
	case err != nil:
		return n, r.fail(keyAt, key, "%v", err)
	case n.Sign() < 0:
		return n, r.fail(keyAt, key, "must not be negative, got %s", raw)
	}
	unit := decide.Fraction
	if spec != nil {
		unit = spec.Unit
	}
	switch unit {
	case decide.Fraction:
		if n.Cmp(suite.MustNumber("1")) > 0 {
			return n, r.fail(keyAt, key, "is a fraction from 0 to 1, got %s", raw)
		}
	case decide.Count:
		if rat := n.Rat(); !rat.IsInt() || rat.Cmp(big.NewRat(1<<31-1, 1)) > 0 {
			return n, r.fail(keyAt, key, "must be a whole number of failures, got %s", raw)
		}
	}
	return n, nil
}

// CheckBaseline refuses a baseline in the gate.json at file that labels
// none of the snapshots: the error lists them.
func CheckBaseline(file string, g suite.Gate, labels []string) error {
	if g.Baseline == "" || slices.Contains(labels, g.Baseline) {
		return nil
	}
	return &suite.InputError{File: file, Line: g.BaselineLine, Field: "baseline",
		Msg: fmt.Sprintf("no snapshot is labelled %q: the snapshots are %s; name one of them, or remove the key", g.Baseline, joinWords(labels, "and"))}
}

// confidenceLevel reads the value of confidence: a number equal to one
// of the levels.
func confidenceLevel(kind jsontext.Kind, raw []byte) (stats.Level, bool) {
	if kind != '0' {
		return 0, false
	}
	n, err := suite.ParseNumber(string(raw))
	if err != nil {
		return 0, false
	}
	for _, l := range stats.Levels {
		if n.Rat().Cmp(suite.MustNumber(l.String()).Rat()) == 0 {
			return l, true
		}
	}
	return 0, false
}

// valueText shows a refused value: the number as written, or its kind.
func valueText(kind jsontext.Kind, raw []byte) string {
	if kind == '0' {
		return string(raw)
	}
	return kindName(kind)
}

// joinWords joins words as "a, b or c" with conjunction "or".
func joinWords(words []string, conjunction string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conjunction + " " + words[len(words)-1]
}

// gateKeyList is every key gate.json may hold with gates.
func gateKeyList(gates decide.Gates) []string {
	var keys []string
	for _, s := range gates {
		keys = append(keys, s.Key)
	}
	return append(keys, trialPassRateKey, confidenceKey, requireEvidenceKey)
}
