package load

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/suggest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// CaseSchema is a compiled case.schema.json.
type CaseSchema struct {
	schema *jsonschema.Schema
	// quick answers for the common keywords; nil when the schema uses
	// others.
	quick *quickSchema
	// opaqueInput is set when the schema asks nothing of a case's input
	// but to be an object. Its members then need not be decoded to
	// validate a case (see "Fast paths" in docs/design.md).
	opaqueInput bool
	// Decisions are the enum the schema gives expected.decision, empty
	// when it gives none.
	Decisions suite.Vocabulary
}

// Validate checks v, as the decoder builds it, against the schema.
func (cs *CaseSchema) Validate(v any) error {
	if cs.quick != nil && cs.quick.check(v) == yes {
		return nil
	}
	return cs.schema.Validate(suite.ToTree(v))
}

// CompileSchema compiles a case schema (JSON Schema, draft 2020-12 unless
// the document says otherwise). References to other documents are refused:
// a gate must not depend on the network or on files outside its data.
func CompileSchema(file string, src []byte) (*CaseSchema, error) {
	// A byte-order mark, which some editors save, is not a mistake.
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(bytes.TrimPrefix(src, bom)))
	if err != nil {
		return nil, &suite.InputError{File: file, Line: 1, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	const url = "releasegate:///case.schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, &suite.InputError{File: file, Msg: fmt.Sprintf("not a usable JSON Schema: %v", err)}
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, &suite.InputError{File: file, Msg: fmt.Sprintf("not a usable JSON Schema: %v", err)}
	}
	quick, _ := compileQuick(s)
	return &CaseSchema{schema: s, quick: quick, opaqueInput: opaqueMember(doc, "input"), Decisions: decisionsOf(s)}, nil
}

// decisionsOf reads the decision vocabulary off a case schema: the enum
// (or const) of properties.expected.properties.decision, following $ref
// at each step. It is empty when the schema gives no such enum.
func decisionsOf(s *jsonschema.Schema) suite.Vocabulary {
	decision := property(property(s, "expected"), "decision")
	for seen := 0; decision != nil && seen < 32; seen++ {
		var values []any
		switch {
		case decision.Enum != nil:
			values = decision.Enum.Values
		case decision.Const != nil:
			values = []any{*decision.Const}
		default:
			decision = decision.Ref
			continue
		}
		var v suite.Vocabulary
		for _, e := range values {
			if d, ok := e.(string); ok && d != "" {
				v = append(v, suite.Decision(d))
			}
		}
		return v
	}
	return nil
}

// property returns the subschema s gives the member name, looking
// through $ref; nil when there is none.
func property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	for seen := 0; s != nil && seen < 32; seen++ {
		if p, ok := s.Properties[name]; ok {
			return p
		}
		s = s.Ref
	}
	return nil
}

// Keywords that say nothing about an instance.
var annotations = []string{"$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly"}

// Keywords of an object schema that never look inside the value of a
// member named in its "properties": they check names, counts or presence,
// or apply to other members only.
var memberBlind = []string{"$schema", "$id", "$defs", "definitions", "type", "required", "properties",
	"additionalProperties", "minProperties", "maxProperties", "propertyNames", "dependentRequired"}

// opaqueMember reports whether the schema doc constrains the value of the
// top-level member name no further than "type": "object". The test is
// conservative: any keyword that might reach the member's value some other
// way (applicators, references, enum, patternProperties, unevaluated
// members) makes the answer false, and the whole value is then validated.
func opaqueMember(doc any, name string) bool {
	root, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	for k := range root {
		if !slices.Contains(memberBlind, k) && !slices.Contains(annotations, k) {
			return false
		}
	}
	props, ok := root["properties"].(map[string]any)
	if !ok {
		return false
	}
	switch member := props[name].(type) {
	case bool:
		return member
	case map[string]any:
		for k, v := range member {
			switch {
			case slices.Contains(annotations, k):
			case k == "type" && (v == "object" || slices.Equal(anyStrings(v), []string{"object"})):
			default:
				return false
			}
		}
		return true
	}
	return false
}

// anyStrings returns v as strings when it is an array of strings.
func anyStrings(v any) []string {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s; only references inside the schema are allowed", url)
}

// caseParser reads the lines of one cases file.
type caseParser struct {
	file   string
	schema *CaseSchema   // nil checks the data format only
	policy *suite.Policy // nil without POLICY.md
	// decisions are the decisions a case may expect.
	decisions suite.Vocabulary
	// keepInput keeps each case's input as written; only pages show it.
	keepInput bool
	// placeInputs keeps the place of each case's line instead, for the
	// input to be read again from there (see casesRemembered).
	placeInputs bool
	// lines, when set, remembers each line's case, and known are the
	// cases it remembered from the reading before (see CaseLines).
	lines *CaseLines
	known map[lineKey]*suite.Case
}

// Cases parses a whole cases.jsonl from r: each line must satisfy the
// schema (when not nil) and the data format, case ids must be unique, and
// every expected citation must be a rule of the policy. Each case's input
// is kept only when keepInputs is set. Lines are parsed on all cores.
func Cases(file string, r io.Reader, schema *CaseSchema, policy *suite.Policy, keepInputs bool) ([]*suite.Case, error) {
	return casesRemembered(file, r, newCaseParser(file, schema, policy, keepInputs), nil, "")
}

// newCaseParser parses the lines of file, keeping each case's input when
// keepInput is set.
func newCaseParser(file string, schema *CaseSchema, policy *suite.Policy, keepInput bool) *caseParser {
	p := &caseParser{file: file, schema: schema, policy: policy, keepInput: keepInput}
	if schema != nil {
		p.decisions = schema.Decisions
	}
	return p
}

// casesRemembered is Cases parsing with p, taking from lines, when not
// nil, the cases of the lines it read before with the schema of hash
// schemaSHA256, and remembering this reading's. A parser that places
// inputs (placeInputs) keeps the place of each case's line instead of its
// input (suite.Case.InputPlace), without lines.
func casesRemembered(file string, r io.Reader, p *caseParser, lines *CaseLines, schemaSHA256 string) ([]*suite.Case, error) {
	if lines != nil {
		p.lines, p.known = lines, lines.begin(schemaSHA256, p.keepInput)
	}
	var places *[]suite.LinePlace
	if p.placeInputs && lines == nil {
		places = new([]suite.LinePlace)
	}
	cases, err := parseLines(newLineReader(file, r), p.parse, places)
	if err != nil {
		if _, located := err.(*suite.InputError); !located {
			err = fmt.Errorf("%s: %w", file, err)
		}
		return nil, err
	}
	if len(cases) == 0 {
		return nil, &suite.InputError{File: file, Msg: "the suite has no cases"}
	}
	if places != nil {
		for k, c := range cases {
			c.InputPlace = (*places)[k]
		}
	}
	first := make(map[string]int, len(cases))
	for _, c := range cases {
		if at, dup := first[c.ID]; dup {
			return nil, &suite.InputError{File: file, Line: c.Line, Field: "case_id", Msg: fmt.Sprintf("duplicate case_id %q (first at line %d)", c.ID, at)}
		}
		first[c.ID] = c.Line
	}
	return cases, nil
}

// parse reads one case line: a valid, well-formed line straight into its
// Case (quickCase), any other through parseTree.
func (p *caseParser) parse(d *jsonDecoder, text []byte, line int) (*suite.Case, error) {
	if p.lines == nil {
		return p.parseLine(d, text, line)
	}
	k := p.lines.key(text)
	c, ok := p.reuse(k, line)
	if !ok {
		var err error
		if c, err = p.parseLine(d, text, line); err != nil {
			return nil, err
		}
	}
	p.lines.remember(k, c)
	return c, nil
}

// parseLine parses one case line, as parse does without CaseLines.
func (p *caseParser) parseLine(d *jsonDecoder, text []byte, line int) (*suite.Case, error) {
	if d.valid(text) {
		if c, ok := p.quickCase(d, text, line); ok {
			return c, nil
		}
	}
	return p.parseTree(d, text, line)
}

// parseTree reads one case line by decoding it into a tree, validating
// the tree against the schema and reading the Case from it; it words
// every problem.
func (p *caseParser) parseTree(d *jsonDecoder, text []byte, line int) (*suite.Case, error) {
	v, rawInput, err := p.decodeChecked(d, text, line)
	if err != nil {
		return nil, err
	}
	r := &fieldReader{file: p.file, line: line}
	obj := r.object(v, "")
	c := &suite.Case{Line: line}
	p.readHeader(r, obj, c, rawInput)
	exp := r.object(r.field(obj, "", "expected"), "expected")
	e := &c.Expected
	p.readDecision(r, exp, e)
	e.ToolCalls = r.expectedCalls(r.field(exp, "expected", "tool_calls"), "expected.tool_calls")
	readToolMatch(r, exp, e)
	e.Citations = []string{}
	if v, ok := exp.Get("citations"); ok {
		e.Citations = r.strs(v, "expected.citations")
	}
	p.checkCitations(r, e.Citations)
	e.ForbiddenTools = r.strs(r.field(exp, "expected", "forbidden_tools"), "expected.forbidden_tools")
	checkNotForbidden(r, e)
	if r.err != nil {
		return nil, r.err
	}
	return c, nil
}

// decodeChecked decodes a case line and checks it against the schema, with
// the input as written; errors are located InputErrors.
func (p *caseParser) decodeChecked(d *jsonDecoder, text []byte, line int) (v any, rawInput []byte, err error) {
	opaque := p.schema == nil || p.schema.opaqueInput
	v, rawInput, err = d.decode(text, "input", opaque)
	if err != nil {
		return nil, nil, lineError(p.file, line, text, err)
	}
	// An id no data folder may use is worded here, before the schema
	// (which may well refuse it too, with less to say on how to fix it).
	if err := checkCaseID(v); err != nil {
		return nil, nil, &suite.InputError{File: p.file, Line: line, Field: "case_id", Msg: err.Error()}
	}
	if p.schema != nil {
		if err := p.schema.Validate(v); err != nil {
			field, msg := schemaProblem(err)
			return nil, nil, &suite.InputError{File: p.file, Line: line, Field: field, Msg: "breaks " + msg}
		}
	}
	return v, rawInput, nil
}

// checkCaseID checks a case_id that is a string against the rules for ids;
// a missing or mistyped one is left to the schema and the data format.
func checkCaseID(v any) error {
	obj, ok := v.(suite.Object)
	if !ok {
		return nil
	}
	id, ok := obj.Get("case_id")
	if !ok {
		return nil
	}
	if id, ok := id.(string); ok {
		return suite.ValidCaseID(id)
	}
	return nil
}

// readHeader reads what a case is: its id, title, severity and input.
func (p *caseParser) readHeader(r *fieldReader, obj suite.Object, c *suite.Case, rawInput []byte) {
	c.ID = r.str(r.field(obj, "", "case_id"), "case_id") // checked above
	c.Title = r.nonEmpty(r.field(obj, "", "title"), "title")
	c.Severity = suite.Severity(r.str(r.field(obj, "", "severity"), "severity"))
	if r.err == nil && !c.Severity.Valid() {
		r.fail("severity", "unknown severity %q: use critical, major or minor", c.Severity)
	}
	// Keep the input as written, not as a tree: a large suite would
	// otherwise hold every tree in memory.
	if r.object(r.field(obj, "", "input"), "input"); r.err == nil && p.keepInput {
		c.Input = bytes.Clone(rawInput)
	}
}

// readDecision reads the expected decision, one the schema allows. A case
// without a decision is not judged on one; null is a mistyped decision,
// not an absent one.
func (p *caseParser) readDecision(r *fieldReader, exp suite.Object, e *suite.Expected) {
	v, ok := exp.Get("decision")
	if !ok || r.err != nil {
		return
	}
	e.Decision = suite.Decision(r.str(v, "expected.decision"))
	if r.err != nil || p.decisions.Allows(e.Decision) {
		return
	}
	if len(p.decisions) == 0 {
		r.fail("expected.decision", "must not be empty: give a decision, or leave the member out if the case's decision is not judged")
	} else {
		r.fail("expected.decision", "unknown decision %q: use %s", e.Decision, p.decisions)
	}
}

// readToolMatch reads how the expected calls are matched, when given.
func readToolMatch(r *fieldReader, exp suite.Object, e *suite.Expected) {
	if v, ok := exp.Get("tool_match"); ok && r.err == nil {
		e.ToolMatch = suite.ToolMatch(r.str(v, "expected.tool_match"))
		if r.err == nil && !e.ToolMatch.Valid() {
			r.fail("expected.tool_match", "unknown tool_match %q: use exact, any_order, subsequence or contains", e.ToolMatch)
		}
	}
}

// checkCitations checks that every expected citation is a rule of the
// current policy, naming the rule that replaced a retired one.
func (p *caseParser) checkCitations(r *fieldReader, citations []string) {
	policy := p.policy
	for i, id := range citations {
		if r.err != nil {
			break
		}
		if policy == nil {
			r.fail(index("expected.citations", i), "%q cannot be checked: the data folder has no %s, so there are no rules to cite", id, PolicyFile)
			break
		}
		if _, ok := policy.Rule(id); !ok {
			hint := ""
			if succ, ok := policy.Successor(id); ok {
				hint = fmt.Sprintf("; the current rule is %q", succ.ID)
			}
			r.fail(index("expected.citations", i), "%q is not a rule of the current policy (%s)%s", id, policy.Version, hint)
		}
	}
}

// checkNotForbidden refuses an expected call to a tool the case also
// forbids: no answer could pass it.
func checkNotForbidden(r *fieldReader, e *suite.Expected) {
	for i, call := range e.ToolCalls {
		if r.err == nil && e.Forbids(call.Name) {
			r.fail(index("expected.tool_calls", i)+".name", "tool %q is both the expected call and forbidden", call.Name)
		}
	}
}

// expectedCalls reads an array of {"name": string, "arguments": object},
// compiling the argument matchers in each.
func (r *fieldReader) expectedCalls(v any, path string) []suite.ExpectedCall {
	a := r.array(v, path)
	calls := make([]suite.ExpectedCall, 0, len(a))
	for i, e := range a {
		p := index(path, i)
		obj := r.object(e, p)
		name := r.nonEmpty(r.field(obj, p, "name"), join(p, "name"))
		argsPath := join(p, "arguments")
		// The decoded value is passed on as it is: arguments without
		// matchers then come back without being boxed again.
		args := r.field(obj, p, "arguments")
		if r.object(args, argsPath); r.err != nil {
			return nil
		}
		compiled, err := suite.CompileArguments(args, argsPath)
		if err != nil {
			if me, ok := err.(*suite.MatcherError); ok {
				r.fail(me.Path, "%s", me.Msg)
			} else {
				r.fail(argsPath, "%v", err)
			}
			return nil
		}
		calls = append(calls, suite.ExpectedCall{Name: name, Arguments: compiled})
	}
	return calls
}

// schemaProblem picks one violation to report: the deepest instance
// location, ties broken by text, so the message is stable from run to run.
func schemaProblem(err error) (field, msg string) {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return "", err.Error()
	}
	type problem struct {
		loc   []string
		msg   string
		depth int
		rank  int // at equal depth, the lower is reported: an unknown name before the missing one it explains
	}
	// The names missing at each place, to suggest for an unknown one.
	missing := map[string][]string{}
	var collect func(e *jsonschema.ValidationError)
	collect = func(e *jsonschema.ValidationError) {
		if k, ok := e.ErrorKind.(*kind.Required); ok {
			at := strings.Join(e.InstanceLocation, "/")
			missing[at] = append(missing[at], k.Missing...)
		}
		for _, c := range e.Causes {
			collect(c)
		}
	}
	collect(ve)
	var all []problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc, msg, rank := e.InstanceLocation, "", 1
			// Name the missing or unexpected property itself, not its parent.
			switch k := e.ErrorKind.(type) {
			case *kind.Required:
				loc = append(slices.Clip(loc), k.Missing[0])
			case *kind.AdditionalProperties:
				// The library lists them in map order; sort for a stable message.
				names := slices.Sorted(slices.Values(k.Properties))
				msg = "additional properties '" + strings.Join(names, "', '") + "' not allowed"
				if best, ok := suggest.Closest(names[0], missing[strings.Join(loc, "/")]); ok {
					msg = fmt.Sprintf("unknown member %q; did you mean %q?", names[0], best)
				}
				loc = append(slices.Clip(loc), names[0])
				rank = 0
			}
			if msg == "" {
				msg = leafMessage(e)
			}
			msg = ruleAt(e) + ": " + msg
			all = append(all, problem{loc: loc, msg: msg, depth: len(loc), rank: rank})
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Slice(all, func(i, j int) bool {
		if all[i].depth != all[j].depth {
			return all[i].depth > all[j].depth
		}
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		a, b := strings.Join(all[i].loc, "/"), strings.Join(all[j].loc, "/")
		if a != b {
			return a < b
		}
		return all[i].msg < all[j].msg
	})
	if len(all) == 0 {
		return "", ve.Error()
	}
	return fieldPath(all[0].loc), all[0].msg
}

// ruleAt names the place in case.schema.json of the rule a violation
// breaks, as a JSON Pointer: "case.schema.json#/properties/severity/enum".
func ruleAt(e *jsonschema.ValidationError) string {
	_, frag, _ := strings.Cut(e.SchemaURL, "#")
	if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
		frag += "/" + strings.Join(kp, "/")
	}
	if frag == "" {
		frag = "/"
	}
	return SchemaFile + "#" + frag
}

// leafMessage is the validator's wording of one violation, without its
// location prefix.
func leafMessage(e *jsonschema.ValidationError) string {
	out := e.BasicOutput()
	for _, u := range append([]jsonschema.OutputUnit{*out}, out.Errors...) {
		if u.Error != nil {
			return u.Error.String()
		}
	}
	return fmt.Sprint(e.ErrorKind)
}

// fieldPath turns a JSON Schema instance location into "a.b[0].c".
func fieldPath(loc []string) string {
	path := ""
	for _, seg := range loc {
		if seg != "" && strings.Trim(seg, "0123456789") == "" {
			path += "[" + seg + "]"
			continue
		}
		path = join(path, seg)
	}
	return path
}
