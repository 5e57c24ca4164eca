package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// decodeArgs reads JSON as the loader does: numbers as literals, objects
// as Objects.
func decodeArgs(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return FromTree(v)
}

func TestCompileArgumentsRefusesMalformedMatchers(t *testing.T) {
	const rule = "Any other single-member $ name, a misplaced $optional, or a matcher of the wrong shape is bad input naming the file, line and JSON path."
	tests := []struct {
		name, args, path, msg string
	}{
		{"unknown name", `{"n": {"$gt": 5}}`, "arguments.n", `unknown matcher "$gt"`},
		{"bare dollar", `{"n": {"$": 5}}`, "arguments.n", `unknown matcher "$"`},
		{"unknown name at the top", `{"$where": "x"}`, "arguments", `unknown matcher "$where"`},
		{"case matters", `{"n": {"$ANY": [1]}}`, "arguments.n", `unknown matcher "$ANY"`},
		{"any not an array", `{"n": {"$any": 1}}`, "arguments.n", "$any needs a non-empty array of alternatives, got a number"},
		{"any empty", `{"n": {"$any": []}}`, "arguments.n", "$any needs a non-empty array of alternatives, got an empty array"},
		{"any null", `{"n": {"$any": null}}`, "arguments.n", "got null"},
		{"text not a string", `{"n": {"$text": 5}}`, "arguments.n", "$text needs a string, got a number"},
		{"text an array", `{"n": {"$text": ["a"]}}`, "arguments.n", "$text needs a string, got an array"},
		{"exact not an object", `{"n": {"$exact": [1]}}`, "arguments.n", "$exact needs an object of members, got an array"},
		{"exact of a matcher", `{"n": {"$exact": {"$text": "a"}}}`, "arguments.n", "$exact needs an object of members, got the matcher $text"},
		{"optional at the top", `{"$optional": {"a": 1}}`, "arguments", "$optional may only be the value of an object member"},
		{"optional in an array", `{"n": [{"$optional": 1}]}`, "arguments.n[0]", "$optional may only be the value of an object member"},
		{"optional in any", `{"n": {"$any": [{"$optional": 1}, 2]}}`, "arguments.n.$any[0]", "$optional may only be the value of an object member"},
		{"optional in optional", `{"n": {"$optional": {"$optional": 1}}}`, "arguments.n.$optional", "$optional may only be the value of an object member"},
		{"nested wrong shape", `{"a": {"b": [0, {"$any": [{"$text": null}]}]}}`, "arguments.a.b[1].$any[0]", "$text needs a string, got null"},
		{"inside exact", `{"$exact": {"a b": {"$nope": 1}}}`, `arguments.$exact["a b"]`, `unknown matcher "$nope"`},
		{"unordered not an array", `{"n": {"$unordered": {"a": 1}}}`, "arguments.n", "$unordered needs an array of the items expected in any order (an empty array matches only []), got an object"},
		{"unordered null", `{"n": {"$unordered": null}}`, "arguments.n", "got null"},
		{"optional in unordered", `{"n": {"$unordered": [{"$optional": 1}]}}`, "arguments.n.$unordered[0]", "$optional may only be the value of an object member"},
		{"wrong shape in unordered", `{"n": {"$unordered": [1, {"$text": 2}]}}`, "arguments.n.$unordered[1]", "$text needs a string, got a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompileArguments(decodeArgs(t, tt.args), "arguments")
			var me *MatcherError
			if !errors.As(err, &me) {
				t.Fatalf("%s\n%s: error = %v, want a MatcherError", rule, tt.args, err)
			}
			if me.Path != tt.path || !strings.Contains(me.Msg, tt.msg) {
				t.Fatalf("%s\n%s: error at %q: %q, want at %q: …%q…", rule, tt.args, me.Path, me.Msg, tt.path, tt.msg)
			}
		})
	}
}

func TestCompileArgumentsAccepts(t *testing.T) {
	tests := []struct {
		name, args, describe string
	}{
		{"plain", `{"a": 1}`, `{"a": 1}`},
		{"two dollar members are plain", `{"a": {"$gt": 1, "$lt": 2}}`, `{"a": {"$gt": 1, "$lt": 2}}`},
		{"any", `{"a": {"$any": [1, "x", null]}}`, `{"a": (any of 1, "x", null)}`},
		{"optional", `{"a": {"$optional": {"b": 1}}}`, `{"a": (optional {"b": 1})}`},
		{"optional member of exact", `{"$exact": {"a": {"$optional": 1}}}`, `exactly these members {"a": (optional 1)}`},
		{"text", `{"a": {"$text": "New York"}}`, `{"a": text like "New York"}`},
		{"literal keeps dollar names", `{"a": {"$literal": {"$optional": [1]}}}`, `{"a": literally {"$optional":[1]}}`},
		{"literal of anything", `{"a": {"$literal": "$x"}}`, `{"a": literally "$x"}`},
		{"nested", `{"a": {"$any": [{"$text": "NY"}, {"$any": [1, 2]}]}}`, `{"a": (any of text like "NY", (any of 1, 2))}`},
		{"any of objects at the top", `{"$any": [{"a": 1}, {"$exact": {}}, {"$literal": {"$b": 1}}]}`, `any of {"a": 1}, exactly these members {}, literally {"$b":1}`},
		{"literal object at the top", `{"$literal": {"$b": 1}}`, `literally {"$b":1}`},
		{"text at the top", `{"$text": "x"}`, `text like "x"`},
		{"literal scalar at the top", `{"$literal": 5}`, `literally 5`},
		{"any of objects and scalars at the top", `{"$any": [{"a": 1}, "x"]}`, `any of {"a": 1}, "x"`},
		{"unordered", `{"a": {"$unordered": ["x", {"$text": "Y"}, {"b": 1}]}}`, `{"a": in any order ["x", text like "Y", {"b": 1}]}`},
		{"unordered empty", `{"a": {"$unordered": []}}`, `{"a": in any order []}`},
		{"unordered nested", `{"a": {"$optional": {"$unordered": [{"$unordered": [1]}]}}}`, `{"a": (optional in any order [in any order [1]])}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := CompileArguments(decodeArgs(t, tt.args), "arguments")
			if err != nil {
				t.Fatal(err)
			}
			if got := DescribeValue(v); got != tt.describe {
				t.Errorf("described as %s, want %s", got, tt.describe)
			}
			// A compiled value writes back as the case wrote it.
			b, err := json.Marshal(ToTree(v))
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tt.args)); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, b, want.Bytes()) {
				t.Errorf("written back as %s, want %s", b, want.Bytes())
			}
		})
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func TestFoldText(t *testing.T) {
	punct := "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	if len(punct) != 32 {
		t.Fatalf("fixture has %d punctuation characters", len(punct))
	}
	for r := rune(0); r < 128; r++ {
		dropped := FoldText(string(r)) == ""
		want := strings.ContainsRune(punct, r) || strings.ContainsRune("\t\n\v\f\r ", r)
		if dropped != want {
			t.Errorf("FoldText drops %q: %v, want %v", r, dropped, want)
		}
	}
	// Every Unicode White_Space character, and nothing that merely looks
	// like space.
	for _, r := range "\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000" {
		if FoldText("a"+string(r)+"b") != "ab" {
			t.Errorf("FoldText keeps U+%04X", r)
		}
	}
	for _, r := range "\u200b\u180e\ufeff\u00ab\u2014" {
		if FoldText(string(r)) == "" {
			t.Errorf("FoldText drops U+%04X, which is neither White_Space nor ASCII punctuation", r)
		}
	}
	s := "NoChange"
	if got := FoldText(s); got != s {
		t.Errorf("FoldText(%q) = %q", s, got)
	}
}
