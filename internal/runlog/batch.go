package runlog

import (
	"fmt"
	"io"
	"slices"
	"strconv"
)

// The results of a batch are JSON Lines, one request's outcome a line,
// named by the custom_id the request was sent with.
//
// OpenAI (BatchRequestOutput): {id, custom_id, response: {status_code,
// request_id, body} or null, error: {code, message} or null}; the body is
// a Chat Completion (choices[0].message.tool_calls, usage.prompt_tokens
// and completion_tokens) or a Response (output items of type
// function_call, usage.input_tokens and output_tokens).
//
// Anthropic (MessageBatchIndividualResponse): {custom_id, result: {type:
// succeeded, message} or {type: errored, error} or {type: expired} or
// {type: canceled}}; the message's content holds tool_use blocks, its
// usage input_tokens and output_tokens.

// readJSONLines calls line with each object of a JSON Lines file and the
// offset it starts at.
func readJSONLines(im *importer, line func(r *reader, at int64) error) error {
	d, r := im.document()
	im.locate = func(at int64) string { return "line " + strconv.Itoa(d.lineAt(at)) }
	for {
		k := r.dec.PeekKind()
		if k == 0 {
			_, err := r.dec.ReadToken()
			if err == io.EOF {
				return nil
			}
			return r.syntax(err)
		}
		at := r.here()
		if k != '{' {
			return &problem{doc: d, off: at, msg: fmt.Sprintf("expected a JSON object on each line, got %s", kindName(k))}
		}
		if err := line(r, at); err != nil {
			return err
		}
	}
}

// batchID reads a custom_id.
func (r *reader) batchID(rec *record) error {
	rec.idField = "custom_id" // a member of the line itself
	var err error
	rec.caseID, rec.idOff, err = r.sampleID()
	return err
}

// missingID is a batch line without its custom_id.
func missingID(r *reader, at int64) error {
	return &problem{doc: r.doc, off: at, field: "custom_id", msg: "missing: every batch request is named by its custom_id, which is its case id"}
}

func readOpenAIBatch(im *importer) error {
	return readJSONLines(im, func(r *reader, at int64) error {
		rec := &record{at: at, idDoc: r.doc}
		var hasID, hasResponse bool
		var lineErr string
		var status string
		var body openAIBody
		err := r.members(func(name []byte) error {
			var err error
			switch string(name) {
			case "custom_id":
				hasID = true
				err = r.batchID(rec)
			case "error":
				lineErr, err = r.apiError()
			case "response":
				if null, err := r.isNull(); null || err != nil {
					return err
				}
				hasResponse = true
				err = r.members(func(name []byte) error {
					var err error
					switch string(name) {
					case "status_code":
						status, _, err = r.optNum()
					case "body":
						err = r.openAIBody(&body)
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
		if err != nil {
			return err
		}
		if !hasID {
			return missingID(r, at)
		}
		code, _ := strconv.Atoi(status)
		switch {
		case lineErr != "":
			rec.failed = lineErr
		case !hasResponse:
			rec.failed = "no response (response is null)"
		case code < 200 || code > 299:
			rec.failed = "HTTP " + status
			if body.err != "" {
				rec.failed += ": " + body.err
			}
		case body.hasErr:
			rec.failed = firstLine(body.err, "the response body holds an error")
		}
		rec.calls, rec.model = body.calls, body.model
		rec.cost = im.priced(body.in, body.out)
		return im.add(rec)
	})
}

// openAIBody is what the importer reads of a response body.
type openAIBody struct {
	model   string
	calls   []call
	hasErr  bool
	err     string
	in, out *Decimal
}

// openAIBody reads a Chat Completion or a Response.
func (r *reader) openAIBody(b *openAIBody) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "model":
			b.model, _, err = r.optStr()
		case "error":
			b.err, err = r.apiError()
			b.hasErr = b.err != ""
		case "choices":
			err = r.openAIChoices(b)
		case "output":
			err = r.openAIOutput(b)
		case "usage":
			err = r.openAIUsage(b)
		default:
			err = r.skip()
		}
		return err
	})
}

// openAIChoices reads a Chat Completion's choices (or null): the tool
// calls of the first choice's message, which is the answer.
func (r *reader) openAIChoices(b *openAIBody) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.elements(func(i int) error {
		if i > 0 {
			return r.skip() // only the first choice is the answer
		}
		return r.members(func(name []byte) error {
			if string(name) != "message" {
				return r.skip()
			}
			return r.openAIMessage(b)
		})
	})
}

// openAIMessage reads a choice's message (or null), keeping its
// tool_calls, every one of which must be a tool call.
func (r *reader) openAIMessage(b *openAIBody) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		if string(name) != "tool_calls" {
			return r.skip()
		}
		if null, err := r.isNull(); null || err != nil {
			return err
		}
		var err error
		b.calls, err = r.strictCalls(`{"type": "function", "function": {"name": …, "arguments": …}}`)
		return err
	})
}

// openAIOutput reads a Response's output items (or null), keeping the
// function calls.
func (r *reader) openAIOutput(b *openAIBody) error { return r.callItems("function_call", &b.calls) }

// openAIUsage reads the usage (or null) under the names of either API:
// prompt and completion tokens, or input and output tokens.
func (r *reader) openAIUsage(b *openAIBody) error {
	return r.tokenCounts([]string{"prompt_tokens", "input_tokens"}, []string{"completion_tokens", "output_tokens"}, &b.in, &b.out)
}

// callItems reads a list of items (or null) and appends to calls those of
// type typ, each a tool call; items of other types are passed over.
func (r *reader) callItems(typ string, calls *[]call) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.elements(func(int) error {
		it, err := r.readCallItem()
		if err != nil || it.typ != typ {
			return err
		}
		c, err := r.call(it)
		*calls = append(*calls, c)
		return err
	})
}

// tokenCounts reads an object of token counts (or null) into in and out,
// each under any of its names; other members are passed over.
func (r *reader) tokenCounts(inNames, outNames []string, in, out **Decimal) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		var err error
		switch {
		case slices.Contains(inNames, string(name)):
			*in, err = r.decimal()
		case slices.Contains(outNames, string(name)):
			*out, err = r.decimal()
		default:
			err = r.skip()
		}
		return err
	})
}

// strictCalls reads a list whose every item is a tool call, as a
// message's tool_calls are; an item in no known shape is bad input.
func (r *reader) strictCalls(shape string) ([]call, error) {
	var calls []call
	err := r.elements(func(int) error {
		it, err := r.readCallItem()
		if err != nil {
			return err
		}
		if !it.isCall() {
			return &problem{doc: r.doc, off: it.start, field: r.field(), msg: "not a tool call in a shape releasegate knows: expected " + shape}
		}
		c, err := r.call(it)
		calls = append(calls, c)
		return err
	})
	return calls, err
}

// apiError reads an error member ({code, type, message} or null) and
// returns "code: message" (the type when there is no code), "" for null.
func (r *reader) apiError() (string, error) {
	k, err := r.peek()
	if err != nil {
		return "", err
	}
	switch k {
	case 'n':
		_, err := r.isNull()
		return "", err
	case '"':
		s, err := r.str()
		return firstLine(s, "error"), err
	case '{':
		var code, typ, msg string
		err := r.members(func(name []byte) error {
			var err error
			switch string(name) {
			case "code":
				code, err = r.anyText()
			case "type":
				typ, err = r.anyText()
			case "message":
				msg, err = r.anyText()
			default:
				err = r.skip()
			}
			return err
		})
		if code == "" {
			code = typ
		}
		switch {
		case code != "" && msg != "":
			return firstLine(code+": "+msg, "error"), err
		case code != "":
			return firstLine(code, "error"), err
		}
		return firstLine(msg, "error"), err
	}
	v, err := r.value()
	return firstLine(string(v), "error"), err
}

func readAnthropicBatch(im *importer) error {
	return readJSONLines(im, func(r *reader, at int64) error {
		l := &anthropicLine{rec: &record{at: at, idDoc: r.doc}}
		if err := r.anthropicLine(l); err != nil {
			return err
		}
		if !l.hasID {
			return missingID(r, at)
		}
		if !l.hasResult {
			return &problem{doc: r.doc, off: at, field: "result", msg: "missing: each line holds the result of one request"}
		}
		if err := l.settle(r, at); err != nil {
			return err
		}
		l.rec.cost = im.priced(l.in, l.out)
		return im.add(l.rec)
	})
}

// anthropicLine is what the importer reads of one line of an Anthropic
// batch's results: the record, and what decides whether it failed.
type anthropicLine struct {
	rec              *record
	hasID, hasResult bool
	typ, errText     string // result.type and result.error
	typeOff          int64  // where result.type is, for messages
	typeField        string
	in, out          *Decimal // tokens used
}

// anthropicLine reads one line: {custom_id, result}.
func (r *reader) anthropicLine(l *anthropicLine) error {
	return r.members(func(name []byte) error {
		switch string(name) {
		case "custom_id":
			l.hasID = true
			return r.batchID(l.rec)
		case "result":
			l.hasResult = true
			return r.anthropicResult(l)
		}
		return r.skip()
	})
}

// anthropicResult reads a result: {type, error, message}.
func (r *reader) anthropicResult(l *anthropicLine) error {
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "type":
			l.typeOff, l.typeField = r.here(), r.field()
			l.typ, _, err = r.optStr()
		case "error":
			l.errText, err = r.anthropicError()
		case "message":
			err = r.anthropicMessage(l)
		default:
			err = r.skip()
		}
		return err
	})
}

// anthropicMessage reads a succeeded result's message (or null): the
// model, the tool_use blocks of its content, and its usage.
func (r *reader) anthropicMessage(l *anthropicLine) error {
	if null, err := r.isNull(); null || err != nil {
		return err
	}
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "model":
			l.rec.model, _, err = r.optStr()
		case "content":
			err = r.anthropicContent(l.rec)
		case "usage":
			err = r.anthropicUsage(l)
		default:
			err = r.skip()
		}
		return err
	})
}

// anthropicContent reads a message's content blocks (or null), keeping the
// tool calls.
func (r *reader) anthropicContent(rec *record) error { return r.callItems("tool_use", &rec.calls) }

// anthropicUsage reads a message's usage (or null): the tokens in and out.
func (r *reader) anthropicUsage(l *anthropicLine) error {
	return r.tokenCounts([]string{"input_tokens"}, []string{"output_tokens"}, &l.in, &l.out)
}

// anthropicFailures words the result types of a request that was not
// processed; errored is worded with its error.
var anthropicFailures = map[string]string{
	"expired":  "expired: the batch ended before the request was processed",
	"canceled": "canceled: the batch was canceled before the request was processed",
}

// settle marks the record failed for a result that did not succeed, which
// then has neither calls nor model, and refuses a missing or unknown type.
func (l *anthropicLine) settle(r *reader, at int64) error {
	switch l.typ {
	case "succeeded":
	case "errored":
		l.rec.failed = "errored: " + firstLine(l.errText, "the request failed")
	case "":
		return &problem{doc: r.doc, off: at, field: "result.type", msg: "missing: expected succeeded, errored, expired or canceled"}
	default:
		failed, known := anthropicFailures[l.typ]
		if !known {
			return &problem{doc: r.doc, off: l.typeOff, field: l.typeField, msg: fmt.Sprintf("unknown result type %q: expected succeeded, errored, expired or canceled", l.typ)}
		}
		l.rec.failed = failed
	}
	if l.rec.failed != "" {
		l.rec.calls, l.rec.model = nil, ""
	}
	return nil
}

// anthropicError reads an errored result's error, an ErrorResponse
// {type: "error", error: {type, message}}, and returns "type: message".
func (r *reader) anthropicError() (string, error) {
	k, err := r.peek()
	if err != nil {
		return "", err
	}
	if k != '{' {
		return r.anyText()
	}
	text := ""
	err = r.members(func(name []byte) error {
		if string(name) != "error" {
			return r.skip()
		}
		var err error
		text, err = r.apiError()
		return err
	})
	return text, err
}
