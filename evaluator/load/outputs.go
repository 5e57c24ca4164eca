package load

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// maxTrial bounds trial numbers: a snapshot with k trials is held as k
// outputs per case, and a typo such as 1000000 must not exhaust memory.
const maxTrial = 1000

// Outputs streams the outputs of one snapshot from r, calling yield with
// each in file order and the position of its case in the suite. It checks
// each line against the data format and the suite: every case_id must be a
// case of the suite, at most once (once per trial when the lines carry
// trials), and either every line gives a trial or none does. It returns
// the SHA-256 of everything read. The Output passed to yield is the
// caller's to keep.
func Outputs(file string, r io.Reader, s *suite.Suite, yield func(i int, o *suite.Output) error) (sha string, err error) {
	return OutputsRemembered(file, r, s, nil, yield)
}

// OutputsRemembered is Outputs parsing only the lines that lines does not
// remember from the reading before, and remembering this reading's for
// the next when it succeeds; a nil lines remembers nothing.
func OutputsRemembered(file string, r io.Reader, s *suite.Suite, lines *OutputLines, yield func(i int, o *suite.Output) error) (sha string, err error) {
	return OutputsPlaced(file, r, s, lines, func(i int, o *suite.Output, _ suite.LinePlace) error { return yield(i, o) })
}

// OutputsPlaced is OutputsRemembered handing yield each output's place in
// the file too, for a caller that keeps the place instead of the output
// (suite.Output.Place), to read it again with an OutputParser. r must
// be read from the file's start.
func OutputsPlaced(file string, r io.Reader, s *suite.Suite, lines *OutputLines, yield func(i int, o *suite.Output, at suite.LinePlace) error) (sha string, err error) {
	reading := lines.begin(s.Decisions)
	h := sha256.New()
	lr := newLineReader(file, io.TeeReader(r, h))
	d := newJSONDecoder()
	// firstLine[t][i] is the line of trial t+1 of case i (trial 1 alone
	// without trials), 0 until seen.
	var firstLine [][]int
	trialsLine, hasTrials := 0, false // the first line says whether lines carry trials
	next := 0                         // the case after the last one seen
	for {
		text, line, err := lr.next()
		if err == io.EOF {
			break
		}
		if _, located := err.(*suite.InputError); located {
			return "", err
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		out, err := reading.parse(d, file, line, text, s.Decisions)
		if err != nil {
			return "", err
		}
		switch {
		case trialsLine == 0:
			trialsLine, hasTrials = line, out.Trial != 0
		case hasTrials && out.Trial == 0:
			return "", &suite.InputError{File: file, Line: line, Field: "trial", Msg: fmt.Sprintf("missing, but line %d gives a trial: give every line of a snapshot a trial, or none", trialsLine)}
		case !hasTrials && out.Trial != 0:
			return "", &suite.InputError{File: file, Line: line, Field: "trial", Msg: fmt.Sprintf("given, but line %d has none: give every line of a snapshot a trial, or none", trialsLine)}
		}
		t := max(out.Trial, 1) - 1
		for len(firstLine) <= t {
			firstLine = append(firstLine, make([]int, len(s.Cases)))
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
		if exp := &s.Cases[i].Expected; out.Decision == "" && exp.JudgesDecision() {
			return "", &suite.InputError{File: file, Line: line, Field: "decision", Msg: fmt.Sprintf("missing required field: case %q expects the decision %s, so its outputs must give theirs", out.CaseID, exp.Decision)}
		}
		if at := firstLine[t][i]; at != 0 {
			if out.Trial != 0 {
				return "", &suite.InputError{File: file, Line: line, Field: "trial", Msg: fmt.Sprintf("duplicate trial %d of case_id %q (first at line %d)", out.Trial, out.CaseID, at)}
			}
			return "", &suite.InputError{File: file, Line: line, Field: "case_id", Msg: fmt.Sprintf("duplicate case_id %q (first at line %d)", out.CaseID, at)}
		}
		firstLine[t][i], next = line, i+1
		if err := yield(i, out, lr.place(text)); err != nil {
			return "", err
		}
	}
	reading.commit(s.Decisions)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// OutputParser reads outputs kept as the place of their line
// (suite.Output.Place) again whole, calls and citations included. One
// parser serves one goroutine at a time.
type OutputParser struct {
	d      *jsonDecoder
	window lineWindow
}

// NewOutputParser returns a parser for outputs kept as their place.
func NewOutputParser() *OutputParser { return &OutputParser{d: newJSONDecoder()} }

// ReadAt returns o itself unless it is compact, and otherwise the output
// its line holds, read from r, the snapshot file named file that o was
// read from. The line must be the one read first, by its CRC: a file
// changed since gives an error naming it. The line was accepted when it
// was read, so it parses; it is parsed under any decision, since those a
// suite allows only refuse lines and change nothing in what is read.
func (p *OutputParser) ReadAt(r io.ReaderAt, file string, o *suite.Output) (*suite.Output, error) {
	if o == nil || !o.Compact() {
		return o, nil
	}
	text, err := readLineAt(r, file, o.Line, o.Place, &p.window)
	if err != nil {
		return nil, err
	}
	whole, err := parseOutput(p.d, file, o.Line, text, nil)
	if err != nil {
		return nil, err
	}
	whole.Line = o.Line
	return whole, nil
}

// parseOutput reads one output line and names its first problem. Fields
// the data format does not name are skipped, so snapshots may carry their
// own metadata. An absent decision is left "" (whether the case needs
// one is for the caller to say); absent citations are none.
func parseOutput(d *jsonDecoder, file string, line int, text []byte, decisions suite.Vocabulary) (*suite.Output, error) {
	// The fast paths give up on an empty decision, so "" here means none
	// was given.
	if o, ok := d.checkedOutput(text, line); ok && (o.Decision == "" || decisions.Allows(o.Decision)) {
		return o, nil
	}
	if d.valid(text) {
		if o, ok := d.quickOutput(text, line); ok && (o.Decision == "" || decisions.Allows(o.Decision)) {
			return o, nil
		}
	}
	return parseOutputTokens(d, file, line, text, decisions)
}

// parseOutputTokens is parseOutput token by token, for lines that are
// invalid or break the data format: it finds and words the first problem.
func parseOutputTokens(d *jsonDecoder, file string, line int, text []byte, decisions suite.Vocabulary) (*suite.Output, error) {
	r := &fieldReader{file: file, line: line}
	o := &suite.Output{Line: line}
	var seen uint8      // outputBit of each field read
	var others []string // the names the judge does not read, for hints
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
				if o.Decision = suite.Decision(s); err == nil && r.err == nil && !decisions.Allows(o.Decision) {
					if len(decisions) == 0 {
						r.fail("decision", "must not be empty")
					} else {
						r.fail("decision", "unknown decision %q: use %s", s, decisions)
					}
				}
			case "tool_calls":
				o.ToolCalls, err = d.toolCalls(r, at("tool_calls"))
			case "citations":
				o.Citations, err = d.syms(r, at("citations"))
			case "latency_ms":
				o.LatencyMS, err = d.measured(r, at("latency_ms"))
			case "cost_usd":
				o.CostUSD, err = d.measured(r, at("cost_usd"))
			case "trial":
				o.Trial, err = d.trial(r, at("trial"))
			default:
				if len(others) < 16 {
					others = append(others, string(name))
				}
				err = d.dec.SkipValue()
			}
			return err
		})
	})
	if err != nil {
		return nil, lineError(file, line, text, err)
	}
	for i, name := range outputFields {
		if seen&(1<<i) == 0 && requiredOutputFields&(1<<i) != 0 {
			r.fail(name, "%s", missingField(name, others))
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if seen&citationsBit == 0 {
		o.Citations = []string{}
	}
	return o, nil
}

// outputFields are the members of an output line the judge reads.
var outputFields = [...]string{"case_id", "decision", "tool_calls", "citations", "latency_ms", "cost_usd"}

// The outputBit of the optional fields, and of those every line must have.
const (
	decisionBit          = 1 << 1
	citationsBit         = 1 << 3
	requiredOutputFields = (1<<len(outputFields) - 1) &^ decisionBit &^ citationsBit
)

// outputBit is bit i for outputFields[i], and 0 for any other name.
func outputBit(name []byte) uint8 {
	for i, f := range outputFields {
		if string(name) == f {
			return 1 << i
		}
	}
	return 0
}
