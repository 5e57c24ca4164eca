package pages

import (
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// objectOf reads a JSON object as the loader holds it.
func objectOf(t *testing.T, s string) suite.Object {
	t.Helper()
	m, err := decodeObject(s)
	if err != nil {
		t.Fatal(err)
	}
	return suite.NewObject(m)
}

// expectedCall compiles one expected call as the loader does.
func expectedCall(t *testing.T, name, args string) suite.ExpectedCall {
	t.Helper()
	compiled, err := suite.CompileArguments(objectOf(t, args), "expected.tool_calls[0].arguments")
	if err != nil {
		t.Fatal(err)
	}
	return suite.ExpectedCall{Name: name, Arguments: compiled}
}

func toolCall(t *testing.T, name, args string) suite.ToolCall {
	t.Helper()
	return suite.ToolCall{Name: name, Arguments: objectOf(t, args)}
}

// lineTexts joins what each printed line says, matcher words included.
func lineTexts(lines []JSONLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text + l.Matcher
	}
	return out
}

func TestExpectedArgumentsShowMatchersInWords(t *testing.T) {
	tests := []struct {
		name string
		args string
		want []string // lines, in order
	}{
		{"plain", `{"a": 1, "b": {"c": "x"}}`, []string{`{`, `  "a": 1,`, `  "b": {`, `    "c": "x"`, `  }`, `}`}},
		{"any of", `{"flight": {"$any": ["NW118", "NW172"]}}`, []string{`{`, `  "flight": any of "NW118", "NW172"`, `}`}},
		{"optional text nested", `{"summary": {"$optional": {"$text": "Wheelchair at gate"}}, "x": 1}`,
			[]string{`{`, `  "summary": optional text like "Wheelchair at gate",`, `  "x": 1`, `}`}},
		{"any of text", `{"city": {"$any": [{"$text": "New York"}, "NYC"]}}`, []string{`{`, `  "city": any of text like "New York", "NYC"`, `}`}},
		{"literal", `{"basis": {"$literal": {"$regulation": "EC 261"}}}`, []string{`{`, `  "basis": literally {"$regulation":"EC 261"}`, `}`}},
		// $exact is laid out member by member under its words, so each
		// member can be marked on its own line.
		{"exact arguments", `{"$exact": {"ref": "Z", "queue": {"$any": ["a", "b"]}}}`,
			[]string{`{ exactly these members, no others`, `  "queue": any of "a", "b",`, `  "ref": "Z"`, `}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := expectedCall(t, "f", tt.args)
			got := lineTexts(expectedLines(call.Arguments))
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestMatcherWordsAreMarkedUpApart(t *testing.T) {
	call := expectedCall(t, "f", `{"city": {"$text": "<b>NYC</b>"}}`)
	got := string(jsonHTML(expectedLines(call.Arguments)))
	want := `<span class="line">  &#34;city&#34;: <span class="matcher">text like &#34;&lt;b&gt;NYC&lt;/b&gt;&#34;</span></span>`
	if !strings.Contains(got, want) {
		t.Errorf("matcher line not marked up as %s:\n%s", want, got)
	}
}

func TestCallPairsFollowTheJudgesPairing(t *testing.T) {
	exp := &suite.Expected{
		Decision:  "rebook",
		ToolMatch: suite.MatchSubsequence,
		ToolCalls: []suite.ExpectedCall{
			expectedCall(t, "search_flights", `{"destination": {"$text": "New York"}}`),
			expectedCall(t, "rebook_flight", `{"flight": "NW2"}`),
		},
		ForbiddenTools: []string{"cancel_booking"},
	}
	out := &suite.Output{Decision: "rebook", ToolCalls: []suite.ToolCall{
		toolCall(t, "lookup_booking", `{"ref": "K"}`),
		toolCall(t, "search_flights", `{"destination": "new-york"}`),
		toolCall(t, "cancel_booking", `{"ref": "K"}`),
		{Name: "rebook_flight", Unreadable: true, Raw: `{"flight": "NW2"`},
	}}
	cp := callPairs(exp, out)
	if cp.Mode != "subsequence" || len(cp.Pairs) != 2 {
		t.Fatalf("mode %q with %d pairs, want subsequence with 2", cp.Mode, len(cp.Pairs))
	}
	// In the data format's subsequence, expected 1 pairs with output call 2
	// and expected 2 with output call 4; calls 1 and 3 are left over.
	wantActual := []int{2, 4}
	for i, p := range cp.Pairs {
		if p.Actual == nil || p.Actual.Index != wantActual[i] {
			t.Errorf("expected call %d paired with %v, want output call %d", i+1, p.Actual, wantActual[i])
		}
	}
	if cp.Pairs[0].Verdict.Text != "matches" {
		t.Errorf("new-york against text like New York: %q, want matches", cp.Pairs[0].Verdict.Text)
	}
	second := cp.Pairs[1]
	if second.Verdict.Text != "arguments differ" || second.Actual == nil || !second.Actual.Unreadable || second.Actual.Raw != `{"flight": "NW2"` {
		t.Errorf("the unreadable call should be paired, shown raw and differ; got %+v", second)
	}
	if len(cp.Unpaired) != 2 || cp.Unpaired[0].Index != 1 || cp.Unpaired[1].Index != 3 {
		t.Fatalf("unpaired calls %+v, want output calls 1 and 3", cp.Unpaired)
	}
	if cp.Unpaired[1].Note != "forbidden for this case" {
		t.Errorf("the forbidden call's note is %q", cp.Unpaired[1].Note)
	}
	if !strings.Contains(cp.UnpairedNote, "allows them") {
		t.Errorf("subsequence allows extra calls; note %q", cp.UnpairedNote)
	}
	if len(cp.Mismatches) != 1 || !strings.HasPrefix(cp.Mismatches[0], "call 2: arguments") {
		t.Errorf("mismatches %q, want one for call 2's arguments", cp.Mismatches)
	}
}

func TestCallPairsWithoutOutput(t *testing.T) {
	exp := &suite.Expected{Decision: "cancel", ToolCalls: []suite.ExpectedCall{expectedCall(t, "cancel_booking", `{"ref": "Q"}`)}}
	cp := callPairs(exp, nil)
	if cp.HasOutput || len(cp.Pairs) != 1 || cp.Pairs[0].Actual != nil || cp.Mode != "exact" {
		t.Errorf("without output: %+v", cp)
	}
	none := callPairs(&suite.Expected{Decision: "inform", ToolMatch: suite.MatchAnyOrder}, &suite.Output{Decision: "inform"})
	if !none.NoneExpected || none.ModeText != "no call at all" || len(none.Pairs) != 0 {
		t.Errorf("no call expected under any_order: %+v", none)
	}
	any := callPairs(&suite.Expected{Decision: "inform", ToolMatch: suite.MatchSubsequence}, &suite.Output{Decision: "inform",
		ToolCalls: []suite.ToolCall{toolCall(t, "get_flight_status", `{}`)}})
	if len(any.Unpaired) != 1 || !strings.Contains(any.UnpairedNote, "allows them") {
		t.Errorf("subsequence with nothing expected allows any call: %+v", any)
	}
}
