package judge

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// matcherTest matches one actual arguments object against expected
// arguments that may hold matchers.
type matcherTest struct {
	name     string
	expected string // expected arguments
	actual   string // actual arguments
	want     []string
}

func runMatcherTests(t *testing.T, rule string, tests []matcherTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp := mustExpected(t, `{"tool_calls": [{"name": "f", "arguments": `+tt.expected+`}]}`)
			act := parseCalls(t, `[{"name": "f", "arguments": `+tt.actual+`}]`)[0]
			ms := CompareArguments(exp.ToolCalls[0].Arguments, act)
			got := paths(ms)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("%s\nmismatches:\n%s\nwant:\n%s", rule, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if argumentsMatch(exp.ToolCalls[0].Arguments, &act) != (len(tt.want) == 0) {
				t.Fatalf("%s\nthe quick check disagrees with the comparison", rule)
			}
		})
	}
}

func TestMatcherAny(t *testing.T) {
	runMatcherTests(t, `{"$any": [v1, v2, …]} matches a value matching any vi (non-empty list)`, []matcherTest{
		{"first", `{"city": {"$any": ["NYC", "New York"]}}`, `{"city": "NYC"}`, nil},
		{"second", `{"city": {"$any": ["NYC", "New York"]}}`, `{"city": "New York"}`, nil},
		{"none", `{"city": {"$any": ["NYC", "New York"]}}`, `{"city": "LA"}`, []string{`arguments.city: expected any of "NYC", "New York", got "LA"`}},
		{"numbers by value", `{"n": {"$any": [1250, "x"]}}`, `{"n": 1.25e3}`, nil},
		{"objects by §2's rules", `{"p": {"$any": [{"id": 1}, {"id": 2}]}}`, `{"p": {"id": 2, "name": "x"}}`, nil},
		{"missing member", `{"city": {"$any": ["NYC"]}}`, `{}`, []string{`arguments.city: missing (expected any of "NYC")`}},
	})
}

func TestMatcherNesting(t *testing.T) {
	runMatcherTests(t, `Matchers nest ({"$any": [{"$text": "New York"}, "NYC"]}).`, []matcherTest{
		{"text inside any", `{"city": {"$any": [{"$text": "New York"}, "NYC"]}}`, `{"city": "new-york"}`, nil},
		{"plain inside any", `{"city": {"$any": [{"$text": "New York"}, "NYC"]}}`, `{"city": "NYC"}`, nil},
		{"neither", `{"city": {"$any": [{"$text": "New York"}, "NYC"]}}`, `{"city": "nyc"}`, []string{`arguments.city: expected any of text like "New York", "NYC", got "nyc"`}},
		{"two deep: optional any text", `{"stop": {"$optional": {"$any": [{"$text": "St. Louis"}, {"$exact": {"code": "STL"}}]}}}`, `{"stop": "st louis"}`, nil},
		{"two deep: exact inside any inside optional", `{"stop": {"$optional": {"$any": [{"$text": "St. Louis"}, {"$exact": {"code": "STL"}}]}}}`, `{"stop": {"code": "STL"}}`, nil},
		{"two deep: exact refuses extras", `{"stop": {"$optional": {"$any": [{"$text": "St. Louis"}, {"$exact": {"code": "STL"}}]}}}`, `{"stop": {"code": "STL", "x": 1}}`,
			[]string{`arguments.stop: expected any of text like "St. Louis", exactly these members {"code": "STL"}, got {"code":"STL","x":1}`}},
		{"two deep: absent", `{"stop": {"$optional": {"$any": [{"$text": "St. Louis"}, {"$exact": {"code": "STL"}}]}}}`, `{}`, nil},
		{"inside arrays and objects", `{"legs": [{"from": {"$text": "NYC"}, "to": {"$any": ["LA", "SF"]}}]}`, `{"legs": [{"from": "n.y.c.", "to": "SF"}]}`, nil},
		{"inside arrays and objects, wrong", `{"legs": [{"from": {"$text": "NYC"}, "to": {"$any": ["LA", "SF"]}}]}`, `{"legs": [{"from": "n.y.c.", "to": "SEA"}]}`,
			[]string{`arguments.legs[0].to: expected any of "LA", "SF", got "SEA"`}},
	})
}

func TestMatcherOptional(t *testing.T) {
	runMatcherTests(t, `{"$optional": v}: only as the value of an object member: the member may be absent; if present it must match v`, []matcherTest{
		{"absent", `{"id": 1, "seat": {"$optional": "12A"}}`, `{"id": 1}`, nil},
		{"present and right", `{"id": 1, "seat": {"$optional": "12A"}}`, `{"id": 1, "seat": "12A"}`, nil},
		{"present but wrong", `{"id": 1, "seat": {"$optional": "12A"}}`, `{"id": 1, "seat": "13B"}`, []string{`arguments.seat: expected "12A", got "13B"`}},
		{"present as null", `{"seat": {"$optional": "12A"}}`, `{"seat": null}`, []string{`arguments.seat: expected "12A", got null`}},
		{"present, nested path", `{"pax": {"$optional": {"name": "Ana", "age": 30}}}`, `{"pax": {"name": "Ana", "age": 31}}`, []string{`arguments.pax.age: expected 30, got 31`}},
		{"optional object with a required member missing", `{"pax": {"$optional": {"name": "Ana"}}}`, `{"pax": {}}`, []string{`arguments.pax.name: missing (expected "Ana")`}},
	})
}

func TestMatcherText(t *testing.T) {
	runMatcherTests(t, `{"$text": "s"}: a string equal to s once both lose every whitespace character (Unicode White_Space) and every ASCII punctuation character, then compared as Go's strings.EqualFold compares (simple case folding: ΟΔΟΣ = οδος, Straße ≠ STRASSE)`, []matcherTest{
		{"Greek case", `{"s": {"$text": "ΟΔΟΣ"}}`, `{"s": "οδος"}`, nil},
		{"final and medial sigma", `{"s": {"$text": "οδοσ"}}`, `{"s": "ΟΔΟΣ"}`, nil},
		{"other letters differ", `{"s": {"$text": "ΟΔΟΣ"}}`, `{"s": "οδοι"}`, []string{`arguments.s: expected text like "ΟΔΟΣ", got "οδοι"`}},
		{"no full case folding", `{"s": {"$text": "Straße"}}`, `{"s": "STRASSE"}`, []string{`arguments.s: expected text like "Straße", got "STRASSE"`}},
		{"Kelvin sign folds to k", `{"s": {"$text": "k"}}`, `{"s": "\u212a"}`, nil},
		{"ASCII punctuation and spaces", `{"s": {"$text": "New York, NY"}}`, `{"s": "new-york ny!"}`, nil},
		{"all 32 punctuation characters", `{"s": {"$text": "ab"}}`, `{"s": "!\"#$%&'()*+,-./:;<=>?@[\\]^_` + "`" + `{|}~a b"}`, nil},
		{"no-break space", `{"s": {"$text": "New York"}}`, `{"s": "New\u00a0York"}`, nil},
		{"other Unicode spaces", `{"s": {"$text": "New York"}}`, `{"s": "\u3000New\u2003\u2028York\u205f\u1680\u0085"}`, nil},
		{"tabs and line breaks", `{"s": {"$text": "a b"}}`, `{"s": "\ta\r\n\u000bb\f"}`, nil},
		{"non-ASCII punctuation stays", `{"s": {"$text": "NY"}}`, `{"s": "«NY»"}`, []string{`arguments.s: expected text like "NY", got "«NY»"`}},
		{"zero-width space is not White_Space", `{"s": {"$text": "NY"}}`, `{"s": "N\u200bY"}`, []string{`arguments.s: expected text like "NY", got "N` + "\u200b" + `Y"`}},
		{"accents stay", `{"s": {"$text": "cafe"}}`, `{"s": "café"}`, []string{`arguments.s: expected text like "cafe", got "café"`}},
		{"only strings", `{"s": {"$text": "5"}}`, `{"s": 5}`, []string{`arguments.s: expected text like "5", got 5`}},
		{"empty after folding", `{"s": {"$text": "--"}}`, `{"s": " . "}`, nil},
	})
}

func TestMatcherExact(t *testing.T) {
	runMatcherTests(t, `{"$exact": {…}}: an object with no members other than those listed ($optional ones may be absent), each matching`, []matcherTest{
		{"same members", `{"$exact": {"a": 1, "b": 2}}`, `{"b": 2, "a": 1}`, nil},
		{"an extra member", `{"$exact": {"a": 1}}`, `{"a": 1, "z": "x"}`, []string{`arguments.z: not expected, got "x" (only the listed members are allowed)`}},
		{"extras in path order", `{"$exact": {"b": 1}}`, `{"a": 0, "b": 2, "c": 3}`, []string{
			`arguments.a: not expected, got 0 (only the listed members are allowed)`,
			`arguments.b: expected 1, got 2`,
			`arguments.c: not expected, got 3 (only the listed members are allowed)`}},
		{"optional member absent", `{"$exact": {"a": 1, "b": {"$optional": 2}}}`, `{"a": 1}`, nil},
		{"optional member present", `{"$exact": {"a": 1, "b": {"$optional": 2}}}`, `{"a": 1, "b": 2}`, nil},
		{"optional member wrong", `{"$exact": {"a": 1, "b": {"$optional": 2}}}`, `{"a": 1, "b": 3}`, []string{`arguments.b: expected 2, got 3`}},
		{"optional member and an extra", `{"$exact": {"a": 1, "b": {"$optional": 2}}}`, `{"a": 1, "c": 3}`, []string{`arguments.c: not expected, got 3 (only the listed members are allowed)`}},
		{"required member missing", `{"$exact": {"a": 1}}`, `{}`, []string{`arguments.a: missing (expected 1)`}},
		{"nested", `{"pax": {"$exact": {"name": "Ana"}}}`, `{"pax": {"name": "Ana", "age": 3}}`, []string{`arguments.pax.age: not expected, got 3 (only the listed members are allowed)`}},
		{"nested objects inside are not exact", `{"$exact": {"pax": {"name": "Ana"}}}`, `{"pax": {"name": "Ana", "age": 3}}`, nil},
		{"not an object", `{"pax": {"$exact": {}}}`, `{"pax": []}`, []string{`arguments.pax: expected exactly these members {}, got []`}},
	})
}

func TestMatcherLiteral(t *testing.T) {
	runMatcherTests(t, `{"$literal": v}: v by §2's rules, with no matcher recognised inside it (to expect an object such as {"$gt": 5})`, []matcherTest{
		{"dollar names", `{"q": {"$literal": {"$gt": 5}}}`, `{"q": {"$gt": 5}}`, nil},
		{"dollar names, value differs", `{"q": {"$literal": {"$gt": 5}}}`, `{"q": {"$gt": 6}}`, []string{`arguments.q["$gt"]: expected 5, got 6`}},
		{"extra members allowed as in §2", `{"q": {"$literal": {"$gt": 5}}}`, `{"q": {"$gt": 5.0, "x": 1}}`, nil},
		{"matchers inside are plain", `{"q": {"$literal": {"a": {"$any": [1, 2]}}}}`, `{"q": {"a": 1}}`, []string{`arguments.q.a: expected {"$any":[1,2]}, got 1`}},
		{"matchers inside match themselves", `{"q": {"$literal": {"a": {"$optional": 1}}}}`, `{"q": {"a": {"$optional": 1}}}`, nil},
		{"a literal member is required", `{"q": {"$literal": {"$optional": 1}}}`, `{}`, []string{`arguments.q: missing (expected literally {"$optional":1})`}},
		{"whole arguments", `{"$literal": {"$where": "x"}}`, `{"$where": "x"}`, nil},
	})
}

func TestPlainObjectsWithDollarMembers(t *testing.T) {
	runMatcherTests(t, `Objects with more than one member are plain objects.`, []matcherTest{
		{"two dollar members", `{"q": {"$gt": 1, "$lt": 5}}`, `{"q": {"$gt": 1, "$lt": 5}}`, nil},
		{"a matcher name among others", `{"q": {"$any": [1], "b": 2}}`, `{"q": {"$any": [1], "b": 2}}`, nil},
		{"compared as plain", `{"q": {"$any": [1], "b": 2}}`, `{"q": {"$any": 1, "b": 2}}`, []string{`arguments.q["$any"]: expected [1], got 1`}},
	})
}

func TestTopLevelMatchers(t *testing.T) {
	runMatcherTests(t, `Inside expected arguments (the arguments object itself included, so "arguments": {"$exact": {…}} refuses extra arguments)`, []matcherTest{
		{"exact refuses extra arguments", `{"$exact": {"id": 1}}`, `{"id": 1, "debug": true}`, []string{`arguments.debug: not expected, got true (only the listed members are allowed)`}},
		{"any of two argument sets", `{"$any": [{"id": 1}, {"$exact": {"code": "X"}}]}`, `{"code": "X"}`, nil},
		{"text never matches an object", `{"$text": "x"}`, `{"x": 1}`, []string{`arguments: expected text like "x", got {"x":1}`}},
		{"literal scalar never matches an object", `{"$literal": "x"}`, `{}`, []string{`arguments: expected "x", got {}`}},
		{"non-object alternatives are never taken", `{"$any": ["x", {"id": 1}]}`, `{"id": 1}`, nil},
		{"any of two argument sets, neither", `{"$any": [{"id": 1}, {"$exact": {"code": "X"}}]}`, `{"code": "Y"}`, []string{`arguments: expected any of {"id": 1}, exactly these members {"code": "X"}, got {"code":"Y"}`}},
	})
}

// TestMatcherFreeArgumentsAreNotCopied checks that a suite without
// matchers pays nothing for them: compiling returns the very object.
func TestMatcherFreeArgumentsAreNotCopied(t *testing.T) {
	args := decode(t, `{"a": {"b": [1, {"c": "$any"}]}, "$d": 1, "e": {"$f": 1, "g": 2}}`)
	got, err := suite.CompileArguments(args, "arguments")
	if err != nil {
		t.Fatal(err)
	}
	o, ok := got.(suite.Object)
	if !ok || &o[0] != &args[0] {
		t.Fatalf("matcher-free arguments were rebuilt")
	}
}
