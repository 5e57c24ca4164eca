package runlog

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// A promptfoo export (`promptfoo eval -o results.json`) is a JSON
// document {evalId, results: {version, timestamp, prompts, results: […],
// stats}, config, …}; each element of results.results is an
// EvaluateResult (promptfoo src/types/index.ts): provider {id, label},
// promptId, promptIdx, testCase {description, vars, metadata}, vars,
// metadata, response {output, error, cost, tokenUsage}, error,
// failureReason (0 none, 1 an assertion failed, 2 an error), latencyMs,
// cost. Every provider's answers become one snapshot.

// idSources are where a promptfoo result's case id may be written, in
// the order they are tried: the test's, then the result's.
var idSources = [...]string{"testCase.metadata.case_id", "metadata.case_id", "testCase.vars.case_id", "vars.case_id", "testCase.description", "description"}

// pfResult is what the importer reads of one EvaluateResult.
type pfResult struct {
	providerID, providerLabel string
	promptID, promptIdx       string
	ids                       [len(idSources)]string
	idOffs                    [len(idSources)]int64
	failureReason             string
	hasResponse               bool
	responseError             string
	errorText                 string
	calls                     []call
	latency, cost, respCost   *Decimal
	respIn, respOut           *Decimal
	in, out                   *Decimal
}

// readPromptfoo reads a promptfoo export, one result at a time.
func readPromptfoo(im *importer) error {
	d := doc{name: im.src.Name, lines: linesOf(func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(im.src.Data, 0, im.src.Size)), nil
	})}
	r := newReader(io.NewSectionReader(im.src.Data, 0, im.src.Size), d)
	var timestamp, description string
	occurrences := map[[3]string]int{}
	providers := map[string]*pfResult{}
	var noID []string
	var noIDOff int64
	noIDCount, total := 0, 0
	err := r.members(func(name []byte) error {
		switch string(name) {
		case "results":
			return r.members(func(name []byte) error {
				switch string(name) {
				case "timestamp":
					var err error
					timestamp, _, err = r.optStr()
					return err
				case "results":
					return r.elements(func(i int) error {
						total++
						off, field := r.here(), r.field()
						res, err := r.promptfooResult()
						if err != nil {
							return err
						}
						rec := &record{at: int64(i), idDoc: r.doc}
						for j, id := range res.ids {
							if id != "" {
								rec.caseID, rec.idOff = id, res.idOffs[j]
								rec.idField = "results.results[" + strconv.Itoa(i) + "]." + idSources[j]
								break
							}
						}
						if rec.caseID == "" {
							if noIDCount == 0 {
								noIDOff = off
							}
							noIDCount++
							if len(noID) < 5 {
								noID = append(noID, field)
							} else if len(noID) == 5 {
								noID = append(noID, "…")
							}
							return nil
						}
						if len(noID) > 0 {
							return nil // the file is refused; only the list grows
						}
						rec.group = res.providerID + "\x00" + res.providerLabel
						if _, ok := providers[rec.group]; !ok {
							providers[rec.group] = res
						}
						k := [3]string{rec.group, rec.caseID, res.promptID + "\x00" + res.promptIdx}
						occurrences[k]++
						rec.trial = occurrences[k]
						im.promptfooRecord(rec, res)
						return im.add(rec)
					})
				}
				return r.skip()
			})
		case "config":
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			return r.members(func(name []byte) error {
				if string(name) == "description" {
					var err error
					description, _, err = r.optStr()
					return err
				}
				return r.skip()
			})
		}
		return r.skip()
	})
	if err == nil {
		err = r.end()
	}
	if err != nil {
		return err
	}
	if len(noID) > 0 {
		return &suite.InputError{File: im.src.Name, Line: d.lineAt(noIDOff), Field: noID[0],
			Msg: fmt.Sprintf("%d of the %d results have no case id (%s): give every test one, as metadata: {case_id: …} (or vars: {case_id: …}, or a description) in the promptfoo config, and run the eval again",
				noIDCount, total, strings.Join(noID, ", "))}
	}
	im.locate = func(at int64) string { return fmt.Sprintf("results.results[%d]", at) }
	recordedAt := ""
	if timestamp != "" {
		if _, ok := load.RecordedAt(&suite.Meta{RecordedAt: timestamp}); ok {
			recordedAt = timestamp
		} else {
			im.note("the export's results.timestamp %q is not an RFC 3339 date and time, so meta.json has no recorded_at", timestamp)
		}
	}
	for _, s := range im.snapshots {
		p := providers[s.ProviderKey]
		s.Provider = p.providerLabel
		if s.Provider == "" {
			s.Provider = p.providerID
		}
		s.Meta = Meta{RecordedAt: recordedAt, Model: p.providerID, Description: description}
	}
	return nil
}

// promptfooRecord fills in the record of a result that has a case id.
func (im *importer) promptfooRecord(rec *record, res *pfResult) {
	switch {
	case res.failureReason == "2":
		rec.failed = firstLine(res.responseError, firstLine(res.errorText, "promptfoo recorded an error (failureReason 2)"))
	case !res.hasResponse:
		rec.failed = firstLine(res.errorText, "no response was recorded")
	case res.responseError != "":
		rec.failed = firstLine(res.responseError, "the provider answered with an error")
	}
	rec.calls, rec.latency = res.calls, res.latency
	switch {
	case res.cost != nil:
		rec.cost = res.cost
	case res.respCost != nil:
		rec.cost = res.respCost
	case res.respIn != nil && res.respOut != nil:
		rec.cost = im.priced(res.respIn, res.respOut)
	default:
		rec.cost = im.priced(res.in, res.out)
	}
}

// promptfooResult reads one EvaluateResult.
func (r *reader) promptfooResult() (*pfResult, error) {
	res := &pfResult{}
	err := r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "provider":
			err = r.promptfooProvider(res)
		case "promptId":
			res.promptID, _, err = r.optStr()
		case "promptIdx":
			res.promptIdx, _, err = r.optNum()
		case "testCase":
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			err = r.members(func(name []byte) error {
				switch string(name) {
				case "metadata":
					return r.caseIDIn(res, 0)
				case "vars":
					return r.caseIDIn(res, 2)
				case "description":
					return r.caseIDText(res, 4)
				}
				return r.skip()
			})
		case "metadata":
			err = r.caseIDIn(res, 1)
		case "vars":
			err = r.caseIDIn(res, 3)
		case "description":
			err = r.caseIDText(res, 5)
		case "failureReason":
			res.failureReason, _, err = r.optNum()
		case "error":
			res.errorText, err = r.anyText()
		case "latencyMs":
			res.latency, err = r.decimal()
		case "cost":
			res.cost, err = r.decimal()
		case "tokenUsage":
			res.in, res.out, err = r.tokenUsage()
		case "response":
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			res.hasResponse = true
			err = r.members(func(name []byte) error {
				var err error
				switch string(name) {
				case "output":
					res.calls, err = r.promptfooOutput()
				case "error":
					res.responseError, err = r.anyText()
				case "cost":
					res.respCost, err = r.decimal()
				case "tokenUsage":
					res.respIn, res.respOut, err = r.tokenUsage()
				default:
					err = r.skip()
				}
				return err
			})
		default:
			err = r.skip()
		}
		return err
	})
	return res, err
}

// promptfooProvider reads a result's provider: {id, label}, or a plain
// id in older exports.
func (r *reader) promptfooProvider(res *pfResult) error {
	k, err := r.peek()
	if err != nil {
		return err
	}
	if k == '"' {
		res.providerID, err = r.str()
		return err
	}
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "id":
			res.providerID, _, err = r.optStr()
		case "label":
			res.providerLabel, _, err = r.optStr()
		default:
			err = r.skip()
		}
		return err
	})
}

// caseIDIn reads the case_id member of a metadata or vars object into
// slot i of the result's ids.
func (r *reader) caseIDIn(res *pfResult, i int) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		if string(name) != "case_id" {
			return r.skip()
		}
		res.idOffs[i] = r.here()
		k, err := r.peek()
		if err != nil {
			return err
		}
		switch k {
		case 'n':
			_, err = r.isNull()
		case '"', '0':
			res.ids[i], _, err = r.sampleID()
		default:
			err = r.fail("expected a string or a number, got %s", kindName(k))
		}
		return err
	})
}

// caseIDText reads a description into slot i of the result's ids.
func (r *reader) caseIDText(res *pfResult, i int) error {
	res.idOffs[i] = r.here()
	var err error
	res.ids[i], _, err = r.optStr()
	return err
}

// anyText reads an error member: a string as it is, null as "", any
// other value as its JSON text.
func (r *reader) anyText() (string, error) {
	k, err := r.peek()
	if err != nil {
		return "", err
	}
	switch k {
	case 'n':
		_, err := r.isNull()
		return "", err
	case '"':
		return r.str()
	}
	v, err := r.value()
	return string(v), err
}

// tokenUsage reads promptfoo's TokenUsage: prompt and completion counts.
func (r *reader) tokenUsage() (in, out *Decimal, err error) {
	if null, err := r.isNull(); null || err != nil {
		return nil, nil, err
	}
	err = r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "prompt":
			in, err = r.decimal()
		case "completion":
			out, err = r.decimal()
		default:
			err = r.skip()
		}
		return err
	})
	return in, out, err
}

// promptfooOutput reads a response's output and returns the calls it
// holds: a list of calls in any shape, or an object with a tool_calls
// list (an OpenAI message with content and calls). Text holds none, and
// so does a list with an element that is not an object (data, not
// calls).
func (r *reader) promptfooOutput() ([]call, error) {
	k, err := r.peek()
	if err != nil {
		return nil, err
	}
	switch k {
	case '[':
		return r.callList()
	case '{':
		var calls []call
		err := r.members(func(name []byte) error {
			if string(name) != "tool_calls" {
				return r.skip()
			}
			if null, err := r.isNull(); null || err != nil {
				return err
			}
			var err error
			calls, err = r.callList()
			return err
		})
		return calls, err
	}
	return nil, r.skip()
}

// callList reads a list of items that may be calls and returns the
// calls; items of other types (text, reasoning) are left out, and a list
// holding anything but objects holds no calls.
func (r *reader) callList() ([]call, error) {
	if k, err := r.peek(); err != nil || k != '[' {
		if err != nil {
			return nil, err
		}
		return nil, r.skip()
	}
	var calls []call
	data := false
	err := r.elements(func(int) error {
		if k, err := r.peek(); err != nil || k != '{' {
			data = true
			if err != nil {
				return err
			}
			return r.skip()
		}
		it, err := r.readCallItem()
		if err != nil || !it.isCall() {
			return err
		}
		c, err := r.call(it)
		calls = append(calls, c)
		return err
	})
	if data {
		return nil, err
	}
	return calls, err
}
