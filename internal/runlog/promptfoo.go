package runlog

import (
	"bytes"
	"fmt"
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

// readPromptfoo reads a promptfoo export, one result at a time: the
// JSON document -o results.json writes, or the JSON Lines of results that
// -o results.jsonl writes (which record no timestamp or description).
func readPromptfoo(im *importer) error {
	p := &pfState{im: im, occurrences: map[pfKey]int{}, providers: map[string][2]string{}, groups: map[string]string{}, prompts: map[string]int32{}}
	if promptfooLines(im.src) {
		err := readJSONLines(im, func(r *reader, at int64) error {
			return p.result(r, at, "line "+strconv.Itoa(r.doc.lineAt(at)), "", "")
		})
		if err != nil {
			return err
		}
		return p.finish("", "")
	}
	_, r := im.document()
	var timestamp, description string
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
						prefix := "results.results[" + strconv.Itoa(i) + "]"
						return p.result(r, int64(i), prefix, prefix, prefix+".")
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
	im.locate = func(at int64) string { return fmt.Sprintf("results.results[%d]", at) }
	return p.finish(timestamp, description)
}

// promptfooLines reports whether a promptfoo file holds JSON Lines of
// results rather than an export: its first object is a result.
func promptfooLines(src Source) bool {
	head := make([]byte, min(src.Size, sniffBytes))
	n, _ := src.Data.ReadAt(head, 0)
	text := bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\xef\xbb\xbf")), " \t\r\n")
	keys, _, _ := topKeys(text)
	return isPromptfooResult(keys)
}

// isPromptfooResult reports whether the member names of an object are an
// EvaluateResult's.
func isPromptfooResult(keys map[string]bool) bool {
	return keys["testCase"] || keys["provider"] && (keys["response"] || keys["promptIdx"] || keys["failureReason"])
}

// pfState is what reading a promptfoo file keeps from result to result.
type pfState struct {
	im *importer
	// occurrences counts the answers so far of each provider, case and
	// prompt; providers and prompts are numbered, so that a key costs
	// the case id and two numbers, not three strings a result.
	occurrences map[pfKey]int
	providers   map[string][2]string // a provider's id and label, by its key
	groups      map[string]string    // a provider's key, kept once
	prompts     map[string]int32
	noID        []string // where results without a case id are
	noIDOff     int64
	noIDDoc     doc
	noIDField   string
	noIDCount   int
	total       int
}

// result reads one EvaluateResult at `at` (an index or an offset), named
// where in messages; field is its JSON path and idPrefix what its id
// fields' paths start with.
func (p *pfState) result(r *reader, at int64, where, field, idPrefix string) error {
	p.total++
	off := r.here()
	res, err := r.promptfooResult()
	if err != nil {
		return err
	}
	rec := &record{at: at, idDoc: r.doc}
	for j, id := range res.ids {
		if id != "" {
			rec.caseID, rec.idOff, rec.idField = id, res.idOffs[j], idPrefix+idSources[j]
			break
		}
	}
	if rec.caseID == "" {
		if p.noIDCount == 0 {
			p.noIDOff, p.noIDDoc, p.noIDField = off, r.doc, field
		}
		p.noIDCount++
		if len(p.noID) < 5 {
			p.noID = append(p.noID, where)
		} else if len(p.noID) == 5 {
			p.noID = append(p.noID, "…")
		}
		return nil
	}
	if p.noIDCount > 0 {
		return nil // the file is refused; only the list grows
	}
	group := res.providerID + "\x00" + res.providerLabel
	if g, ok := p.groups[group]; ok {
		rec.group = g
	} else {
		rec.group = group
		p.groups[group] = group
		p.providers[group] = [2]string{res.providerID, res.providerLabel}
	}
	prompt := res.promptID + "\x00" + res.promptIdx
	n, ok := p.prompts[prompt]
	if !ok {
		n = int32(len(p.prompts))
		p.prompts[prompt] = n
	}
	k := pfKey{group: rec.group, prompt: n, caseID: rec.caseID}
	p.occurrences[k]++
	rec.trial = p.occurrences[k]
	p.im.promptfooRecord(rec, res)
	return p.im.add(rec)
}

// pfKey is a provider (its interned key), a prompt and a case.
type pfKey struct {
	group  string
	prompt int32
	caseID string
}

// finish refuses a file with results that have no case id, and gives
// each provider's snapshot its name and meta.
func (p *pfState) finish(timestamp, description string) error {
	im := p.im
	if p.noIDCount > 0 {
		return &suite.InputError{File: im.src.Name, Line: p.noIDDoc.lineAt(p.noIDOff), Field: p.noIDField,
			Msg: fmt.Sprintf("%d of the %d results have no case id (%s): give every test one, as metadata: {case_id: …} (or vars: {case_id: …}, or a description) in the promptfoo config, and run the eval again",
				p.noIDCount, p.total, strings.Join(p.noID, ", "))}
	}
	recordedAt := ""
	if timestamp != "" {
		if _, ok := load.RecordedAt(&suite.Meta{RecordedAt: timestamp}); ok {
			recordedAt = timestamp
		} else {
			im.note("the export's results.timestamp %q is not an RFC 3339 date and time, so meta.json has no recorded_at", timestamp)
		}
	}
	for _, s := range im.snapshots {
		id, label := p.providers[s.ProviderKey][0], p.providers[s.ProviderKey][1]
		s.Provider = label
		if s.Provider == "" {
			s.Provider = id
		}
		s.Meta = Meta{RecordedAt: recordedAt, Model: id, Description: description}
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
			err = r.promptfooTestCase(res)
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
			err = r.promptfooResponse(res)
		default:
			err = r.skip()
		}
		return err
	})
	return res, err
}

// promptfooTestCase reads a result's testCase (or null) for the places
// a case id may be: its metadata, vars and description, each ranked just
// before the result's own member of that name (slots 0, 2 and 4 of the
// result's ids).
func (r *reader) promptfooTestCase(res *pfResult) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
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
}

// promptfooResponse reads a result's response (or null): the answer's
// tool calls, its error, and its cost and tokens.
func (r *reader) promptfooResponse(res *pfResult) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	res.hasResponse = true
	return r.members(func(name []byte) error {
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
	err = r.tokenCounts([]string{"prompt"}, []string{"completion"}, &in, &out)
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
