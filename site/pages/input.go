package pages

import (
	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
)

// Input is everything the site shows.
type Input struct {
	Release *evaluator.Release // evaluated with Options.KeepOutputs
	Handoff []byte             // HANDOFF.md, Markdown; empty: no handoff page
	// GroupAbove is the number of results (cases × snapshots) above which
	// results and case histories share pages; 0 means DefaultGroupAbove.
	GroupAbove int
	// ReportBlocks, when set, keeps the release report page's rendered
	// blocks for the next rendering: a live server sets it, so that an
	// edit renders again only the blocks of RELEASE_REPORT.md it changed.
	// It changes no byte of the page.
	ReportBlocks *MarkdownBlocks
}

// Warnings are what a build warns about in the evaluated input: each
// sentence of HANDOFF.md that names a snapshot with a decision other than
// the computed one.
func (in *Input) Warnings() []string {
	if len(in.Handoff) == 0 || in.Release == nil {
		return nil
	}
	decisions := map[string]decide.Decision{}
	for _, s := range in.Release.Snapshots {
		decisions[s.Label()] = s.Result.Decision
	}
	var out []string
	for _, c := range CheckHandoff(in.Handoff, decisions) {
		out = append(out, c.String())
	}
	return out
}
