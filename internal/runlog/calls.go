package runlog

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// call is one tool call of the agent, ready to be written in the plain
// shape {"name": …, "arguments": …}: args is a JSON object, or a JSON
// string when the agent sent arguments that are not a JSON object (its
// mistake, judged later, so it is kept as sent).
type call struct {
	name string
	args jsontext.Value
}

// callItem holds the members of an item that may be a tool call, in any
// of the shapes agents' APIs write them:
//
//	{"name": …, "arguments": …}                                   plain
//	{"function": "<name>", "arguments": …}                         Inspect AI
//	{"type": "function", "function": {"name": …, "arguments": …}}  OpenAI Chat Completions
//	{"type": "custom", "custom": {"name": …, "input": …}}          OpenAI Chat Completions, custom tool
//	{"type": "function_call", "name": …, "arguments": …}           OpenAI Responses
//	{"type": "tool_use", "name": …, "input": …}                    Anthropic Messages
//
// Other members (id, call_id, parse_error, view, …) are skipped.
type callItem struct {
	typ     string
	hasType bool
	// name, args and input are the item's own members.
	name, args, input jsontext.Value
	hasArgs, hasInput bool
	// function is the function member when it is a string (Inspect);
	// fn the name and arguments inside it when it is an object (Chat
	// Completions), custom those of a custom tool's call.
	function   jsontext.Value
	fn, custom innerCall
	// start is where the item begins, nameOff where its name is.
	start, nameOff int64
}

// innerCall is the object holding a call's name and arguments.
type innerCall struct {
	present bool
	name    jsontext.Value
	args    jsontext.Value
	hasArgs bool
	nameOff int64
}

// readCallItem reads an object that may be a call. It reads only the
// members a call has; every other member is skipped without being kept.
// The call is checked and made (call) while the reader is still at the
// item, so that messages name it.
func (r *reader) readCallItem() (*callItem, error) {
	it := &callItem{start: r.here()}
	it.nameOff = it.start
	err := r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "type":
			var ok bool
			if it.typ, ok, err = r.optStr(); ok {
				it.hasType = true
			}
		case "name":
			it.nameOff = r.here()
			it.name, err = r.value()
		case "function":
			k, err := r.peek()
			if err != nil {
				return err
			}
			if k == '{' {
				return r.readInner(&it.fn, "arguments")
			}
			it.nameOff = r.here()
			it.function, err = r.value()
			return err
		case "custom":
			if k, err := r.peek(); err != nil || k != '{' {
				if err != nil {
					return err
				}
				return r.skip()
			}
			return r.readInner(&it.custom, "input")
		case "arguments":
			it.args, err = r.value()
			it.hasArgs = true
		case "input":
			it.input, err = r.value()
			it.hasInput = true
		default:
			err = r.skip()
		}
		return err
	})
	return it, err
}

// readInner reads the object inside a Chat Completions call: its name
// and the member argsName holding its arguments.
func (r *reader) readInner(in *innerCall, argsName string) error {
	in.present = true
	return r.members(func(name []byte) error {
		var err error
		switch string(name) {
		case "name":
			in.nameOff = r.here()
			in.name, err = r.value()
		case argsName:
			in.args, err = r.value()
			in.hasArgs = true
		default:
			err = r.skip()
		}
		return err
	})
}

// isCall reports whether the item is a tool call in one of the shapes
// above; a typed item of another type (a text block, a reasoning item, a
// server tool's call) is not.
func (it *callItem) isCall() bool {
	switch {
	case it.function.Kind() == '"':
		return true // Inspect AI, whatever its type says
	case it.hasType && it.typ == "function":
		return it.fn.present
	case it.hasType && it.typ == "custom":
		return it.custom.present
	case it.hasType && (it.typ == "function_call" || it.typ == "tool_use"):
		return true
	case it.hasType:
		return false
	}
	return it.name.Kind() == '"' && it.hasArgs
}

// call returns the item as a call; r must still be at the item, for
// messages. The item must be a call (isCall).
func (r *reader) call(it *callItem) (call, error) {
	name, nameOff, nameField := it.name, it.nameOff, "name"
	args, hasArgs := it.args, it.hasArgs
	switch {
	case it.function.Kind() == '"':
		name, nameField = it.function, "function"
	case it.typ == "function" && it.fn.present:
		name, nameOff, nameField = it.fn.name, it.fn.nameOff, "function.name"
		args, hasArgs = it.fn.args, it.fn.hasArgs
	case it.typ == "custom" && it.custom.present:
		name, nameOff, nameField = it.custom.name, it.custom.nameOff, "custom.name"
		args, hasArgs = it.custom.args, it.custom.hasArgs
	case it.typ == "tool_use":
		args, hasArgs = it.input, it.hasInput
	}
	bad := func(msg string) error {
		return &problem{doc: r.doc, off: nameOff, field: r.field() + "." + nameField, msg: msg}
	}
	if name == nil {
		return call{}, bad("missing: a tool call needs the name of the tool")
	}
	if name.Kind() != '"' {
		return call{}, bad("expected a string, got " + kindName(name.Kind()))
	}
	s, err := jsontext.AppendUnquote(nil, name)
	if err != nil || len(s) == 0 {
		return call{}, bad("the tool name is empty")
	}
	c := call{name: string(s), args: normalArguments(args)}
	if !hasArgs {
		c.args = jsontext.Value("{}")
	}
	return c, nil
}

// normalArguments returns a call's arguments as they are written: an
// object as it is; a string that holds a JSON object (as the OpenAI APIs
// send arguments) as that object; null as {}; and anything else as a
// string: a string as sent, another value as its JSON text. The test for
// "holds a JSON object" is the evaluator's own, so a string it would not
// read as arguments is never turned into an object here.
func normalArguments(v jsontext.Value) jsontext.Value {
	switch v.Kind() {
	case '{':
		return v
	case 'n', 0:
		return jsontext.Value("{}")
	case '"':
		s, err := jsontext.AppendUnquote(nil, v)
		if err != nil {
			return v
		}
		text := bytes.Trim(s, " \t\r\n")
		if len(text) > 0 && text[0] == '{' && jsontext.Value(text).IsValid() {
			return jsontext.Value(text)
		}
		return v
	}
	q, err := jsontext.AppendQuote(nil, v)
	if err != nil {
		return jsontext.Value(`""`)
	}
	return q
}
