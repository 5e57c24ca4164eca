// Package pages is the page model of a release's report site: a typed
// struct for each page (the overview, a snapshot, a drilldown, a case
// history, the grouped pages of a large suite, the policy, the handoff
// note, the release report, compare and the glossary), built from an
// evaluated release by the methods of Model. It decides what every page
// says and where every page lives (paths.go); it executes no template and
// writes no file: site/internal/render does (see docs/design.md, "The
// pipeline").
package pages

import (
	"errors"
	"fmt"
	"sync"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Model is the evaluated release as every page sees it. It is read-only
// once made (but for caches of what it computes), so pages are built from
// it in parallel.
type Model struct {
	In   *Input
	Info SiteInfo
	// Paths say where each result and case history lives.
	Paths ResultPaths
	// nextFailing caches failingAfter by snapshot label.
	nextFailing sync.Map
	// rows holds a *sharedRows per snapshot label (see snapshotRows).
	rows sync.Map
	// report is RELEASE_REPORT.md, made once for the file and its page.
	report struct {
		once sync.Once
		text []byte
	}
	// citedBy is the cases citing each rule, made once for the pages
	// that show it (see citations).
	citedBy struct {
		once  sync.Once
		cases map[string][]CaseLink
	}
}

// Report is RELEASE_REPORT.md, written once for the file and its page:
// at 100,000 cases × 3 it is 9 MB and takes a quarter of a second.
func (v *Model) Report() []byte {
	v.report.once.Do(func() { v.report.text = v.In.Release.Report() })
	return v.report.text
}

// NewModel models the pages of in. It refuses a release evaluated
// without its outputs, and two snapshots with one label.
func NewModel(in *Input) (*Model, error) {
	if in == nil || in.Release == nil || in.Release.Suite == nil {
		return nil, errors.New("site: no evaluated release to render")
	}
	rel := in.Release
	info := SiteInfo{HasHandoff: len(in.Handoff) > 0, PolicyVersion: rel.Suite.PolicyVersion(), HasPolicy: rel.Suite.Policy != nil, CaseCount: len(rel.Suite.Cases), Provenance: newProvenance(rel)}
	seen := map[string]bool{}
	for _, s := range rel.Snapshots {
		if len(s.Outputs) != len(rel.Suite.Cases) || len(s.Result.Cases) != len(rel.Suite.Cases) {
			return nil, fmt.Errorf("site: snapshot %s was evaluated without its outputs (use evaluator.Options{KeepOutputs: true})", s.Label())
		}
		if seen[s.Label()] {
			return nil, fmt.Errorf("site: two snapshots are labelled %s", s.Label())
		}
		seen[s.Label()] = true
		info.Labels = append(info.Labels, s.Label())
	}
	ids := CaseIDs(rel.Suite.Cases)
	paths, ok := in.Paths.reuse(ids, len(rel.Snapshots), in.GroupAbove)
	if !ok {
		paths = NewResultPaths(ids, len(rel.Snapshots), in.GroupAbove)
		in.Paths.keep(ids, len(rel.Snapshots), in.GroupAbove, paths)
	}
	return &Model{In: in, Info: info, Paths: paths}, nil
}

// CaseIDs lists the ids of cases, in order.
func CaseIDs(cases []*suite.Case) []string {
	ids := make([]string, len(cases))
	for i, c := range cases {
		ids[i] = c.ID
	}
	return ids
}

// Snapshot is the snapshot labelled label.
func (v *Model) Snapshot(label string) (*evaluator.Snapshot, bool) {
	for _, s := range v.In.Release.Snapshots {
		if s.Label() == label {
			return s, true
		}
	}
	return nil, false
}
