package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/site/internal/render"
)

// suiteEdit compares the suite of the last good build with the suite as
// it was edited (its thresholds, cases or policy). was gives, for each
// case position of edited, the position of the same case (by id) in the
// last build, or -1 for a case added; it is nil when the cases are the
// same in the same order. redo lists, in suite order, the positions in
// edited of the cases that must be judged again and whose pages must be
// rendered again: those added, those whose definition changed, and those
// whose citations, expected or given in any snapshot, the policy now
// judges or shows differently. A verdict depends on nothing else, so
// every other case keeps its verdict and its pages; the thresholds only
// change the decisions.
//
// A new version of the policy is an edit like any other: the citations
// it judges otherwise are those of the old version's rules. ok is false
// when the policy appeared or vanished, which decides whether citations
// are judged at all (and every page links the policy page or not).
func suiteEdit(old *evaluator.Release, edited *suite.Suite) (was, redo []int, ok bool) {
	before := old.Suite
	if (before.Policy == nil) != (edited.Policy == nil) {
		return nil, nil, false
	}
	if !sameCaseOrder(before, edited) {
		was = make([]int, len(edited.Cases))
		for i, c := range edited.Cases {
			j, found := before.CaseIndex(c.ID)
			if !found {
				j = -1
			}
			was[i] = j
		}
	}
	wasAt := func(i int) int {
		if was == nil {
			return i
		}
		return was[i]
	}
	citationMoved := citationMover(before, edited)
	// min_trial_pass_rate reaches the verdicts: when it changes, every
	// case is judged again.
	all := !sameVerdicts(before.Gate, edited.Gate)
	for i, c := range edited.Cases {
		j := wasAt(i)
		if all || j < 0 || !sameCase(before.Cases[j], c) || citationMoved != nil && citesMoved(old, j, citationMoved) {
			redo = append(redo, i)
		}
	}
	return was, redo, true
}

// sameCaseOrder reports whether two suites hold the same cases, by id,
// in the same order.
func sameCaseOrder(a, b *suite.Suite) bool {
	return slices.EqualFunc(a.Cases, b.Cases, func(x, y *suite.Case) bool { return x.ID == y.ID })
}

// citationMover reports, for a rule identifier, whether the edited
// policy judges or shows a citation of it otherwise than before's; nil
// when the policy was not edited.
func citationMover(before, edited *suite.Suite) func(id string) bool {
	if before.Policy == nil || before.PolicySHA256 == edited.PolicySHA256 {
		return nil
	}
	// Memoised: a large suite cites the same few identifiers over and over.
	moved := map[string]bool{}
	return func(id string) bool {
		m, seen := moved[id]
		if !seen {
			m = !sameCheck(judge.CheckCitation(id, before.Policy), judge.CheckCitation(id, edited.Policy))
			moved[id] = m
		}
		return m
	}
}

// withGate is s with gate.json read again, as load.Suite reads it: an
// edit of the thresholds alone leaves the cases and the policy as they
// were read, and on a large suite reading the cases is most of a
// rebuild's time.
func withGate(data string, s *suite.Suite, gates decide.Gates) (*suite.Suite, error) {
	p := filepath.Join(data, load.GateFile)
	src, err := load.ReadFile(data, p, load.MaxSmallJSONBytes)
	if err != nil {
		return nil, err
	}
	g, err := load.Gate(p, src, gates)
	if err != nil {
		return nil, err
	}
	next := suite.NewSuite(s.Policy, s.Cases, g)
	next.Decisions = s.Decisions
	sum := sha256.Sum256(src)
	next.CasesSHA256, next.PolicySHA256, next.GateSHA256 = s.CasesSHA256, s.PolicySHA256, hex.EncodeToString(sum[:])
	return next, nil
}

// sameVerdicts reports whether two sets of thresholds differ at most in
// those that only decide a snapshot from its totals and its comparisons:
// every one but the share of trials a case must pass.
func sameVerdicts(a, b suite.Gate) bool {
	for _, g := range []*suite.Gate{&a, &b} {
		g.Thresholds, g.Confidence, g.RequireEvidence, g.Baseline, g.BaselineLine = nil, 0, false, "", 0
	}
	return reflect.DeepEqual(a, b)
}

// sameCase reports whether two readings of a case are the same but for
// the line they were read from, which no page shows.
func sameCase(a, b *suite.Case) bool {
	x, y := *a, *b
	x.Line, y.Line = 0, 0
	return x.Equal(&y)
}

// sameCheck reports whether two checks of one citation judge and show it
// alike. Only policy.html shows a rule's title or line; the other pages
// show its identifier, state and anchor (which follows the identifier).
func sameCheck(a, b judge.CitationCheck) bool {
	return a.ID == b.ID && a.State == b.State && a.Rule.ID == b.Rule.ID
}

// citesMoved reports whether the case at position i expects, or any
// snapshot's output for it gives, a citation for which moved holds.
func citesMoved(rel *evaluator.Release, i int, moved func(string) bool) bool {
	for _, id := range rel.Suite.Cases[i].Expected.Citations {
		if moved(id) {
			return true
		}
	}
	for _, s := range rel.Snapshots {
		if o := s.Outputs[i]; o != nil {
			for _, id := range o.Citations {
				if moved(id) {
					return true
				}
			}
		}
	}
	return false
}

// editedParts lists the files to render after an edit of the suite that
// suiteEdit found to reach only the cases at redo: every snapshot's
// results file (it holds the hashes of the inputs), its page when a
// threshold or a case in it changed, the drilldowns and history pages of
// those cases, and in the snapshots evaluated again from their outputs
// file (reevaluated), the pages of the cases whose output or verdict
// changed as well. An edit of the policy's prose or of a rule's title
// alone thus renders no snapshot page, which on a large suite is the
// biggest page there is.
func editedParts(before, after *evaluator.Release, reevaluated []string, redo []int) render.Parts {
	cases := after.Suite.Cases
	parts := render.Parts{Drilldowns: make(map[string][]string, len(after.Snapshots))}
	inHistory := make([]bool, len(cases))
	for _, i := range redo {
		inHistory[i] = true
	}
	gateEdited := !reflect.DeepEqual(before.Suite.Gate, after.Suite.Gate)
	limitsMoved := !sameLimits(after.Specs(), before.Suite.Gate, after.Suite.Gate)
	for _, s := range after.Snapshots {
		label := s.Label()
		again := slices.Contains(reevaluated, label)
		if gateEdited || len(redo) > 0 || again {
			parts.Snapshots = append(parts.Snapshots, label)
		} else {
			parts.Results = append(parts.Results, label)
		}
		if again || limitsMoved || verdictsMoved(snapshotOf(before, label), s, redo) {
			parts.Tables = append(parts.Tables, label)
		}
		listed := make([]bool, len(cases))
		for _, i := range redo {
			listed[i] = true
		}
		for _, r := range reevaluated {
			if r == label {
				for _, i := range changedPositions(snapshotOf(before, label), s) {
					listed[i], inHistory[i] = true, true
				}
			}
		}
		var ids []string
		for i, l := range listed {
			if l {
				ids = append(ids, cases[i].ID)
			}
		}
		parts.Drilldowns[label] = ids
	}
	for i, h := range inHistory {
		if h {
			parts.Histories = append(parts.Histories, cases[i].ID)
		}
	}
	return parts
}

// movedParts lists the files to render after an edit of the suite in
// which cases came, went or moved, every snapshot having been judged
// again: every snapshot's page, results file and table data (their rows
// follow the suite), and the drilldowns and history pages of the cases at
// redo (see suiteEdit) and of those whose outputs or verdict changed.
// RenderParts, given before, adds the drilldowns whose neighbours
// changed. Cases are matched by id.
func movedParts(before, after *evaluator.Release, redo []int) render.Parts {
	cases := after.Suite.Cases
	// A case at redo is new or changed in every snapshot.
	atRedo := make([]bool, len(cases))
	for _, i := range redo {
		atRedo[i] = true
	}
	inHistory := slices.Clone(atRedo)
	parts := render.Parts{Drilldowns: make(map[string][]string, len(after.Snapshots))}
	for _, s := range after.Snapshots {
		label := s.Label()
		parts.Snapshots = append(parts.Snapshots, label)
		parts.Tables = append(parts.Tables, label)
		old := snapshotOf(before, label)
		ids := []string{}
		for i, c := range cases {
			j, found := before.Suite.CaseIndex(c.ID)
			if !found || atRedo[i] || old == nil || !sameJudging(old, j, s, i) {
				ids = append(ids, c.ID)
				inHistory[i] = true
			}
		}
		parts.Drilldowns[label] = ids
	}
	for i, h := range inHistory {
		if h {
			parts.Histories = append(parts.Histories, cases[i].ID)
		}
	}
	return parts
}

// sameLimits reports whether two sets of thresholds mark the same
// latencies and costs as over their limits, as a snapshot's case table
// does.
func sameLimits(gates decide.Gates, a, b suite.Gate) bool {
	for _, drivers := range []decide.Drivers{decide.SlowestOutputs, decide.CostliestOutputs} {
		spec, ok := gates.DrivenBy(drivers)
		if !ok {
			continue
		}
		x, onA := spec.Limit(a)
		y, onB := spec.Limit(b)
		if onA != onB || onA && x.Cmp(y) != 0 {
			return false
		}
	}
	return true
}

// verdictsMoved reports whether the verdict of a case at redo differs
// between two judgings of one snapshot.
func verdictsMoved(before, after *evaluator.Snapshot, redo []int) bool {
	if before == nil {
		return true
	}
	for _, i := range redo {
		if !before.Result.Cases[i].Equal(&after.Result.Cases[i]) {
			return true
		}
	}
	return false
}

// outputsParts lists the files to render after the snapshots in
// reevaluated were evaluated again from their outputs files, the rest of
// the release staying as it was: their pages and results files, and the
// drilldown and history pages of the cases whose output or verdict
// changed. On a large suite these are nearly all the pages.
func outputsParts(before, after *evaluator.Release, reevaluated []string) render.Parts {
	parts := render.Parts{Drilldowns: make(map[string][]string, len(reevaluated))}
	inHistory := make([]bool, len(after.Suite.Cases))
	for _, label := range reevaluated {
		parts.Snapshots = append(parts.Snapshots, label)
		parts.Tables = append(parts.Tables, label)
		ids := []string{}
		for _, i := range changedPositions(snapshotOf(before, label), snapshotOf(after, label)) {
			ids = append(ids, after.Suite.Cases[i].ID)
			inHistory[i] = true
		}
		parts.Drilldowns[label] = ids
	}
	for i, h := range inHistory {
		if h {
			parts.Histories = append(parts.Histories, after.Suite.Cases[i].ID)
		}
	}
	return parts
}

// addDescribed adds to parts the pages of the snapshots whose meta.json
// changed: their page shows it, as their results file does.
func addDescribed(parts *render.Parts, labels []string) {
	for _, l := range labels {
		if slices.Contains(parts.Snapshots, l) {
			continue
		}
		if i := slices.Index(parts.Results, l); i >= 0 {
			parts.Results = slices.Delete(parts.Results, i, i+1)
		}
		parts.Snapshots = append(parts.Snapshots, l)
	}
}
