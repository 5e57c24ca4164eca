package pages

import (
	"slices"
	"sync"

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
	// Paths, when set, keeps the result paths from one model to the
	// next: a live server sets it, so that a rebuild of the same cases
	// does not name their pages again. It changes no byte of the site.
	Paths *PathsKept
}

// PathsKept is the ResultPaths of the last model made with it, and what
// they were made for.
type PathsKept struct {
	mu                    sync.Mutex
	ids                   []string
	snapshots, groupAbove int
	paths                 ResultPaths
	made                  bool
}

// reuse returns the kept paths when they were made for the same case ids,
// number of snapshots and grouping; a nil k keeps nothing.
func (k *PathsKept) reuse(ids []string, snapshots, groupAbove int) (ResultPaths, bool) {
	if k == nil {
		return ResultPaths{}, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.made || k.snapshots != snapshots || k.groupAbove != groupAbove || !slices.Equal(k.ids, ids) {
		return ResultPaths{}, false
	}
	return k.paths, true
}

// keep remembers paths as made for ids, snapshots and groupAbove.
func (k *PathsKept) keep(ids []string, snapshots, groupAbove int, paths ResultPaths) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.ids, k.snapshots, k.groupAbove, k.paths, k.made = ids, snapshots, groupAbove, paths, true
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
