package pages

import (
	"strings"
)

// HandoffPage is handoff.html: the computed decisions first, then
// HANDOFF.md as written, labelled as hand-written, with every sentence
// that contradicts a computed decision flagged.
type HandoffPage struct {
	Layout
	Verdict        Verdict
	Decisions      []SnapshotCard // the snapshots the note names, and the latest
	Contradictions []Contradiction
	Doc            markdownDoc
}

// HandoffPage builds handoff.html from HANDOFF.md.
func (v *Model) HandoffPage() (*HandoffPage, error) {
	doc, found, err := RenderHandoff(v.In.Handoff, v.idLinker(HandoffPath), v.decisions())
	if err != nil {
		return nil, err
	}
	p := &HandoffPage{Layout: v.Info.layout(HandoffPath, "Handoff"), Doc: doc, Contradictions: found, Verdict: v.verdict()}
	named := map[string]bool{}
	for _, l := range mentionedLabels(v.In.Handoff, v.Info.Labels) {
		named[l] = true
	}
	rel := v.In.Release
	for i := len(rel.Snapshots) - 1; i >= 0; i-- {
		s := rel.Snapshots[i]
		if i == len(rel.Snapshots)-1 || named[s.Label()] {
			p.Decisions = append(p.Decisions, snapshotCard(s, GateRows(s), rel.Suite.Gate.Confidence, ""))
		}
	}
	return p, nil
}

// mentionedLabels lists the labels that src names, in labels' order.
func mentionedLabels(src []byte, labels []string) []string {
	var out []string
	for _, l := range labels {
		for rest := string(src); ; {
			i := strings.Index(rest, l)
			if i < 0 {
				break
			}
			if (i == 0 || !idByte(rest[i-1])) && labelEnds(rest, i+len(l)) {
				out = append(out, l)
				break
			}
			rest = rest[i+len(l):]
		}
	}
	return out
}
