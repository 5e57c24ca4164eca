package serve

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"sync"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/parallel"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

// renderer is the part of *render.Renderer the server uses; tests substitute
// a small fake so that the server can be checked on its own.
type renderer interface {
	RenderAll(in *site.Input, emit render.Emit) error
	RenderParts(in *site.Input, parts render.Parts, emit render.Emit) error
	Footer(in *site.Input) ([]byte, error)
	// StepsMarks enclose the case-steps part of a drilldown.
	StepsMarks() render.StepsMarks
	// Paths lists the files RenderAll would emit.
	Paths(in *site.Input) ([]string, error)
	// RenderAllLater renders all but the case pages, which it puts off;
	// MakeLater gives those put off under an earlier input for in.
	RenderAllLater(in *site.Input, emit render.Emit) ([]render.Later, error)
	MakeLater(in *site.Input, paths []string) ([]render.Later, error)
}

// newRendererFunc makes a renderer from templates/ and assets/.
type newRendererFunc func(web fs.FS) (renderer, error)

// siteRenderer is the real one.
func siteRenderer(web fs.FS) (renderer, error) { return render.NewRenderer(web) }

// builder keeps the last good evaluation and site in memory and brings
// them up to date with as little work as each change needs. It is used by
// one goroutine at a time.
type builder struct {
	data        string
	web         fs.FS
	newRenderer newRendererFunc

	// The last good build; release is nil until one succeeded.
	renderer renderer
	release  *evaluator.Release
	handoff  []byte
	files    *siteFiles
	// reportBlocks keeps the release report page's blocks from one
	// rebuild to the next (see pages.MarkdownBlocks).
	reportBlocks *pages.MarkdownBlocks
	// paths keeps the result paths from one rebuild to the next.
	paths *pages.PathsKept
	// caseLines keeps the cases by their lines from one reading of the
	// suite to the next (see load.CaseLines), and outputLines each
	// snapshot's outputs by theirs (see load.OutputLines).
	caseLines   *load.CaseLines
	outputLines *snapshotLines

	// carry holds the changes of failed builds: they still need doing.
	carry changeSet
	// fitMemory sets the process's memory limit after each full build
	// (see fitMemoryLimit): a server does, a test need not.
	fitMemory bool
	// completeLater makes the pages a rebuild put off in the background
	// (see siteFiles.complete): a server does; in a test they are made
	// when asked for.
	completeLater bool
	// stopCompleting stops the goroutine and waits for it; it reports
	// whether every page was made.
	stopCompleting func() (completed bool)
	// fitOwed: a full build's memory limit is still to fit, once all its
	// pages are made.
	fitOwed bool
}

// outcome is what a successful build changed.
type outcome struct {
	files     *siteFiles // the whole new site
	changed   bool       // some file was added, removed or altered
	decisions []decisionChange
	// rendered is how many files were rendered.
	rendered int
	// full: every page was rendered again.
	full bool
}

// decisionChange is a snapshot whose decision differs from the last good
// build's; Before or After is "" when it was added or removed.
type decisionChange struct {
	Label         string
	Before, After decide.Decision
}

func (d decisionChange) String() string {
	switch {
	case d.Before == "":
		return fmt.Sprintf("%s: added (%s)", d.Label, d.After)
	case d.After == "":
		return fmt.Sprintf("%s: removed", d.Label)
	}
	return fmt.Sprintf("%s: %s → %s", d.Label, d.Before, d.After)
}

// build applies ch (and whatever earlier failed builds left to do). On
// error the last good build stays as it was.
func (b *builder) build(ch changeSet) (*outcome, error) {
	first := b.release == nil
	todo := b.carry
	todo.Merge(ch)
	if b.release == nil {
		todo.All = true
	}
	// The pages still put off are made for the next site, or on demand
	// if this build fails: the rebuild gets the processors meanwhile.
	b.stop()
	out, next, err := b.try(todo)
	if err != nil {
		b.carry = todo
		b.complete(b.files, false, false)
		return nil, err
	}
	b.carry = changeSet{}
	*b = next
	if b.outputLines != nil {
		b.outputLines.keepOnly(b.release)
	}
	// After a full build the replaced site and the build's scratch are
	// garbage: on a large suite hundreds of MiB. They are returned, and
	// the memory limit set to what the new site needs, once its pages
	// are all made. A narrower rebuild leaves little garbage, which the
	// limit keeps in check. The first build ran under a build's limit
	// (see startMemoryLimit), which the site it left may not fit with
	// room for a rebuild: that limit is fitted before the pages are made
	// too.
	b.complete(out.files, out.full && b.fitMemory, first && b.fitMemory)
	return out, nil
}

// complete makes the pages files put off in the background, then fits
// the memory limit if fit is set, or a full build before left it owed;
// fitFirst fits it before the pages are made as well.
func (b *builder) complete(files *siteFiles, fit, fitFirst bool) {
	fit = fit || b.fitOwed
	b.fitOwed = false
	pending := files != nil && b.completeLater && files.pending() > 0
	if !pending && !fit {
		return
	}
	// Owed until the goroutine has made every page (see stop).
	b.fitOwed = fit && pending
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var completed bool
	// The builder owns the goroutine: stop cancels it and waits for it,
	// also when it has only the memory limit to fit.
	b.stopCompleting = func() bool {
		cancel()
		<-done
		return completed
	}
	go func() {
		defer close(done)
		if fitFirst && pending {
			fitMemoryLimit()
		}
		if completed = !pending || files.complete(ctx); completed && fit {
			fitMemoryLimit()
		}
	}()
}

// stop stops making the pages put off in the background, and waits.
func (b *builder) stop() {
	if b.stopCompleting != nil {
		if b.stopCompleting() {
			b.fitOwed = false
		}
		b.stopCompleting = nil
	}
}

// releaseReport is the release report's path in a site (see docs/site.md).
const releaseReport = "RELEASE_REPORT.md"

// try computes the next builder state without touching the current one.
// Its steps: a new renderer when the templates changed, judging what the
// change set touched, reading the handoff note, and rendering the pages
// whose content changed.
func (b *builder) try(ch changeSet) (*outcome, builder, error) {
	next := *b
	next.carry = changeSet{}
	r := &rebuild{old: b, next: &next, ch: ch, full: ch.All || ch.Web || ch.Suite}
	for _, step := range []func() error{r.refreshRenderer, r.judge, r.readHandoff} {
		if err := step(); err != nil {
			return nil, next, err
		}
	}
	c, err := r.renderSite()
	if err != nil {
		return nil, next, err
	}
	next.files = c.site
	return &outcome{
		files:     c.site,
		changed:   c.changed || c.site.len() != b.files.len(),
		decisions: diffDecisions(b.release, next.release),
		rendered:  c.rendered,
		full:      r.full,
	}, next, nil
}

// rebuild is one try in progress: the builder as it was, the state being
// made, and what each step found for the next.
type rebuild struct {
	old, next *builder
	ch        changeSet
	// full: every page is rendered again.
	full bool
	// reevaluated lists the snapshots judged again from their outputs.
	reevaluated []string
	// redo holds the positions of the cases judged again: added, or
	// whose definition or citations changed.
	redo []int
	// described lists the snapshots kept but for their meta.json or
	// their comparisons.
	described []string
	// casesMoved: cases came, went or moved, and pages are matched with
	// the last build's by case id.
	casesMoved bool
}

// refreshRenderer parses the templates again when they changed.
func (r *rebuild) refreshRenderer() error {
	if !r.ch.All && !r.ch.Web {
		return nil
	}
	renderer, err := r.old.newRenderer(r.old.web)
	if err != nil {
		return err
	}
	r.next.renderer = renderer
	return nil
}

// judge evaluates what the change set asks for: the whole data folder,
// or the snapshots and cases an edit touched.
func (r *rebuild) judge() error {
	ch := r.ch
	switch {
	case ch.All || ch.Suite:
		in, err := site.LoadRemembering(r.old.data, r.caseLines(), r.lines().of)
		if err != nil {
			return err
		}
		r.next.release = in.Release
		return nil
	case len(ch.Edited) > 0 || len(ch.Labels) > 0 || len(ch.Metas) > 0:
		return r.judgeEdits()
	}
	return nil
}

// judgeEdits judges again the snapshots whose outputs changed and, after
// an edit of the suite, the cases it changed in every snapshot.
func (r *rebuild) judgeEdits() error {
	old := r.old.release
	s, again, keep := old.Suite, func(label string) bool { return r.ch.Labels[label] }, keepSnapshot
	if len(r.ch.Edited) > 0 {
		edited, err := r.editedSuite()
		if err != nil {
			return err
		}
		was, moved, ok := suiteEdit(old, edited)
		if !ok {
			// The policy appeared or vanished: every citation is judged
			// anew, or no longer.
			again, r.full = func(string) bool { return true }, true
		}
		r.redo, r.casesMoved = moved, was != nil
		// A snapshot that answered a case that went is read again, which
		// reports its outputs file as bad input.
		keep = func(o *evaluator.Snapshot) (*evaluator.Snapshot, bool) {
			return evaluator.Rearrange(edited, o, was, r.redo)
		}
		s = edited
	}
	rel, labels, sameSet, err := reevaluate(r.old.data, old, s, again, keep, r.lines().of)
	if err != nil {
		return err
	}
	// A snapshot that comes or goes changes the other snapshots' pages
	// too (they link to each other), so the whole site is rendered.
	r.full = r.full || !sameSet
	r.next.release, r.reevaluated = rel, labels
	r.described = describedAgain(old, rel, labels)
	// A snapshot judged as before may still compare otherwise with the
	// one before it or with the baseline.
	for _, l := range comparedAgain(old, rel, labels) {
		if !slices.Contains(r.described, l) {
			r.described = append(r.described, l)
		}
	}
	return nil
}

// lines are the outputs remembered by their lines, kept by the builder
// from one build to the next, whether it succeeds or not: they only save
// parsing a line again.
func (r *rebuild) lines() *snapshotLines {
	if r.next.outputLines == nil {
		r.next.outputLines = &snapshotLines{}
	}
	return r.next.outputLines
}

// snapshotLines holds a load.OutputLines per snapshot label, made when
// first asked for; snapshots are read concurrently.
type snapshotLines struct {
	mu sync.Mutex
	by map[string]*load.OutputLines
}

func (l *snapshotLines) of(label string) *load.OutputLines {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]*load.OutputLines{}
	}
	lines, ok := l.by[label]
	if !ok {
		lines = load.NewOutputLines()
		l.by[label] = lines
	}
	return lines
}

// keepOnly forgets the lines of snapshots rel does not have: a snapshot
// removed, or renamed.
func (l *snapshotLines) keepOnly(rel *evaluator.Release) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for label := range l.by {
		if !slices.ContainsFunc(rel.Snapshots, func(s *evaluator.Snapshot) bool { return s.Label() == label }) {
			delete(l.by, label)
		}
	}
}

// editedSuite reads the suite again after an edit: only the thresholds
// when gate.json alone changed.
func (r *rebuild) editedSuite() (*suite.Suite, error) {
	if len(r.ch.Edited) == 1 && r.ch.Edited[load.GateFile] {
		return withGate(r.old.data, r.old.release.Suite, r.old.release.Specs())
	}
	return load.Suite(r.old.data, load.Options{KeepInputs: true, Gates: r.old.release.Specs(), CaseLines: r.caseLines()})
}

// caseLines are the cases remembered by their lines, kept by the builder
// from one reading of the suite to the next, from the first build on.
func (r *rebuild) caseLines() *load.CaseLines {
	if r.next.caseLines == nil {
		r.next.caseLines = load.NewCaseLines()
	}
	return r.next.caseLines
}

// readHandoff reads HANDOFF.md again when it changed.
func (r *rebuild) readHandoff() error {
	if !r.ch.All && !r.ch.Handoff {
		return nil
	}
	// As in a build, a missing HANDOFF.md only means no handoff page.
	h, err := site.ReadHandoff(r.old.data)
	if err != nil {
		return err
	}
	r.next.handoff = h
	// Every page links to the handoff page only when there is one.
	r.full = r.full || (len(h) > 0) != (len(r.old.handoff) > 0)
	return nil
}

// render renders the pages the change needs into a collector of the next
// site: every page on the first build, every page but the case pages
// (made when asked for) when all of them change, else only the parts
// whose content changed.
func (r *rebuild) renderSite() (*collector, error) {
	b, next := r.old, r.next
	if next.reportBlocks == nil {
		next.reportBlocks = &pages.MarkdownBlocks{}
	}
	if next.paths == nil {
		next.paths = &pages.PathsKept{}
	}
	in := &site.Input{Release: next.release, Handoff: next.handoff, ReportBlocks: next.reportBlocks, Paths: next.paths}
	// Every page's footer names the suite's inputs by their hashes. The
	// site keeps it apart from the pages, so an edit of the suite renders
	// only the pages whose content it changes; one of the navigation (a
	// snapshot's order, the handoff page appearing) renders them all.
	r.full = r.full || !render.SameFrame(&site.Input{Release: b.release, Handoff: b.handoff, Paths: next.paths}, in)
	footer, err := next.renderer.Footer(in)
	if err != nil {
		return nil, err
	}
	switch {
	case r.full && b.release == nil && !b.completeLater:
		// The first build of a builder that makes no page in the
		// background starts with every page made.
		c := newCollector(nil, b.files, footer, next.renderer.StepsMarks())
		return c, next.renderer.RenderAll(in, c.emit)
	case r.full:
		// Every page changes: the case pages are made when asked for, or
		// in the background, so that a server answers without waiting
		// for them (at 100,000 cases × 3 they are most of the work).
		c := newCollector(nil, b.files, footer, next.renderer.StepsMarks())
		later, err := next.renderer.RenderAllLater(in, c.emit)
		if err != nil {
			return nil, err
		}
		c.putOff(later)
		return c, nil
	}
	c := newCollector(b.files, b.files, footer, next.renderer.StepsMarks())
	return c, r.renderParts(c, in)
}

// renderParts renders the pages a narrower change touched into c, drops
// the pages of cases that went, and plans the pages still to make.
func (r *rebuild) renderParts(c *collector, in *site.Input) error {
	b, next, ch := r.old, r.next, r.ch
	parts := r.parts()
	// The drilldowns whose links changed are found by comparing each
	// snapshot with its last judging; where a case's drilldown changed
	// only in those links, only they are rendered.
	parts.Before, parts.Steps = b.release, c.emitSteps
	// An edit that leaves the decisions and the gates as they were (a
	// title, a rule, a description, the handoff) may leave the release
	// report too; otherwise it is not worth comparing.
	if len(r.reevaluated) == 0 && reflect.DeepEqual(b.release.Suite.Gate, next.release.Suite.Gate) {
		old, ok := b.files.get(releaseReport)
		parts.SameReport = ok && bytes.Equal(old, next.release.Report())
	}
	parts.SamePolicy = samePolicyPage(b.release.Suite, next.release.Suite)
	parts.SameCases = sameCasesData(b.release.Suite, next.release.Suite)
	parts.SizeOf, parts.Last = b.files.sizeOf, b.files.get
	if len(parts.Snapshots) > 0 || len(ch.Edited) > 0 || ch.Handoff {
		// Empty parts, as after an edit of HANDOFF.md alone, still
		// render the pages about no one case or snapshot.
		if err := next.renderer.RenderParts(in, parts, c.emit); err != nil {
			return err
		}
	}
	if r.casesMoved {
		// The pages of the cases that went.
		paths, err := next.renderer.Paths(in)
		if err != nil {
			return err
		}
		c.keepOnly(paths)
	}
	return c.replan(next.renderer, in)
}

// parts says which pages the change touched.
func (r *rebuild) parts() render.Parts {
	var parts render.Parts
	switch {
	case r.casesMoved:
		parts = movedParts(r.old.release, r.next.release, r.redo)
	case len(r.ch.Edited) > 0:
		parts = editedParts(r.old.release, r.next.release, r.reevaluated, r.redo)
	default:
		parts = outputsParts(r.old.release, r.next.release, r.reevaluated)
	}
	addDescribed(&parts, r.described)
	return parts
}

// reevaluate evaluates the snapshots for which again holds against s and
// passes every other one through keep, or evaluates it too when keep
// cannot; lines gives the outputs remembered from a snapshot's last
// reading. It lists the outputs folder again, since a changed label may
// have been added or removed; sameSet reports whether the set of
// snapshots stayed the same.
func reevaluate(data string, old *evaluator.Release, s *suite.Suite, again func(label string) bool, keep func(*evaluator.Snapshot) (*evaluator.Snapshot, bool), lines func(label string) *load.OutputLines) (rel *evaluator.Release, redone []string, sameSet bool, err error) {
	files, err := load.Snapshots(data)
	if err != nil {
		return nil, nil, false, err
	}
	cached := make(map[string]*evaluator.Snapshot, len(old.Snapshots))
	for _, s := range old.Snapshots {
		cached[s.Label()] = s
	}
	gates := old.Specs()
	rel = &evaluator.Release{Suite: s, Gates: gates, Snapshots: make([]*evaluator.Snapshot, len(files))}
	errs := make([]error, len(files))
	read := make([]bool, len(files)) // evaluated from its outputs file
	sameSet = len(files) == len(old.Snapshots)
	for _, f := range files {
		_, ok := cached[f.Label]
		sameSet = sameSet && ok
	}
	parallel.Each(len(files), 0, func(i int) {
		f := files[i]
		if c, ok := cached[f.Label]; ok && !again(f.Label) {
			if kept, ok := keep(c); ok {
				rel.Snapshots[i] = withMeta(kept, f.Meta)
				return
			}
		}
		read[i] = true
		rel.Snapshots[i], errs[i] = evaluator.EvaluateSnapshot(s, f, evaluator.Options{KeepOutputs: true, KeepInputs: true, Gates: gates, OutputLines: lines})
	})
	for i, f := range files {
		if read[i] {
			redone = append(redone, f.Label)
		}
	}
	// The first error in label order, as EvaluateDir reports it.
	for _, err := range errs {
		if err != nil {
			return nil, nil, false, err
		}
	}
	if err := rel.Compare(filepath.Join(data, load.GateFile)); err != nil {
		return nil, nil, false, err
	}
	return rel, redone, sameSet, nil
}

// keepSnapshot reuses a snapshot as it is.
func keepSnapshot(s *evaluator.Snapshot) (*evaluator.Snapshot, bool) { return s, true }

// withMeta is s described by m, its meta.json as it reads now: a
// snapshot kept from the last build may have been described otherwise.
// A meta.json judges nothing, so the verdicts stay.
func withMeta(s *evaluator.Snapshot, m *suite.Meta) *evaluator.Snapshot {
	if reflect.DeepEqual(s.Result.Meta, m) {
		return s
	}
	described := *s
	described.Result.Meta = m
	return &described
}

// comparedAgain lists, in release order, the snapshots of after that
// were not evaluated again (those in reevaluated were) and whose
// comparisons with the snapshot before them or with the baseline, and so
// perhaps their gates and decision, differ from before's: their page and
// results file show them.
func comparedAgain(before, after *evaluator.Release, reevaluated []string) []string {
	var labels []string
	for _, s := range after.Snapshots {
		if slices.Contains(reevaluated, s.Label()) {
			continue
		}
		old := snapshotOf(before, s.Label())
		if old == nil {
			continue
		}
		a, b := old.Result, s.Result
		if a.Decision != b.Decision || !reflect.DeepEqual(a.Gates, b.Gates) ||
			!reflect.DeepEqual(a.VersusPrevious, b.VersusPrevious) || !reflect.DeepEqual(a.VersusBaseline, b.VersusBaseline) {
			labels = append(labels, s.Label())
		}
	}
	return labels
}

// describedAgain lists, in release order, the snapshots of after that
// were not evaluated again (those in reevaluated were) and whose
// meta.json differs from before's.
func describedAgain(before, after *evaluator.Release, reevaluated []string) []string {
	var labels []string
	for _, s := range after.Snapshots {
		if slices.Contains(reevaluated, s.Label()) {
			continue
		}
		if old := snapshotOf(before, s.Label()); old != nil && !reflect.DeepEqual(old.Result.Meta, s.Result.Meta) {
			labels = append(labels, s.Label())
		}
	}
	return labels
}

// snapshotOf finds a snapshot of rel by label; nil when there is none.
func snapshotOf(rel *evaluator.Release, label string) *evaluator.Snapshot {
	for _, s := range rel.Snapshots {
		if s.Label() == label {
			return s
		}
	}
	return nil
}

// changedPositions lists, in suite order, the positions of the cases
// whose output or verdict differs between two evaluations of one snapshot
// against the same suite. Every case counts as changed when either
// evaluation is missing.
func changedPositions(before, after *evaluator.Snapshot) []int {
	var at []int
	for i := range after.Result.Cases {
		if before == nil || after == nil || !sameJudging(before, i, after, i) {
			at = append(at, i)
		}
	}
	return at
}

// samePolicyPage reports whether policy.html would be rendered as it was
// for before: the same POLICY.md, and the same cases in the same order
// citing the same rules (the page lists, for each rule, the cases citing
// it, linked to their histories).
func samePolicyPage(before, after *suite.Suite) bool {
	return before.PolicySHA256 == after.PolicySHA256 && (before.Policy == nil) == (after.Policy == nil) &&
		slices.EqualFunc(before.Cases, after.Cases, func(a, b *suite.Case) bool {
			return a.ID == b.ID && slices.Equal(a.Expected.Citations, b.Expected.Citations)
		})
}

// sameCasesData reports whether the cases of before and after have the
// same ids, titles and severities, in the same order: all that
// data/cases.js holds of them (see render.Parts.SameCases).
func sameCasesData(before, after *suite.Suite) bool {
	return slices.EqualFunc(before.Cases, after.Cases, func(a, b *suite.Case) bool {
		return a == b || a.ID == b.ID && a.Title == b.Title && a.Severity == b.Severity
	})
}

// sameJudging reports whether the case at position j of before has the
// same outputs, in every trial, and the same verdict as the case at i of
// after: what its drilldown and history row show of a snapshot.
func sameJudging(before *evaluator.Snapshot, j int, after *evaluator.Snapshot, i int) bool {
	if len(before.TrialOutputs) != len(after.TrialOutputs) ||
		!before.Outputs[j].Equal(after.Outputs[i]) || !before.Result.Cases[j].Equal(&after.Result.Cases[i]) {
		return false
	}
	for t := range before.TrialOutputs {
		if !before.TrialOutputs[t][j].Equal(after.TrialOutputs[t][i]) {
			return false
		}
	}
	return true
}

// diffDecisions lists the snapshots whose decision changed, in the new
// release's order, then the removed ones. Before the first build every
// snapshot is new.
func diffDecisions(before, after *evaluator.Release) []decisionChange {
	was := map[string]decide.Decision{}
	if before != nil {
		for _, s := range before.Snapshots {
			was[s.Label()] = s.Result.Decision
		}
	}
	var out []decisionChange
	for _, s := range after.Snapshots {
		d, ok := was[s.Label()]
		delete(was, s.Label())
		if !ok || d != s.Result.Decision {
			out = append(out, decisionChange{Label: s.Label(), Before: d, After: s.Result.Decision})
		}
	}
	for _, l := range slices.Sorted(maps.Keys(was)) {
		out = append(out, decisionChange{Label: l, Before: was[l]})
	}
	return out
}
