package load

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validating every line of a large suite through the schema library costs
// more than reading it: the library builds a validator for every value and
// records everything it evaluates. Most schemas use a handful of
// keywords, though, and most lines satisfy them. quickSchema is the
// library's compiled schema re-read for those keywords only; it answers
// yes, no or unsure, and only a certain yes skips the library. Anything
// else, every error message included, comes from the library, so the fast
// path can make a run faster but never change its verdict. What it saves:
// "Fast paths" in docs/design.md (BenchmarkFastPathQuickSchema).

// verdict is a three-valued answer.
type verdict int8

const (
	unsure verdict = iota
	yes
	no
)

// and combines the verdicts of keywords that must all hold.
func (v verdict) and(w verdict) verdict {
	switch {
	case v == no || w == no:
		return no
	case v == unsure || w == unsure:
		return unsure
	}
	return yes
}

// JSON types, as bits.
const (
	nullType = 1 << iota
	booleanType
	numberType
	integerType
	stringType
	arrayType
	objectType
)

// typeBits are the JSON Schema type names.
var typeBits = map[string]int{
	"null": nullType, "boolean": booleanType, "number": numberType, "integer": integerType,
	"string": stringType, "array": arrayType, "object": objectType,
}

// quickSchema is one compiled subschema; limits of -1 are absent.
type quickSchema struct {
	never    bool // the schema false
	types    int  // 0 allows every type
	enum     []any
	hasEnum  bool
	ref      *quickSchema
	if_      *quickSchema
	then     *quickSchema
	else_    *quickSchema
	props    []quickProp // sorted by name, as Object members are
	required []string
	// additional applies to members not in props; noAdditional forbids
	// them.
	additional           *quickSchema
	noAdditional         bool
	minProps, maxProps   int
	items                *quickSchema
	minItems, maxItems   int
	unique               bool
	minLength, maxLength int
	pattern              jsonschema.Regexp
	// typeOnly is set when the schema checks nothing but the type, so
	// that checkText need not read the value.
	typeOnly bool
}

// quickProp is one entry of "properties".
type quickProp struct {
	name   string
	schema *quickSchema
}

// quickKeywords are the fields of jsonschema.Schema that quickSchema
// understands or that say nothing about an instance. A schema that sets
// any other field has no quick form.
var quickKeywords = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"RecursiveAnchor": true, "DynamicAnchor": true,
	"Bool": true, "Types": true, "Enum": true, "Const": true, "Ref": true,
	"If": true, "Then": true, "Else": true,
	"Properties": true, "Required": true, "AdditionalProperties": true,
	"MinProperties": true, "MaxProperties": true,
	"Items2020": true, "MinItems": true, "MaxItems": true, "UniqueItems": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// compileQuick returns the quick form of s, or false when s (or any schema
// it refers to) uses a keyword the quick form does not understand.
func compileQuick(s *jsonschema.Schema) (*quickSchema, bool) {
	q, ok := (&quickCompiler{done: map[*jsonschema.Schema]*quickSchema{}}).compile(s)
	if !ok || inPlaceCycle(q) {
		// A schema that reaches itself without descending into the
		// instance loops forever; the library reports it.
		return nil, false
	}
	return q, true
}

// inPlaceCycle reports whether any schema reachable from root reaches
// itself through keywords that apply to the same value: $ref, if, then
// and else.
func inPlaceCycle(root *quickSchema) bool {
	var all []*quickSchema
	seen := map[*quickSchema]bool{}
	var collect func(q *quickSchema)
	collect = func(q *quickSchema) {
		if q == nil || seen[q] {
			return
		}
		seen[q] = true
		all = append(all, q)
		for _, next := range q.inPlace() {
			collect(next)
		}
		for _, p := range q.props {
			collect(p.schema)
		}
		collect(q.additional)
		collect(q.items)
	}
	collect(root)
	const visiting, done = 1, 2
	state := map[*quickSchema]int{}
	var cycle func(q *quickSchema) bool
	cycle = func(q *quickSchema) bool {
		switch state[q] {
		case visiting:
			return true
		case done:
			return false
		}
		state[q] = visiting
		for _, next := range q.inPlace() {
			if next != nil && cycle(next) {
				return true
			}
		}
		state[q] = done
		return false
	}
	for _, q := range all {
		if cycle(q) {
			return true
		}
	}
	return false
}

// inPlace are the subschemas applied to the same value as q.
func (q *quickSchema) inPlace() []*quickSchema {
	return []*quickSchema{q.ref, q.if_, q.then, q.else_}
}

type quickCompiler struct {
	done map[*jsonschema.Schema]*quickSchema
}

// compile is compileQuick for s and each schema it reaches, compiled once
// however often it is used.
func (c *quickCompiler) compile(s *jsonschema.Schema) (*quickSchema, bool) {
	if s == nil {
		return nil, true
	}
	if q, ok := c.done[s]; ok {
		return q, true // a reference cycle, or a schema used twice
	}
	q := &quickSchema{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}
	c.done[s] = q
	if !onlyQuickKeywords(s) {
		return nil, false
	}
	if s.Bool != nil {
		q.never = !*s.Bool
		return q, true
	}
	if !q.setValues(s) || !c.compileSubschemas(q, s) {
		return nil, false
	}
	q.setLimits(s)
	q.typeOnly = q.checksTypeOnly()
	return q, true
}

// checksTypeOnly reports whether q asks nothing of a value but its type.
func (q *quickSchema) checksTypeOnly() bool {
	return !q.hasEnum && q.ref == nil && q.if_ == nil && q.then == nil && q.else_ == nil &&
		q.props == nil && q.required == nil && q.additional == nil && !q.noAdditional && q.minProps < 0 && q.maxProps < 0 &&
		q.items == nil && q.minItems < 0 && q.maxItems < 0 && !q.unique && q.minLength < 0 && q.maxLength < 0 && q.pattern == nil
}

// onlyQuickKeywords reports whether s uses no keyword but those the quick
// check knows.
func onlyQuickKeywords(s *jsonschema.Schema) bool {
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.IsExported() && !quickKeywords[f.Name] && !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

// setValues sets the types and values s allows; false for a type the quick
// check does not know, or for a const beside an enum.
func (q *quickSchema) setValues(s *jsonschema.Schema) bool {
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			bit, ok := typeBits[t]
			if !ok {
				return false
			}
			q.types |= bit
		}
	}
	if s.Enum != nil {
		q.enum, q.hasEnum = s.Enum.Values, true
	}
	if s.Const != nil {
		// A const is an enum of one, and both must hold.
		if q.hasEnum {
			return false
		}
		q.enum, q.hasEnum = []any{*s.Const}, true
	}
	return true
}

// compileSubschemas compiles the subschemas of s into q: those applied in
// place, to items, to properties and to the other properties.
func (c *quickCompiler) compileSubschemas(q *quickSchema, s *jsonschema.Schema) bool {
	var ok bool
	for _, sub := range []struct {
		from *jsonschema.Schema
		to   **quickSchema
	}{{s.Ref, &q.ref}, {s.If, &q.if_}, {s.Then, &q.then}, {s.Else, &q.else_}, {s.Items2020, &q.items}} {
		if *sub.to, ok = c.compile(sub.from); !ok {
			return false
		}
	}
	for name, sub := range s.Properties {
		qs, ok := c.compile(sub)
		if !ok {
			return false
		}
		q.props = append(q.props, quickProp{name, qs})
	}
	slices.SortFunc(q.props, func(a, b quickProp) int { return strings.Compare(a.name, b.name) })
	q.required = s.Required
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		q.noAdditional = !a
	case *jsonschema.Schema:
		if q.additional, ok = c.compile(a); !ok {
			return false
		}
	default:
		return false
	}
	return true
}

// setLimits sets the counts and lengths s bounds, -1 where it does not,
// and its other checks of items and strings.
func (q *quickSchema) setLimits(s *jsonschema.Schema) {
	q.minProps, q.maxProps = limitOrNone(s.MinProperties), limitOrNone(s.MaxProperties)
	q.minItems, q.maxItems = limitOrNone(s.MinItems), limitOrNone(s.MaxItems)
	q.minLength, q.maxLength = limitOrNone(s.MinLength), limitOrNone(s.MaxLength)
	q.unique = s.UniqueItems
	q.pattern = s.Pattern
}

// limitOrNone is a limit of a schema, or -1 for none.
func limitOrNone(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

// check tells whether v, a value as the decoder builds it, satisfies q.
// Every no is certain, as if-then-else needs; where an exact answer would
// take arithmetic on numbers or deep comparison, it says unsure.
func (q *quickSchema) check(v any) verdict {
	if q == nil {
		return yes
	}
	if q.never {
		return no
	}
	r := q.checkType(v)
	if r == no {
		return no
	}
	if q.hasEnum {
		r = r.and(inEnum(v, q.enum))
	}
	if q.ref != nil {
		r = r.and(q.ref.check(v))
	}
	if q.if_ != nil {
		switch q.if_.check(v) {
		case yes:
			r = r.and(q.then.check(v))
		case no:
			r = r.and(q.else_.check(v))
		default:
			r = r.and(unsure)
		}
	}
	if r == no {
		return no
	}
	switch v := v.(type) {
	case suite.Object:
		r = r.and(q.checkObject(v))
	case []any:
		r = r.and(q.checkArray(v))
	case string:
		r = r.and(q.checkString(v))
	}
	return r
}

func (q *quickSchema) checkType(v any) verdict {
	if q.types == 0 {
		return yes
	}
	var t int
	switch v := v.(type) {
	case nil:
		t = nullType
	case bool:
		t = booleanType
	case string:
		t = stringType
	case []any:
		t = arrayType
	case suite.Object:
		t = objectType
	case json.Number:
		switch {
		case q.types&numberType != 0:
			return yes
		case q.types&integerType == 0:
			return no
		case !strings.ContainsAny(string(v), ".eE"):
			return yes // an integer literal
		}
		return unsure // 1.0 and 1e2 are integers too
	default:
		return unsure
	}
	if q.types&t != 0 {
		return yes
	}
	return no
}

// inEnum compares v with each allowed value. Strings, booleans and null
// compare exactly; a number, object or array equal in kind to an allowed
// value would need the library's notion of equality.
func inEnum(v any, enum []any) verdict {
	r := no
	for _, e := range enum {
		switch v := v.(type) {
		case nil, bool, string:
			if e == v {
				return yes
			}
		default:
			if kindOf(v) == kindOf(e) {
				r = unsure
			}
		}
	}
	return r
}

// kindOf names the JSON kind of a decoded value.
func kindOf(v any) int {
	switch v.(type) {
	case nil:
		return nullType
	case bool:
		return booleanType
	case string:
		return stringType
	case []any:
		return arrayType
	case suite.Object, map[string]any: // instances hold Objects, schemas maps
		return objectType
	}
	return numberType
}

func (q *quickSchema) checkObject(obj suite.Object) verdict {
	r := yes
	for _, name := range q.required {
		if _, ok := obj.Get(name); !ok {
			return no
		}
	}
	if q.minProps >= 0 && len(obj) < q.minProps || q.maxProps >= 0 && len(obj) > q.maxProps {
		return no
	}
	j := 0 // both lists are sorted by name: walk them together
	for _, m := range obj {
		for j < len(q.props) && q.props[j].name < m.Name {
			j++
		}
		switch declared := j < len(q.props) && q.props[j].name == m.Name; {
		case declared:
			r = r.and(q.props[j].schema.check(m.Value))
		case q.noAdditional:
			return no
		case q.additional != nil:
			r = r.and(q.additional.check(m.Value))
		}
		if r == no {
			return no
		}
	}
	return r
}

func (q *quickSchema) checkArray(arr []any) verdict {
	if q.minItems >= 0 && len(arr) < q.minItems || q.maxItems >= 0 && len(arr) > q.maxItems {
		return no
	}
	r := yes
	for _, e := range arr {
		if r = r.and(q.items.check(e)); r == no {
			return no
		}
	}
	if q.unique {
		r = r.and(uniqueItems(arr))
	}
	return r
}

// uniqueItems compares strings, booleans and null exactly and leaves
// arrays holding anything else to the library.
func uniqueItems(arr []any) verdict {
	for i, e := range arr {
		switch e.(type) {
		case nil, bool, string:
		default:
			return unsure
		}
		if i > 32 {
			return unsure // long arrays are left to the library
		}
		for _, f := range arr[:i] {
			if e == f {
				return no
			}
		}
	}
	return yes
}

func (q *quickSchema) checkString(s string) verdict {
	if q.minLength >= 0 || q.maxLength >= 0 {
		n := utf8.RuneCountInString(s)
		if q.minLength >= 0 && n < q.minLength || q.maxLength >= 0 && n > q.maxLength {
			return no
		}
	}
	if q.pattern != nil && !q.pattern.MatchString(s) {
		return no
	}
	return yes
}
