package load

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// An output's tool calls come in the wire formats of the agents' APIs
// and evaluation frameworks (docs/real-data.md, "Tool calls as agents
// write them"). Both readers of output lines decode each call into an
// Object and hand it to outputCall, the one place that knows the formats:
//
//	{"name": …, "arguments": …}                                  plain
//	{"type": "function", "function": {"name": …, "arguments": …}} OpenAI Chat Completions
//	{"type": "function_call", "name": …, "arguments": …}          OpenAI Responses
//	{"type": "tool_use", "name": …, "input": …}                   Anthropic Messages
//	{"function": "<name>", "arguments": …}                        Inspect AI
//
// Inspect's calls also carry "type": "function"; a string "function"
// tells them from Chat Completions, whose "function" is an object.
// Other members are ignored. Arguments are an object or a string holding
// one; a string holding anything else is the agent's mistake, not bad
// input, and the call is kept as Unreadable with the string as Raw.

// callProblem is what makes a call item bad input: the field, relative
// to the item, and the message.
type callProblem struct {
	field, msg string
}

// callItem holds the members of a call item that outputCall reads; the
// readers skip every other member without building it.
type callItem struct {
	typ                         string // "" when absent or not a string
	name, args, input, function any
	hasName, hasArgs, hasInput  bool
	hasFunction                 bool
}

// set records member name of a call item, given its value; it reports
// false for a member outputCall does not read.
func (c *callItem) set(name string, value func() any) bool {
	switch name {
	case "type":
		c.typ, _ = value().(string)
	case "name":
		c.name, c.hasName = value(), true
	case "arguments":
		c.args, c.hasArgs = value(), true
	case "input":
		c.input, c.hasInput = value(), true
	case "function":
		c.function, c.hasFunction = value(), true
	default:
		return false
	}
	return true
}

// outputCall reads one item of an output's tool_calls.
func (d *jsonDecoder) outputCall(item *callItem) (suite.ToolCall, *callProblem) {
	prefix, nameField, argsName := "", "name", "arguments"
	name, hasName, args, hasArgs := item.name, item.hasName, item.args, item.hasArgs
	fnName, inspect := item.function.(string)
	switch {
	case inspect && !item.hasName:
		nameField, name, hasName = "function", fnName, true
	case item.typ == "function" && item.hasFunction:
		fn, ok := item.function.(suite.Object)
		if !ok {
			return suite.ToolCall{}, &callProblem{"function", "expected an object, got " + typeName(item.function)}
		}
		prefix = "function."
		name, hasName = fn.Get("name")
		args, hasArgs = fn.Get("arguments")
	case item.typ == "tool_use":
		argsName, args, hasArgs = "input", item.input, item.hasInput
	}
	var call suite.ToolCall
	if !hasName {
		return call, &callProblem{prefix + nameField, "missing required field"}
	}
	var ok bool
	if call.Name, ok = name.(string); !ok {
		return call, &callProblem{prefix + nameField, "expected a string, got " + typeName(name)}
	}
	if call.Name == "" {
		return call, &callProblem{prefix + nameField, "must not be empty"}
	}
	if !hasArgs {
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
