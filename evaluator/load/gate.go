package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Gate parses gate.json. Every threshold is required, unknown keys are
// refused (a misspelt threshold must not silently fall away), and errors
// name the line of the offending key.
func Gate(file string, data []byte) (suite.Gate, error) {
	var g suite.Gate
	data = bytes.TrimPrefix(data, bom)
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	fail := func(off int64, field, format string, args ...any) error {
		return &suite.InputError{File: file, Line: lineAt(off), Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return g, fail(dec.InputOffset(), "", "expected a JSON object of thresholds")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return g, fail(dec.InputOffset(), "", "%v", jsonError(data, err))
		}
		key, _ := tok.(string)
		keyAt := dec.InputOffset()
		var v any
		if err := dec.Decode(&v); err != nil {
			return g, fail(dec.InputOffset(), key, "%v", jsonError(data, err))
		}
		lit, isNum := v.(json.Number)
		n, err := suite.ParseNumber(string(lit))
		switch {
		case !isNum:
			return g, fail(keyAt, key, "expected a number, got %s", typeName(v))
		case err != nil:
			return g, fail(keyAt, key, "%v", err)
		case n.Sign() < 0:
			return g, fail(keyAt, key, "must not be negative, got %s", lit)
		case seen[key]:
			return g, fail(keyAt, key, "set twice")
		}
		seen[key] = true
		switch key {
		case "min_pass_rate":
			if n.Cmp(suite.MustNumber("1")) > 0 {
				return g, fail(keyAt, key, "is a fraction from 0 to 1, got %s", lit)
			}
			g.MinPassRate = n
		case "max_critical_failures":
			r := n.Rat()
			if !r.IsInt() || r.Cmp(big.NewRat(1<<31-1, 1)) > 0 {
				return g, fail(keyAt, key, "must be a whole number of failures, got %s", lit)
			}
			g.MaxCriticalFailures = int(r.Num().Int64())
		case "max_p95_latency_ms":
			g.MaxP95LatencyMS = n
		case "max_avg_cost_usd":
			g.MaxAvgCostUSD = n
		default:
			return g, fail(keyAt, key, "unknown threshold: use min_pass_rate, max_critical_failures, max_p95_latency_ms or max_avg_cost_usd")
		}
	}
	if _, err := dec.Token(); err != nil {
		return g, fail(dec.InputOffset(), "", "%v", jsonError(data, err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return g, fail(dec.InputOffset(), "", "unexpected data after the object")
	}
	for _, key := range []string{"min_pass_rate", "max_critical_failures", "max_p95_latency_ms", "max_avg_cost_usd"} {
		if !seen[key] {
			return g, &suite.InputError{File: file, Field: key, Msg: "missing required threshold"}
		}
	}
	return g, nil
}

// jsonError words an encoding/json error with the column where it happened.
func jsonError(text []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at column %d: %s", syn.Offset, syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("invalid JSON: the value ends early (at column %d)", len(text)+1)
	}
	return fmt.Errorf("invalid JSON: %v", err)
}
