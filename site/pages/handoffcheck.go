package pages

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Contradiction is a claim of HANDOFF.md about a snapshot's decision that
// the computed decision does not bear out.
type Contradiction struct {
	Line     int    // in HANDOFF.md, one-based
	Label    string // the snapshot named
	Said     string // the words that make the claim: "ships", "PASS"
	Claimed  string // what they mean: "PASS", "not PASS"
	Computed decide.Decision
	// Anchor is the flag's id on handoff.html.
	Anchor string
	block  ast.Node
}

// String words the contradiction for a warning.
func (c Contradiction) String() string {
	return fmt.Sprintf("HANDOFF.md:%d: %s, but the computed decision is %s", c.Line, c.Claim(), c.Computed)
}

// Claim words what the note says: "calls candidate-v3 PASS (“ships”)".
func (c Contradiction) Claim() string {
	s := "calls " + c.Label + " " + c.Claimed
	if c.Said != c.Claimed {
		s += " (“" + c.Said + "”)"
	}
	return s
}

// CheckHandoff reads HANDOFF.md for sentences that name a snapshot with a
// decision (PASS, REVIEW, BLOCK, or ships, held, blocked) and returns
// those that contradict decisions, the computed decision of each label.
// A claim belongs to the nearest label before it in its sentence or
// table row, or, when none precedes it, to the first label after it.
func CheckHandoff(src []byte, decisions map[string]decide.Decision) []Contradiction {
	doc := suite.Markdown().Parser().Parse(text.NewReader(src))
	return findContradictions(doc, src, decisions)
}

func findContradictions(doc ast.Node, src []byte, decisions map[string]decide.Decision) []Contradiction {
	labels := make([]string, 0, len(decisions))
	for l := range decisions {
		labels = append(labels, l)
	}
	// The longest first, so that "v1.1" is not read as "v1".
	slices.SortFunc(labels, func(a, b string) int {
		if d := len(b) - len(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var out []Contradiction
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Paragraph, *ast.Heading, *east.TableRow, *east.TableHeader, *ast.TextBlock:
		default:
			return ast.WalkContinue, nil
		}
		txt, offsets := blockText(n, src)
		for _, unit := range sentences(txt, isRow(n)) {
			for _, c := range claims(txt[unit[0]:unit[1]], labels) {
				want := decisions[c.label]
				if c.agrees(want) {
					continue
				}
				at := offsets[unit[0]+c.at]
				out = append(out, Contradiction{
					Line: bytes.Count(src[:at], []byte("\n")) + 1, Label: c.label, Said: c.said,
					Claimed: c.claimed(), Computed: want, block: n,
				})
			}
		}
		return ast.WalkSkipChildren, nil
	})
	for i := range out {
		out[i].Anchor = fmt.Sprintf("contradiction-%d", i+1)
	}
	return out
}

func isRow(n ast.Node) bool {
	switch n.(type) {
	case *east.TableRow, *east.TableHeader:
		return true
	}
	return false
}

// blockText is the text of a block's inlines, code spans included, with
// the source offset of each byte (soft line breaks become spaces).
func blockText(n ast.Node, src []byte) (string, []int) {
	var b []byte
	var offsets []int
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if t, ok := c.(*ast.Text); ok {
			seg := t.Segment
			for i := seg.Start; i < seg.Stop; i++ {
				b, offsets = append(b, src[i]), append(offsets, i)
			}
			if t.SoftLineBreak() || t.HardLineBreak() {
				b, offsets = append(b, ' '), append(offsets, seg.Stop)
			}
		}
		if _, ok := c.(*east.TableCell); ok && len(b) > 0 {
			b, offsets = append(b, ' ', '|', ' '), append(offsets, offsets[len(offsets)-1], offsets[len(offsets)-1], offsets[len(offsets)-1])
		}
		return ast.WalkContinue, nil
	})
	return string(b), offsets
}

// sentences splits text into [start, end) ranges at ". ", "! ", "? " and
// ";". A table row is one unit.
func sentences(s string, row bool) [][2]int {
	if row {
		return [][2]int{{0, len(s)}}
	}
	var out [][2]int
	start := 0
	for i := 0; i < len(s); i++ {
		end := s[i] == ';' || (s[i] == '.' || s[i] == '!' || s[i] == '?') && (i+1 == len(s) || s[i+1] == ' ')
		if end {
			out = append(out, [2]int{start, i + 1})
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}

// decisionWords are the words that claim a decision. Upper-case decision
// names must be written as such; "pass" and "review" in lower case are
// ordinary words.
var decisionWords = []struct {
	re       *regexp.Regexp
	decision decide.Decision
}{
	{regexp.MustCompile(`\b(PASS|REVIEW|BLOCK)\b`), ""},
	{regexp.MustCompile(`(?i)\b(ships|ship|shipped|shipping|released)\b`), decide.Pass},
	{regexp.MustCompile(`(?i)\b(held|on hold)\b`), decide.Review},
	{regexp.MustCompile(`(?i)\b(blocked)\b`), decide.Block},
}

var negation = regexp.MustCompile(`(?i)\b(not|never|cannot|can't|won't|doesn't|don't|isn't|no longer)\s+(\w+\s+)?$`)

// claim is one decision word attributed to one label.
type claim struct {
	label    string
	at       int // of the decision word, in the unit
	said     string
	decision decide.Decision
	negated  bool
}

func (c claim) agrees(d decide.Decision) bool { return (c.decision == d) != c.negated }

func (c claim) claimed() string {
	if c.negated {
		return "not " + string(c.decision)
	}
	return string(c.decision)
}

// claims finds the labels of a unit and the decision words that belong to
// each.
func claims(unit string, labels []string) []claim {
	type mention struct {
		at    int
		label string
	}
	var ms []mention
	for i := 0; i < len(unit); i++ {
		if i > 0 && idByte(unit[i-1]) {
			continue
		}
		for _, l := range labels {
			if strings.HasPrefix(unit[i:], l) && labelEnds(unit, i+len(l)) {
				ms = append(ms, mention{i, l})
				i += len(l) - 1
				break
			}
		}
	}
	if len(ms) == 0 {
		return nil
	}
	var out []claim
	for _, w := range decisionWords {
		for _, loc := range w.re.FindAllStringIndex(unit, -1) {
			said := unit[loc[0]:loc[1]]
			d := w.decision
			if d == "" {
				d = decide.Decision(said)
			}
			// The nearest label before the word, else the first after it.
			owner := ms[0]
			for _, m := range ms {
				if m.at < loc[0] {
					owner = m
				}
			}
			if owner.at <= loc[0] && owner.at+len(owner.label) > loc[0] {
				continue // inside the label itself
			}
			out = append(out, claim{label: owner.label, at: loc[0], said: said, decision: d,
				negated: negation.MatchString(unit[:loc[0]])})
		}
	}
	slices.SortFunc(out, func(a, b claim) int { return a.at - b.at })
	return out
}

// idByte reports whether b may continue a label or case id.
func idByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b == '.'
}

// labelEnds reports whether a label that ends at i ends a word there: a
// following "." ends a sentence unless an id character comes after it.
func labelEnds(s string, i int) bool {
	if i == len(s) {
		return true
	}
	if s[i] == '.' {
		return i+1 == len(s) || !idByte(s[i+1])
	}
	return !idByte(s[i])
}
