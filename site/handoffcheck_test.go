package site

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/site/pages"
)

var sampleDecisions = map[string]decide.Decision{
	"baseline-v1": decide.Block, "candidate-v2": decide.Review, "candidate-v3": decide.Pass, "v1": decide.Pass, "v1.1": decide.Block,
}

func TestCheckHandoff(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line label said claimed computed"
	}{
		{"agrees", "**candidate-v3 ships.** It passes.\n\nbaseline-v1 is blocked; candidate-v2 is held for review.", nil},
		{"ships but blocked", "Intro.\n\n**baseline-v1 ships.** All good.", []string{"3 baseline-v1 ships PASS BLOCK"}},
		{"upper-case name", "candidate-v3 is BLOCK for now.", []string{"1 candidate-v3 BLOCK BLOCK PASS"}},
		{"two labels in a sentence", "candidate-v3 is held, and baseline-v1 ships.",
			[]string{"1 candidate-v3 held REVIEW PASS", "1 baseline-v1 ships PASS BLOCK"}},
		{"word before the label", "Ships: candidate-v2.", []string{"1 candidate-v2 Ships PASS REVIEW"}},
		{"negated", "candidate-v2 does not ship. baseline-v1 does not ship. candidate-v3 does not ship.",
			[]string{"1 candidate-v3 ship not PASS PASS"}},
		{"table row", "| Snapshot | Result |\n|---|---|\n| `candidate-v2` | `PASS` |\n| `candidate-v3` | `PASS` |\n",
			[]string{"3 candidate-v2 PASS PASS REVIEW"}},
		{"longest label", "v1.1 ships. v1 ships.", []string{"1 v1.1 ships PASS BLOCK"}},
		{"label at a sentence end", "The one that ships is candidate-v2.", []string{"1 candidate-v2 ships PASS REVIEW"}},
		{"lower-case words are not decisions", "candidate-v3 will pass review and block nothing.", nil},
		{"code blocks are not read", "```\ncandidate-v2 ships\n```\n", nil},
		{"no label", "It ships. BLOCK.", nil},
		{"unknown label", "candidate-v9 ships.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range pages.CheckHandoff([]byte(tt.src), sampleDecisions) {
				got = append(got, strings.Join([]string{itoa(c.Line), c.Label, c.Said, c.Claimed, string(c.Computed)}, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSampleHandoffAgrees: the shipped note matches its computed decisions.
func TestSampleHandoffAgrees(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(sampleData, "HANDOFF.md"))
	if err != nil {
		t.Fatal(err)
	}
	if cs := pages.CheckHandoff(src, sampleDecisions); len(cs) != 0 {
		t.Errorf("the sample's HANDOFF.md is flagged: %v", cs)
	}
}

// TestHandoffContradictionFlagged changes the outputs so that the note's
// "candidate-v3 ships" is wrong, and checks the page and the warning.
func TestHandoffContradictionFlagged(t *testing.T) {
	data := copySample(t)
	// candidate-v3 recorded as baseline-v1 did: BLOCK.
	b, err := os.ReadFile(filepath.Join(data, "outputs", "baseline-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "outputs", "candidate-v3.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "site")
	var warnings []string
	if _, err := Build(data, out, BuildOptions{Warn: func(m string) { warnings = append(warnings, m) }}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) == 0 || !strings.Contains(strings.Join(warnings, "\n"), "calls candidate-v3 PASS (“ships”), but the computed decision is BLOCK") {
		t.Errorf("warnings %q lack the contradiction", warnings)
	}
	doc := parsePage(t, out, pages.HandoffPath)
	flags := findAll(doc, sel("p", class("contradiction")))
	if len(flags) == 0 {
		t.Fatal("no contradiction flagged on handoff.html")
	}
	found := false
	for _, f := range flags {
		if strings.Contains(textOf(f), "calls candidate-v3 PASS (“ships”), but releasegate computed BLOCK") {
			found = true
			// The summary above the note links to the flag.
			if len(findAll(doc, within(sel("div", class("contradictions")), sel("a", hasAttr("href", "#"+attr(f, "id")))))) != 1 {
				t.Errorf("the summary does not link to flag %s", attr(f, "id"))
			}
		}
	}
	if !found {
		t.Errorf("no flag names candidate-v3: %d flags", len(flags))
	}
	// The computed decisions come first, the note is labelled hand-written.
	all := findAll(doc, sel(""))
	computed, written := -1, -1
	for i, n := range all {
		if attr(n, "class") == "computed" && computed < 0 {
			computed = i
		}
		if strings.Contains(attr(n, "class"), "hand-written") && written < 0 {
			written = i
		}
	}
	if computed < 0 || written < 0 || computed > written {
		t.Errorf("computed decisions at %d, hand-written note at %d: want both, computed first", computed, written)
	}
	if label := findAll(doc, sel("p", class("hand-written-label"))); len(label) != 1 || !strings.Contains(textOf(label[0]), "Hand-written") {
		t.Error("the note is not labelled hand-written")
	}
}

// TestMarkdownLinksIDsAndAnchorsHeadings: in handoff.html, case and rule
// ids link to their pages and every heading has an id.
func TestMarkdownLinksIDsAndAnchorsHeadings(t *testing.T) {
	doc := parsePage(t, builtSample(t), pages.HandoffPath)
	note := findAll(doc, sel("article", class("handoff")))
	if len(note) != 1 {
		t.Fatal("no hand-written note")
	}
	links := map[string]string{}
	for _, a := range findAll(note[0], sel("a")) {
		links[textOf(a)] = attr(a, "href")
	}
	for text, href := range map[string]string{"ER-005": "cases/ER-005.html", "ER-2026.10 §5.1": "policy.html#rule-er-2026-10-5-1"} {
		if links[text] != href {
			t.Errorf("%q links to %q, want %q", text, links[text], href)
		}
	}
	if _, ok := links["ER-2026.08 §6.1"]; ok {
		t.Error("the withdrawn rule ER-2026.08 §6.1 is linked")
	}
	for _, h := range findAll(doc, sel("")) {
		if len(h.Data) == 2 && h.Data[0] == 'h' && h.Data[1] >= '1' && h.Data[1] <= '6' && attr(h, "id") == "" {
			t.Errorf("heading %q has no id", textOf(h))
		}
	}
}

func FuzzCheckHandoff(f *testing.F) {
	f.Add("**candidate-v3 ships.** baseline-v1 is blocked; candidate-v2 is held.")
	f.Add("| `candidate-v2` | `PASS` |\n|---|---|\n| v1.1 | BLOCK |")
	f.Add("v1. ships v1.1.")
	f.Add("See ER-001, `ER-001` and ER-001. in [ER-001](x) ~~ER-001~~ **ER-0011**")
	ids := pages.IDLinker{Cases: map[string]bool{"ER-001": true, "v1": true}}
	f.Fuzz(func(t *testing.T, src string) {
		// Rendering with links and flags must not fail or lose a flag.
		doc, found, err := pages.RenderHandoff([]byte(src), ids, sampleDecisions)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(doc.Body), `class="contradiction"`); n != len(found) {
			t.Fatalf("%d flags rendered for %d contradictions from %q", n, len(found), src)
		}
		for _, c := range pages.CheckHandoff([]byte(src), sampleDecisions) {
			if _, ok := sampleDecisions[c.Label]; !ok || c.Line < 1 || c.Computed != sampleDecisions[c.Label] {
				t.Fatalf("bad contradiction %+v from %q", c, src)
			}
		}
	})
}
