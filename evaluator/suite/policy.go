package suite

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Rule is one policy rule: a heading whose text begins with an identifier
// such as "ER-2026.10 §4.2".
type Rule struct {
	ID      string // "ER-2026.10 §4.2"
	Title   string // the heading text after the identifier
	Version string // "ER-2026.10"
	Section string // "4.2"
	Line    int    // line of the heading in POLICY.md
}

// Anchor is the rule's fragment on policy.html.
func (r Rule) Anchor() string { return Anchor(r.ID) }

// Policy is the current policy: its version and its rules in document order.
type Policy struct {
	Version string
	Rules   []Rule
	Source  []byte // the Markdown the rules were read from
	byID    map[string]int
}

// NewPolicy indexes rules; ids must be unique and share one version.
func NewPolicy(rules []Rule) *Policy {
	p := &Policy{Rules: rules, byID: make(map[string]int, len(rules))}
	for i, r := range rules {
		p.byID[r.ID] = i
		p.Version = r.Version
	}
	return p
}

// Rule returns the current rule with exactly this identifier.
func (p *Policy) Rule(id string) (Rule, bool) {
	if p == nil {
		return Rule{}, false
	}
	i, ok := p.byID[id]
	if !ok {
		return Rule{}, false
	}
	return p.Rules[i], true
}

// Successor returns the current rule that an identifier of another version
// refers to: same prefix and section, current version. It is how an
// outdated citation such as "ER-2026.08 §6.1" names its replacement.
func (p *Policy) Successor(id string) (Rule, bool) {
	if !p.OtherVersion(id) {
		return Rule{}, false
	}
	old, _ := ParseRuleID(id)
	return p.Rule(p.Version + " §" + old.Section)
}

// OtherVersion reports whether id is exactly an identifier of this
// policy's series (same prefix) but of another version.
func (p *Policy) OtherVersion(id string) bool {
	if p == nil {
		return false
	}
	r, ok := ParseRuleID(id)
	if !ok || r.ID != id || r.Version == p.Version {
		return false
	}
	prefix := func(v string) string { return v[:strings.IndexByte(v, '-')] }
	return prefix(r.Version) == prefix(p.Version)
}

// ruleID is the identifier grammar PREFIX-YYYY.MM §N(.N)*.
var ruleID = regexp.MustCompile(`^([A-Z][A-Z0-9]*-[0-9]{4}\.[0-9]{2}) §([0-9]+(?:\.[0-9]+)*)`)

// ParseRuleID reads a rule identifier at the start of s. The identifier must
// end the text or be followed by a character that is neither a letter nor a
// digit. The returned Rule carries ID, Version, Section and, as Title, the
// rest of s trimmed of spaces and separating punctuation.
func ParseRuleID(s string) (Rule, bool) {
	m := ruleID.FindStringSubmatchIndex(s)
	if m == nil {
		return Rule{}, false
	}
	rest := s[m[1]:]
	if r, _ := utf8.DecodeRuneInString(rest); rest != "" && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return Rule{}, false
	}
	return Rule{
		ID:      s[:m[1]],
		Version: s[m[2]:m[3]],
		Section: s[m[4]:m[5]],
		Title:   strings.TrimLeft(strings.TrimSpace(rest), ".:—–- "),
	}, true
}

// Anchor returns the HTML id of the rule with the given identifier:
// "rule-" and the identifier lower-cased, each run of characters outside
// [a-z0-9] replaced by one "-", trimmed of "-".
func Anchor(id string) string {
	var b strings.Builder
	b.WriteString("rule-")
	dash := false
	for _, r := range strings.ToLower(id) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > len("rule-") {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// Markdown returns the goldmark converter every policy and handoff text is
// read with, so the rules found here are the headings the site renders.
func Markdown() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM))
}

// HeadingText returns the plain text of a heading, markup removed.
func HeadingText(h *ast.Heading, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for c := t.FirstChild(); c != nil; c = c.NextSibling() {
				if s, ok := c.(*ast.Text); ok {
					b.Write(s.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// ParsePolicy finds the rules of a POLICY.md. file names the source in
// errors. Every rule must share the version of the first, identifiers must
// be unique, and there must be at least one rule.
func ParsePolicy(file string, src []byte) (*Policy, error) {
	doc := Markdown().Parser().Parse(text.NewReader(src))
	var rules []Rule
	seen := map[string]int{}
	var err error
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		r, ok := ParseRuleID(HeadingText(h, src))
		if !ok {
			return ast.WalkSkipChildren, nil
		}
		r.Line = headingLine(h, src)
		switch {
		case len(rules) > 0 && r.Version != rules[0].Version:
			err = &InputError{File: file, Line: r.Line, Msg: fmt.Sprintf("rule %s has version %s, but the policy's first rule (line %d) has version %s", r.ID, r.Version, rules[0].Line, rules[0].Version)}
		case seen[r.ID] > 0:
			err = &InputError{File: file, Line: r.Line, Msg: fmt.Sprintf("rule %s is defined twice (first at line %d)", r.ID, seen[r.ID])}
		}
		if err != nil {
			return ast.WalkStop, nil
		}
		seen[r.ID] = r.Line
		rules = append(rules, r)
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		return nil, err
	}
	if len(rules) == 0 {
		return nil, &InputError{File: file, Msg: "no rule headings found: a rule is a heading that begins with an identifier such as \"ER-2026.10 §4.2\""}
	}
	p := NewPolicy(rules)
	p.Source = src
	return p, nil
}

// headingLine returns the 1-based line on which a heading's text starts.
func headingLine(h *ast.Heading, src []byte) int {
	off := 0
	if lines := h.Lines(); lines.Len() > 0 {
		off = lines.At(0).Start
	} else if c := h.FirstChild(); c != nil {
		if t, ok := c.(*ast.Text); ok {
			off = t.Segment.Start
		}
	}
	return 1 + bytes.Count(src[:off], []byte("\n"))
}
