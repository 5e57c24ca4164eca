package load

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// An output's tool calls come in the wire formats of the agents' APIs
// (CONTRACT §8.4). Both readers of output lines decode each call into an
// Object and hand it to outputCall, the one place that knows the formats:
//
//	{"name": …, "arguments": …}                                  plain
//	{"type": "function", "function": {"name": …, "arguments": …}} OpenAI Chat Completions
//	{"type": "function_call", "name": …, "arguments": …}          OpenAI Responses
//	{"type": "tool_use", "name": …, "input": …}                   Anthropic Messages
//
// Other members are ignored. Arguments are an object or a string holding
// one; a string holding anything else is the agent's mistake, not bad
// input, and the call is kept as Unreadable with the string as Raw.

// callProblem is what makes a call item bad input: the field, relative
// to the item, and the message.
type callProblem struct {
	field, msg string
}

// outputCall reads one item of an output's tool_calls.
func (d *jsonDecoder) outputCall(item suite.Object) (suite.ToolCall, *callProblem) {
	body, prefix, argsName := item, "", "arguments"
	typ, _ := item.Get("type")
	switch typ {
	case "function":
		if fn, ok := item.Get("function"); ok {
			obj, ok := fn.(suite.Object)
			if !ok {
				return suite.ToolCall{}, &callProblem{"function", "expected an object, got " + typeName(fn)}
			}
			body, prefix = obj, "function."
		}
	case "tool_use":
		argsName = "input"
	}
	var call suite.ToolCall
	name, ok := body.Get("name")
	if !ok {
		return call, &callProblem{prefix + "name", "missing required field"}
	}
	if call.Name, ok = name.(string); !ok {
		return call, &callProblem{prefix + "name", "expected a string, got " + typeName(name)}
	}
	if call.Name == "" {
		return call, &callProblem{prefix + "name", "must not be empty"}
	}
	args, ok := body.Get(argsName)
	if !ok {
		return call, &callProblem{prefix + argsName, "missing required field"}
	}
	switch a := args.(type) {
	case suite.Object:
		call.Arguments = a
	case string:
		if obj, ok := d.argumentString(a); ok {
			call.Arguments = obj
		} else {
			call.Unreadable, call.Raw = true, a
		}
	default:
		return call, &callProblem{prefix + argsName, "expected an object or a string holding one, got " + typeName(args)}
	}
	call.Name = d.intern([]byte(call.Name))
	return call, nil
}

// argumentString decodes arguments sent as a string, as the OpenAI APIs
// send them; it reports false unless the string holds exactly one JSON
// object.
func (d *jsonDecoder) argumentString(s string) (suite.Object, bool) {
	text := bytes.Trim([]byte(s), " \t\r\n")
	if len(text) == 0 || text[0] != '{' || !jsontext.Value(text).IsValid() {
		return nil, false
	}
	// The decoder may be in the middle of a line, so the string is built
	// by the scanner, which needs no decoder state.
	sc := &validScanner{b: text, d: d}
	obj, ok := sc.value().(suite.Object)
	return obj, ok
}
