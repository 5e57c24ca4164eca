package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// quickSchemas are schemas the quick form understands, for the
// differential tests below.
var quickSchemas = []string{
	`{"type":"object","required":["a"],"properties":{"a":{"type":"string","minLength":2,"maxLength":3}},"additionalProperties":false}`,
	`{"type":["integer","null"]}`,
	`{"enum":["x",1,null,true,{"k":1},[1]]}`,
	`{"const":"no_op"}`,
	`{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"uniqueItems":true,"minItems":1,"maxItems":3}`,
	`{"type":"array","uniqueItems":true}`,
	`{"properties":{"d":{"const":"no_op"}},"if":{"properties":{"d":{"const":"no_op"}},"required":["d"]},"then":{"properties":{"c":{"maxItems":0}}},"else":{"properties":{"c":{"minItems":1}}}}`,
	`{"$defs":{"node":{"type":"object","properties":{"next":{"$ref":"#/$defs/node"}},"additionalProperties":{"type":"number"}}},"$ref":"#/$defs/node"}`,
	`{"minProperties":1,"maxProperties":2,"additionalProperties":{"type":"boolean"}}`,
	`{"properties":{"a":true,"b":false}}`,
	`{"if":{"type":"integer"},"then":{"const":"never"}}`,
	// Formats are annotations unless asserted, which the compiler is not
	// asked to do.
	`{"type":"string","format":"email"}`,
}

// quickInstances are values to try against every schema.
var quickInstances = []string{
	`{"a":"xy"}`, `{"a":"x"}`, `{"a":"wxyz"}`, `{"a":"é§"}`, `{"a":"xy","b":1}`, `{}`, `{"b":true}`, `{"b":true,"c":false,"d":true}`,
	`null`, `1`, `1.0`, `1e2`, `-0`, `2.5`, `"x"`, `"no_op"`, `true`, `false`,
	`[]`, `["a"]`, `["a","a"]`, `["a","b","c","d"]`, `["A"]`, `[1,1]`, `[1,1.0]`, `[{"k":1},{"k":1}]`, `[1]`, `{"k":1}`,
	`{"d":"no_op","c":[]}`, `{"d":"no_op","c":[1]}`, `{"d":"approve","c":[]}`, `{"d":"approve","c":[1]}`, `{"c":[]}`,
	`{"next":{"next":{"x":1}}}`, `{"next":{"next":{"x":"1"}}}`, `{"next":3}`,
}

// compareQuick checks the quick verdict on one instance against the
// library: a yes must be valid and a no invalid.
func compareQuick(t *testing.T, schemaSrc, instance string) verdict {
	t.Helper()
	cs, err := CompileSchema(SchemaFile, []byte(schemaSrc))
	if err != nil {
		t.Fatal(err)
	}
	if cs.quick == nil {
		t.Fatalf("%s has no quick form", schemaSrc)
	}
	v, _, err := newJSONDecoder().decode([]byte(instance), "", false)
	if err != nil {
		return unsure
	}
	got := cs.quick.check(v)
	libErr := cs.schema.Validate(suite.ToTree(v))
	switch {
	case got == yes && libErr != nil:
		t.Errorf("schema %s, instance %s: quick yes, library: %v", schemaSrc, instance, libErr)
	case got == no && libErr == nil:
		t.Errorf("schema %s, instance %s: quick no, library valid", schemaSrc, instance)
	}
	// The same from the text, which the fast path for cases reads.
	if jsontext.Value(instance).IsValid() {
		s := newValidScanner([]byte(instance), newJSONDecoder())
		text := cs.quick.checkText(s)
		s.space()
		switch {
		case text == yes && libErr != nil:
			t.Errorf("schema %s, instance %s: quick yes from the text, library: %v", schemaSrc, instance, libErr)
		case text == no && libErr == nil:
			t.Errorf("schema %s, instance %s: quick no from the text, library valid", schemaSrc, instance)
		case text != no && s.i != len(instance):
			t.Errorf("schema %s, instance %s: the text check stopped at %d", schemaSrc, instance, s.i)
		case text != unsure && text != got:
			// The text may be unsure where the tree is not (an escaped
			// string in an array of unique items), never more certain.
			t.Errorf("schema %s, instance %s: quick %d from the tree, %d from the text", schemaSrc, instance, got, text)
		}
	}
	return got
}

func TestQuickSchemaAgreesWithLibrary(t *testing.T) {
	counts := map[verdict]int{}
	for _, s := range quickSchemas {
		for _, in := range quickInstances {
			counts[compareQuick(t, s, in)]++
		}
	}
	// The fast path must actually decide most of these.
	if counts[yes] < 60 || counts[no] < 150 {
		t.Errorf("verdicts: %d yes, %d no, %d unsure", counts[yes], counts[no], counts[unsure])
	}
}

func TestQuickSchemaDecidesSampleCases(t *testing.T) {
	schema := sampleSchema(t)
	if schema.quick == nil {
		t.Fatal("the sample schema has no quick form")
	}
	lines := sampleLines(t, CasesFile)
	for _, l := range lines {
		v, _, err := newJSONDecoder().decode(l.text, "input", schema.opaqueInput)
		if err != nil {
			t.Fatal(err)
		}
		if got := schema.quick.check(v); got != yes {
			t.Errorf("line %d: quick verdict %d, want yes", l.line, got)
		}
	}
}

func TestQuickSchemaRefusesOtherKeywords(t *testing.T) {
	for _, s := range []string{
		`{"allOf":[{"type":"string"}]}`,
		`{"not":{"type":"string"}}`,
		`{"anyOf":[{"type":"string"}]}`,
		`{"minimum":1}`,
		`{"multipleOf":2}`,
		`{"patternProperties":{"^a":{"type":"string"}}}`,
		`{"propertyNames":{"maxLength":3}}`,
		`{"dependentRequired":{"a":["b"]}}`,
		`{"unevaluatedProperties":false}`,
		`{"prefixItems":[{"type":"string"}]}`,
		`{"contains":{"type":"string"}}`,
		`{"$ref":"#"}`,
		`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"if":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`,
		`{"properties":{"a":{"type":"object","not":{}}}}`,
	} {
		cs, err := CompileSchema(SchemaFile, []byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if cs.quick != nil {
			t.Errorf("%s: has a quick form", s)
		}
	}
}

// FuzzQuickSchema compares the quick verdict with the library's on
// arbitrary instances of several schemas, the sample's included.
func FuzzQuickSchema(f *testing.F) {
	src, err := os.ReadFile(filepath.Join(sampleDir, SchemaFile))
	if err != nil {
		f.Fatal(err)
	}
	schemas := append([]string{string(src)}, quickSchemas...)
	for _, in := range quickInstances {
		f.Add(uint8(0), in)
	}
	for _, l := range sampleLines(f, CasesFile) {
		f.Add(uint8(0), string(l.text))
	}
	f.Fuzz(func(t *testing.T, which uint8, instance string) {
		compareQuick(t, schemas[int(which)%len(schemas)], instance)
	})
}

// Well-formed lines take the fast paths.
func TestQuickPathsTakeSampleLines(t *testing.T) {
	d := newJSONDecoder()
	for _, name := range []string{"outputs/baseline-v1.jsonl", "outputs/candidate-v2.jsonl", "outputs/candidate-v3.jsonl"} {
		for _, l := range sampleLines(t, name) {
			if _, ok := d.quickOutput(l.text, l.line); !ok {
				t.Errorf("%s:%d: not read by the fast path", name, l.line)
			}
		}
	}
}
