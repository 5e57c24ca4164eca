package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// trialPassRateKey is the optional gate.json key of the share of a
// case's trials that must pass.
const trialPassRateKey = "min_trial_pass_rate"

// Gate parses gate.json: one threshold for each gate of decide.Specs,
// each a number or null (the gate is off), and optionally
// min_trial_pass_rate. Every gate's threshold is required and unknown
// keys are refused (a misspelt threshold must not silently fall away);
// errors name the line of the offending key, and syntax errors the line
// and column.
func Gate(file string, data []byte) (suite.Gate, error) {
	g := suite.Gate{Thresholds: map[string]*suite.Number{}, MinTrialPassRate: suite.MustNumber("1")}
	data = bytes.TrimPrefix(data, bom)
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	fail := func(off int64, field, format string, args ...any) error {
		return &suite.InputError{File: file, Line: lineAt(off), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	syntax := func(err error) error {
		off := int64(len(data))
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			off = syn.ByteOffset
		}
		lineStart := bytes.LastIndexByte(data[:min(int(off), len(data))], '\n') + 1
		col := int(off) - lineStart + 1
		if syn == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail(off, "", "invalid JSON: the value ends early (at column %d)", col)
		}
		return fail(off, "", "invalid JSON at column %d: %v", col, syn.Err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	if dec.PeekKind() != '{' {
		if _, err := dec.ReadValue(); err != nil {
			return g, syntax(err)
		}
		return g, fail(0, "", "expected a JSON object of thresholds")
	}
	if _, err := dec.ReadToken(); err != nil {
		return g, syntax(err)
	}
	seen := map[string]bool{}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) && syn.Err == jsontext.ErrDuplicateName {
			return g, fail(syn.ByteOffset, syn.JSONPointer.LastToken(), "set twice")
		}
		if err != nil {
			return g, syntax(err)
		}
		key, keyAt := tok.String(), dec.InputOffset()
		kind := dec.PeekKind()
		raw, err := dec.ReadValue()
		if err != nil {
			return g, syntax(err)
		}
		spec := specFor(key)
		if spec == nil && key != trialPassRateKey {
			return g, fail(keyAt, key, "unknown threshold: use %s", thresholdKeys())
		}
		seen[key] = true
		if kind == 'n' {
			if spec != nil {
				g.Thresholds[key] = nil // the gate is off
			}
			continue
		}
		if kind != '0' {
			return g, fail(keyAt, key, "expected a number or null, got %s", kindName(kind))
		}
		n, err := suite.ParseNumber(string(raw))
		switch {
		case err != nil:
			return g, fail(keyAt, key, "%v", err)
		case n.Sign() < 0:
			return g, fail(keyAt, key, "must not be negative, got %s", raw)
		}
		unit := decide.Fraction
		if spec != nil {
			unit = spec.Unit
		}
		switch unit {
		case decide.Fraction:
			if n.Cmp(suite.MustNumber("1")) > 0 {
				return g, fail(keyAt, key, "is a fraction from 0 to 1, got %s", raw)
			}
		case decide.Count:
			if r := n.Rat(); !r.IsInt() || r.Cmp(big.NewRat(1<<31-1, 1)) > 0 {
				return g, fail(keyAt, key, "must be a whole number of failures, got %s", raw)
			}
		}
		if spec == nil {
			g.MinTrialPassRate = n
			continue
		}
		g.Thresholds[key] = &n
	}
	if _, err := dec.ReadToken(); err != nil {
		return g, syntax(err)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			return g, fail(dec.InputOffset(), "", "unexpected data after the object")
		}
		return g, syntax(err)
	}
	for _, spec := range decide.Specs {
		if !seen[spec.Key] && !spec.Optional {
			return g, &suite.InputError{File: file, Field: spec.Key, Msg: "missing required threshold (null turns its gate off)"}
		}
	}
	return g, nil
}

// specFor returns the gate whose threshold is key, or nil.
func specFor(key string) *decide.Spec {
	for i := range decide.Specs {
		if decide.Specs[i].Key == key {
			return &decide.Specs[i]
		}
	}
	return nil
}

// thresholdKeys lists the keys gate.json may hold.
func thresholdKeys() string {
	var keys []string
	for _, s := range decide.Specs {
		keys = append(keys, s.Key)
	}
	keys = append(keys, trialPassRateKey)
	return strings.Join(keys[:len(keys)-1], ", ") + " or " + keys[len(keys)-1]
}
