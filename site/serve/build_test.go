package serve

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/internal/render"
)

func newTestBuilder(t *testing.T, nr newRendererFunc) (*builder, string) {
	t.Helper()
	data := copyDir(t, sampleData)
	b := &builder{data: data, web: releasegate.Web(), newRenderer: nr}
	out, err := b.build(changeSet{})
	if err != nil {
		t.Fatal(err)
	}
	if !out.changed || out.files.len() == 0 {
		t.Fatalf("first build: changed %v, %d files", out.changed, out.files.len())
	}
	return b, data
}

func outputsPath(data, label string) string {
	return filepath.Join(data, "outputs", label+".jsonl")
}

func batchOf(chs ...change) changeSet {
	var c changeSet
	for _, ch := range chs {
		c.Add(ch)
	}
	return c
}

func TestOneSnapshotIsEvaluatedAndRenderedAlone(t *testing.T) {
	nr, calls := fakeRenderers()
	b, data := newTestBuilder(t, nr)
	before := b.release
	p := outputsPath(data, "candidate-v3")
	src, _ := os.ReadFile(p)
	writeFile(t, p, firstLines(src, 6))

	out, err := b.build(batchOf(snapshotChange("candidate-v3")))
	if err != nil {
		t.Fatal(err)
	}
	// Only the snapshot's own pages, and those of the cases whose outputs
	// went missing.
	missing := []string{"ER-007", "ER-008", "ER-009", "ER-010", "ER-011", "ER-012"}
	// Neither the policy nor any case changed: the policy page and the
	// cases' data stay.
	wantParts := render.Parts{Snapshots: []string{"candidate-v3"}, Tables: []string{"candidate-v3"}, Drilldowns: map[string][]string{"candidate-v3": missing}, Histories: missing, SamePolicy: true, SameCases: true, Before: before}
	all := calls.allRendered()
	parts := calls.partsRendered()
	if len(parts) == 1 {
		if parts[0].Steps == nil {
			t.Error("no Steps given: drilldowns whose links alone changed are rendered whole")
		}
		if parts[0].SizeOf == nil || parts[0].Last == nil {
			t.Error("no SizeOf or Last given: large pages are rendered into buffers grown by doubling, results files encoded whole")
		}
		parts[0].Steps, parts[0].SizeOf, parts[0].Last = nil, nil, nil // funcs: never DeepEqual
	}
	if all != 1 || len(parts) != 1 || !reflect.DeepEqual(parts[0], wantParts) {
		t.Errorf("renders: all %d (want the first build's 1), parts %+v, want one call with %+v", all, parts, wantParts)
	}
	// The other snapshots were not evaluated again: same values.
	for i, s := range b.release.Snapshots {
		if reused := s == before.Snapshots[i]; reused != (s.Label() != "candidate-v3") {
			t.Errorf("%s: reused %v", s.Label(), reused)
		}
	}
	if b.release.Suite != before.Suite {
		t.Error("suite loaded again for a snapshot change")
	}
	want := []decisionChange{{Label: "candidate-v3", Before: "PASS", After: "BLOCK"}}
	if !slices.Equal(out.decisions, want) {
		t.Errorf("decisions %v, want %v", out.decisions, want)
	}
	if !out.changed {
		t.Error("changed not reported")
	}
	// Writing the same bytes again changes no page.
	out, err = b.build(batchOf(snapshotChange("candidate-v3")))
	if err != nil {
		t.Fatal(err)
	}
	if out.changed || len(out.decisions) != 0 {
		t.Errorf("unchanged input: changed %v, decisions %v", out.changed, out.decisions)
	}
	if got := calls.partsRendered(); len(got) != 2 || len(got[1].Drilldowns["candidate-v3"]) != 0 || len(got[1].Histories) != 0 {
		t.Errorf("unchanged input: parts rendered %+v, want no case", got)
	}
}

func TestChangedCases(t *testing.T) {
	s, err := load.Suite(sampleData, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v2 := outputsPath(sampleData, "candidate-v2")
	src, _ := os.ReadFile(v2)
	evaluate := func(content []byte) *evaluator.Snapshot {
		p := filepath.Join(t.TempDir(), "candidate-v2.jsonl")
		writeFile(t, p, content)
		snap, err := evaluator.EvaluateFile(s, "candidate-v2", p, evaluator.Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	edit := func(line int, from, to string) []byte {
		out := slices.Clone(lines)
		out[line] = bytes.Replace(out[line], []byte(from), []byte(to), 1)
		return bytes.Join(out, nil)
	}
	reordered := append(slices.Clone(lines[1:]), lines[0])
	base := evaluate(src)
	all := make([]string, len(s.Cases))
	for i, c := range s.Cases {
		all[i] = c.ID
	}
	tests := []struct {
		name          string
		before, after *evaluator.Snapshot
		want          []string
	}{
		{"same file", base, evaluate(src), nil},
		{"lines reordered: each output keeps its line number in messages", base, evaluate(bytes.Join(reordered, nil)), all},
		{"latency of one output", base, evaluate(edit(5, `"latency_ms": 5200`, `"latency_ms": 900`)), []string{"ER-006"}},
		{"verdict of one case", base, evaluate(edit(6, "ER-2026.08 §6.1", "ER-2026.10 §6.1")), []string{"ER-007"}},
		{"missing output", base, evaluate(bytes.Join(lines[:11], nil)), []string{"ER-012"}},
		{"no earlier evaluation", nil, base, all},
	}
	for _, tt := range tests {
		var got []string
		for _, i := range changedPositions(tt.before, tt.after) {
			got = append(got, s.Cases[i].ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTemplateChangeRendersWithoutEvaluating(t *testing.T) {
	nr, calls := fakeRenderers()
	b, _ := newTestBuilder(t, nr)
	rel := b.release
	if _, err := b.build(batchOf(change{Kind: webChanged, Name: "templates/base.html"})); err != nil {
		t.Fatal(err)
	}
	if b.release != rel {
		t.Error("a template change evaluated the release again")
	}
	if all := calls.allRendered(); all != 2 {
		t.Errorf("RenderAll called %d times, want 2", all)
	}
}

func TestHandoffRendersSharedPagesOnly(t *testing.T) {
	nr, calls := fakeRenderers()
	b, data := newTestBuilder(t, nr)
	rel := b.release
	writeFile(t, filepath.Join(data, "HANDOFF.md"), []byte("# New handoff\n"))
	out, err := b.build(batchOf(change{Kind: handoffChanged, Name: "HANDOFF.md"}))
	if err != nil {
		t.Fatal(err)
	}
	// The pages about no one case or snapshot; no case history.
	all := calls.allRendered()
	empty := func(p render.Parts) bool {
		return len(p.Snapshots)+len(p.Results)+len(p.Tables)+len(p.Drilldowns)+len(p.Histories) == 0
	}
	if parts := calls.partsRendered(); all != 1 || len(parts) != 1 || !empty(parts[0]) || b.release != rel {
		t.Errorf("all %d, parts %+v, release reused %v", all, parts, b.release == rel)
	}
	if !strings.Contains(string(fileOf(t, out.files, "handoff.html")), "# New handoff") {
		t.Error("handoff page not updated")
	}
	// A missing HANDOFF.md is no error, as in a build.
	if err := os.Remove(filepath.Join(data, "HANDOFF.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.build(batchOf(change{Kind: handoffChanged, Name: "HANDOFF.md"})); err != nil {
		t.Errorf("missing HANDOFF.md: %v", err)
	}
}

func TestSchemaChangeRedoesEverything(t *testing.T) {
	nr, calls := fakeRenderers()
	b, _ := newTestBuilder(t, nr)
	rel := b.release
	if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: "case.schema.json"})); err != nil {
		t.Fatal(err)
	}
	if b.release == rel || b.release.Suite == rel.Suite {
		t.Error("schema change did not evaluate again")
	}
	if all := calls.allRendered(); all != 2 {
		t.Errorf("RenderAll called %d times, want 2", all)
	}
}

// TestSuiteEditsRenderWhatTheyChange checks which cases each kind of
// suite edit judges again and which pages it renders besides every
// page's footer; TestIncrementalSiteEqualsAFullBuild and
// TestRandomEditsEqualAFullBuild check that they are the right ones.
func TestSuiteEditsRenderWhatTheyChange(t *testing.T) {
	labels := []string{"baseline-v1", "candidate-v2", "candidate-v3"}
	each := func(ids ...string) map[string][]string {
		m := map[string][]string{}
		for _, l := range labels {
			m[l] = ids
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		file  string
		edit  func(src []byte) []byte
		parts render.Parts
	}{
		{"thresholds", "gate.json", func([]byte) []byte {
			return []byte(`{"min_pass_rate": 0.5, "max_critical_failures": 3, "max_p95_latency_ms": 9000, "max_avg_cost_usd": 0.05}`)
			// The policy page lists no threshold, the cases' data no
			// verdict: both stay.
		}, render.Parts{Snapshots: labels, Tables: labels, Drilldowns: each(), SamePolicy: true, SameCases: true}},
		{"one case's title", "cases.jsonl", func(src []byte) []byte {
			return bytes.Replace(src, []byte(`"case_id": "ER-006", "title": "`), []byte(`"case_id": "ER-006", "title": "Edited: `), 1)
			// The release report names no title, the policy page only
			// the ids citing each rule: both stay.
		}, render.Parts{Snapshots: labels, Drilldowns: each("ER-006"), Histories: []string{"ER-006"}, SameReport: true, SamePolicy: true}},
		{"a rule's title", "POLICY.md", func(src []byte) []byte {
			return bytes.Replace(src, []byte("§3.1 Finance escalation"), []byte("§3.1 Escalation to finance"), 1)
		}, render.Parts{Results: labels, Drilldowns: each(), SameReport: true, SameCases: true}},
		{"a rule only an output cites renumbered", "POLICY.md", func(src []byte) []byte {
			return bytes.Replace(src, []byte("§4.1 What counts"), []byte("§4.5 What counts"), 1)
			// Only candidate-v2 cites it: its verdict, in its table, changes.
		}, render.Parts{Snapshots: labels, Tables: []string{"candidate-v2"}, Drilldowns: each("ER-003"), Histories: []string{"ER-003"}, SameCases: true}},
		{"policy prose", "POLICY.md", func(src []byte) []byte {
			return append(src, "\nOne more sentence.\n"...)
		}, render.Parts{Results: labels, Drilldowns: each(), SameReport: true, SameCases: true}},
		{"a rule added", "POLICY.md", func(src []byte) []byte {
			return append(src, "\n### ER-2026.10 §10.1 A new rule\n\nText.\n"...)
		}, render.Parts{Results: labels, Drilldowns: each(), SameReport: true, SameCases: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nr, calls := fakeRenderers()
			b, data := newTestBuilder(t, nr)
			rel := b.release
			p := filepath.Join(data, tc.file)
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, tc.edit(src))
			if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: tc.file})); err != nil {
				t.Fatal(err)
			}
			if b.release.Suite == rel.Suite {
				t.Error("the suite was not read again")
			}
			// The footer of every page names the suite's inputs by their
			// hashes, but it is kept apart from the pages: only the parts
			// below are rendered again.
			if all := calls.allRendered(); all != 1 {
				t.Errorf("RenderAll called %d times, want the first build's 1", all)
			}
			rendered := calls.partsRendered()
			if len(rendered) != 1 {
				t.Fatalf("RenderParts called %d times, want 1", len(rendered))
			}
			got := rendered[0]
			if got.Before != rel {
				t.Error("the last build's release was not given to compare with")
			}
			if got.Steps == nil {
				t.Error("no Steps given: drilldowns whose links alone changed are rendered whole")
			}
			if got.SizeOf == nil || got.Last == nil {
				t.Error("no SizeOf or Last given: large pages are rendered into buffers grown by doubling, results files encoded whole")
			}
			got.Before, got.Steps, got.SizeOf, got.Last = nil, nil, nil, nil
			for _, l := range labels {
				if got.Drilldowns[l] == nil {
					got.Drilldowns[l] = []string{}
				}
				if tc.parts.Drilldowns[l] == nil {
					tc.parts.Drilldowns[l] = []string{}
				}
			}
			if !reflect.DeepEqual(got, tc.parts) {
				t.Errorf("parts rendered:\n%+v\nwant\n%+v", got, tc.parts)
			}
		})
	}
}

// TestCasesThatComeGoOrMove checks that a case added, moved or removed
// renders the pages of that case and those that show the whole suite, and
// that a removed case's pages are no longer served.
func TestCasesThatComeGoOrMove(t *testing.T) {
	nr, calls := fakeRenderers()
	b, data := newTestBuilder(t, nr)
	labels := []string{"baseline-v1", "candidate-v2", "candidate-v3"}
	p := filepath.Join(data, "cases.jsonl")
	src, _ := os.ReadFile(p)
	lines := bytes.SplitAfter(bytes.TrimRight(src, "\n"), []byte("\n"))
	lines[len(lines)-1] = append(lines[len(lines)-1], '\n')
	// The last case only: its id is gone, so the suite has one case less.
	writeFile(t, p, bytes.Join(lines[:len(lines)-1], nil))
	if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: "cases.jsonl"})); err == nil {
		// Snapshots answer ER-012, which is no longer a case.
		t.Fatal("outputs of a removed case accepted")
	}
	writeFile(t, p, src)
	if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: "cases.jsonl"})); err != nil {
		t.Fatal(err)
	}
	added := bytes.Replace(lines[len(lines)-1], []byte(`"ER-012"`), []byte(`"ER-013"`), 1)
	for _, step := range []struct {
		name  string
		cases [][]byte
		// drilldowns are the cases whose drilldowns are rendered in every
		// snapshot, and whose history page is.
		drilldowns []string
		served     bool // whether ER-013's pages are served after
	}{
		{"added last", append(slices.Clone(lines), added), []string{"ER-013"}, true},
		{"moved first", append([][]byte{added}, lines...), nil, true},
		{"removed", lines, nil, false},
		{"added in the middle", slices.Insert(slices.Clone(lines), 5, added), []string{"ER-013"}, true},
	} {
		writeFile(t, p, bytes.Join(step.cases, nil))
		out, err := b.build(batchOf(change{Kind: suiteChanged, Name: "cases.jsonl"}))
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		// The first build's only.
		if all := calls.allRendered(); all != 1 {
			t.Fatalf("%s: RenderAll called %d times, want 1", step.name, all)
		}
		rendered := calls.partsRendered()
		got := rendered[len(rendered)-1]
		if got.Before == nil || out.full {
			t.Errorf("%s: rendered without the last build to compare with", step.name)
		}
		if !slices.Equal(got.Snapshots, labels) || !slices.Equal(got.Tables, labels) {
			t.Errorf("%s: snapshots %q and tables %q rendered, want every one", step.name, got.Snapshots, got.Tables)
		}
		if !slices.Equal(got.Histories, step.drilldowns) {
			t.Errorf("%s: histories %q rendered, want %q", step.name, got.Histories, step.drilldowns)
		}
		for _, l := range labels {
			if ids := got.Drilldowns[l]; len(ids) != len(step.drilldowns) || len(ids) > 0 && !slices.Equal(ids, step.drilldowns) {
				t.Errorf("%s: drilldowns of %s %q rendered, want %q", step.name, l, ids, step.drilldowns)
			}
			if served := b.files.has(l + "/ER-013.html"); served != step.served {
				t.Errorf("%s: %s/ER-013.html served: %v, want %v", step.name, l, served, step.served)
			}
		}
		if served := b.files.has("cases/ER-013.html"); served != step.served {
			t.Errorf("%s: cases/ER-013.html served: %v, want %v", step.name, served, step.served)
		}
		if n := len(b.release.Suite.Cases); n != len(step.cases) {
			t.Errorf("%s: %d cases, want %d", step.name, n, len(step.cases))
		}
	}
}

func TestAddedAndRemovedSnapshots(t *testing.T) {
	nr, calls := fakeRenderers()
	b, data := newTestBuilder(t, nr)
	src, _ := os.ReadFile(outputsPath(data, "candidate-v2"))
	writeFile(t, outputsPath(data, "candidate-v10"), src)
	out, err := b.build(batchOf(snapshotChange("candidate-v10")))
	if err != nil {
		t.Fatal(err)
	}
	if all := calls.allRendered(); all != 2 {
		t.Errorf("a new snapshot: RenderAll called %d times, want 2 (other pages link to it)", all)
	}
	labels := []string{}
	for _, s := range b.release.Snapshots {
		labels = append(labels, s.Label())
	}
	if want := []string{"baseline-v1", "candidate-v2", "candidate-v3", "candidate-v10"}; !slices.Equal(labels, want) {
		t.Errorf("order %q, want %q", labels, want)
	}
	if want := []decisionChange{{Label: "candidate-v10", After: "REVIEW"}}; !slices.Equal(out.decisions, want) {
		t.Errorf("decisions %v", out.decisions)
	}
	if !out.files.has("candidate-v10/index.html") {
		t.Fatal("new snapshot has no page")
	}

	if err := os.Remove(outputsPath(data, "candidate-v10")); err != nil {
		t.Fatal(err)
	}
	out, err = b.build(batchOf(snapshotChange("candidate-v10")))
	if err != nil {
		t.Fatal(err)
	}
	for name := range out.files.files {
		if strings.Contains(name, "candidate-v10") {
			t.Errorf("%s still served after its snapshot was removed", name)
		}
	}
	if want := []decisionChange{{Label: "candidate-v10", Before: "REVIEW"}}; !slices.Equal(out.decisions, want) {
		t.Errorf("decisions %v", out.decisions)
	}
}

func TestFailedBuildKeepsTheLastGoodOneAndItsWork(t *testing.T) {
	nr, _ := fakeRenderers()
	b, data := newTestBuilder(t, nr)
	good := b.files.all()
	cases := filepath.Join(data, "cases.jsonl")
	src, _ := os.ReadFile(cases)
	writeFile(t, cases, append(bytes.Clone(src), "{\"case_id\": \n"...))
	_, err := b.build(batchOf(change{Kind: suiteChanged, Name: "cases.jsonl"}))
	var in *suite.InputError
	if err == nil || !strings.Contains(err.Error(), "cases.jsonl:13") {
		t.Fatalf("err %v, want one naming cases.jsonl:13", err)
	} else if !errorsAs(err, &in) {
		t.Errorf("err %T is not an input error", err)
	}
	if !maps.EqualFunc(b.files.all(), good, bytes.Equal) {
		t.Error("failed build changed the site")
	}
	// A later, unrelated change still fails: the suite is still broken.
	if _, err := b.build(batchOf(snapshotChange("candidate-v3"))); err == nil || !strings.Contains(err.Error(), "cases.jsonl:13") {
		t.Errorf("after an unrelated change: %v", err)
	}
	// Fixing the cases redoes everything that was pending.
	writeFile(t, cases, src)
	if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: "cases.jsonl"})); err != nil {
		t.Fatal(err)
	}
	if !b.carry.Empty() {
		t.Errorf("carry left: %+v", b.carry)
	}
}

func TestRendererPathsAreChecked(t *testing.T) {
	c := newCollector(nil, nil, nil, embeddedSteps(t))
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../b", `a\b`, "", ".", "a//b"} {
		if err := c.emit(bad, nil); err == nil {
			t.Errorf("emit(%q) accepted", bad)
		}
	}
	if err := c.emit("a/b.html", nil); err != nil {
		t.Error(err)
	}
}

// readTree reads a built site from disk.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == publish.MarkerName {
			return nil // build's list of the files it wrote: not a page, never served
		}
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameAsBuild checks that the served site is byte for byte what
// "releasegate build" writes for the same data.
func sameAsBuild(t *testing.T, served map[string][]byte, data string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "public")
	if _, err := site.Build(data, out, site.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	sameSite(t, served, readTree(t, out))
}

// sameSite checks that served and built hold the same files, byte for
// byte.
func sameSite(tb testing.TB, served, built map[string][]byte) {
	tb.Helper()
	for name, b := range built {
		if s, ok := served[name]; !ok {
			tb.Errorf("%s is built but not served", name)
		} else if !bytes.Equal(s, b) {
			tb.Errorf("%s: served bytes differ from the build", name)
		}
	}
	for name := range served {
		if _, ok := built[name]; !ok {
			tb.Errorf("%s is served but not built", name)
		}
	}
}

func TestIncrementalSiteEqualsAFullBuild(t *testing.T) {
	b, data := newTestBuilder(t, siteRenderer)
	sameAsBuild(t, b.files.all(), data)

	steps := []struct {
		name string
		edit func()
		ch   change
	}{
		{"edit a snapshot", func() {
			src, _ := os.ReadFile(outputsPath(data, "candidate-v3"))
			writeFile(t, outputsPath(data, "candidate-v3"), firstLines(src, 6))
		}, snapshotChange("candidate-v3")},
		{"one output's cost", func() {
			src, _ := os.ReadFile(outputsPath(data, "candidate-v2"))
			writeFile(t, outputsPath(data, "candidate-v2"), bytes.Replace(src, []byte(`"cost_usd": 0.0`), []byte(`"cost_usd": 0.2`), 1))
		}, snapshotChange("candidate-v2")},
		{"one latency flips the decision", func() {
			src, _ := os.ReadFile(outputsPath(data, "candidate-v2"))
			writeFile(t, outputsPath(data, "candidate-v2"), bytes.Replace(src, []byte(`"latency_ms": 5200`), []byte(`"latency_ms": 900`), 1))
		}, snapshotChange("candidate-v2")},
		{"add a snapshot", func() {
			src, _ := os.ReadFile(outputsPath(data, "baseline-v1"))
			writeFile(t, outputsPath(data, "candidate-v4"), src)
		}, snapshotChange("candidate-v4")},
		{"edit the handoff", func() {
			writeFile(t, filepath.Join(data, "HANDOFF.md"), []byte("# Handoff\n\nShorter now.\n"))
		}, change{Kind: handoffChanged, Name: "HANDOFF.md"}},
		{"remove the handoff", func() {
			if err := os.Remove(filepath.Join(data, "HANDOFF.md")); err != nil {
				t.Fatal(err)
			}
		}, change{Kind: handoffChanged, Name: "HANDOFF.md"}},
		{"bring the handoff back", func() {
			writeFile(t, filepath.Join(data, "HANDOFF.md"), []byte("# Handoff\n\nBack again.\n"))
		}, change{Kind: handoffChanged, Name: "HANDOFF.md"}},
		{"remove a snapshot", func() {
			if err := os.Remove(outputsPath(data, "candidate-v2")); err != nil {
				t.Fatal(err)
			}
		}, snapshotChange("candidate-v2")},
		{"edit the gate", func() {
			writeFile(t, filepath.Join(data, "gate.json"), []byte(`{"min_pass_rate": 0.5, "max_critical_failures": 3, "max_p95_latency_ms": 9000, "max_avg_cost_usd": 0.05}`))
		}, change{Kind: suiteChanged, Name: "gate.json"}},
		{"edit the snapshot back", func() {
			src, _ := os.ReadFile(filepath.Join(sampleData, "outputs", "candidate-v3.jsonl"))
			writeFile(t, outputsPath(data, "candidate-v3"), src)
		}, snapshotChange("candidate-v3")},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.edit()
			if _, err := b.build(batchOf(st.ch)); err != nil {
				t.Fatal(err)
			}
			sameAsBuild(t, b.files.all(), data)
		})
	}
}

// TestFooterOnlyChangesRenderNoPageBody edits the suite so that nothing
// but the footer of every page and the files about no one case change:
// the inputs hash in the footer changes, yet no drilldown, history or
// snapshot page is rendered again, and the site served is still a full
// build's.
func TestFooterOnlyChangesRenderNoPageBody(t *testing.T) {
	data := generateSuite(t, 36)
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	first, err := b.build(changeSet{})
	if err != nil {
		t.Fatal(err)
	}
	perPage := func(name string) bool {
		return strings.HasPrefix(name, "snapshots/") || strings.HasPrefix(name, "cases/") || strings.HasPrefix(name, "data/snapshots/")
	}
	var shared int
	for name := range b.files.files {
		if !perPage(name) {
			shared++
		}
	}
	if first.rendered != b.files.len() || shared >= b.files.len()/2 {
		t.Fatalf("first build rendered %d of %d files, %d shared", first.rendered, b.files.len(), shared)
	}
	for _, tc := range []struct {
		name, file string
		edit       func([]byte) []byte
	}{
		{"gate.json laid out anew", load.GateFile, func(src []byte) []byte { return append(bytes.ReplaceAll(src, []byte(", "), []byte(",\n  ")), '\n') }},
		{"policy prose", load.PolicyFile, func(src []byte) []byte { return append(src, "\nOne more sentence.\n"...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := b.files
			p := filepath.Join(data, tc.file)
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, tc.edit(src))
			out, err := b.build(batchOf(change{Kind: suiteChanged, Name: tc.file}))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(before.footer, b.files.footer) || !out.changed {
				t.Fatalf("the footer did not change (changed %v)", out.changed)
			}
			// The shared files are rendered again, and nothing else; the
			// release report and its page stay too, the cases' data, and
			// the policy page when the policy is the same.
			want := shared - 3
			if tc.file != load.PolicyFile {
				want--
			}
			if out.rendered != want {
				t.Errorf("rendered %d files, want the %d shared ones but the report, the cases' data and (for the same policy) policy.html", out.rendered, want)
			}
			for name, f := range b.files.files {
				old := before.files[name]
				if !perPage(name) {
					continue
				}
				if &f.head[0] != &old.head[0] {
					t.Fatalf("%s: rendered again", name)
				}
				if html := strings.HasSuffix(name, ".html"); f.framed != html || html && &f.tail[0] != &old.tail[0] {
					t.Fatalf("%s: not kept apart from its footer, or rendered again", name)
				}
			}
			sameAsBuild(t, b.files.all(), data)
		})
	}
}

// TestPagesPutOffAreMadeInTheBackground checks that a server's first
// build, and a rebuild after a snapshot is added (which changes every
// page), put the case pages off; that pages asked for meanwhile come as
// a build writes them; and that the rest are made in the background
// until the site is whole.
func TestPagesPutOffAreMadeInTheBackground(t *testing.T) {
	data := copyDir(t, sampleData)
	b := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer, completeLater: true}
	defer b.stop()
	first, err := b.build(changeSet{})
	if err != nil {
		t.Fatal(err)
	}
	// The first answer waits for no case page: 3 snapshots × 12 cases
	// and 12 case histories.
	if all := first.files.len(); first.rendered > all-4*12 {
		t.Errorf("the first build rendered %d of %d files at once; the case pages should wait", first.rendered, all)
	}
	waitForPages(t, first.files)
	sameAsBuild(t, first.files.all(), data)
	src, _ := os.ReadFile(outputsPath(data, "candidate-v3"))
	writeFile(t, outputsPath(data, "candidate-v4"), src)
	b.stop() // so that the pages are still put off below
	b.completeLater = false
	out, err := b.build(batchOf(snapshotChange("candidate-v4")))
	if err != nil {
		t.Fatal(err)
	}
	b.completeLater = true
	put := out.files.pending()
	if !out.full || put < 4*12 {
		t.Fatalf("full %v, %d pages put off, want every case page", out.full, put)
	}
	if !out.changed || out.rendered > 40 {
		t.Errorf("changed %v, %d files rendered at once", out.changed, out.rendered)
	}
	// Asked for while the rest are made.
	b.complete(out.files, false, false)
	var wg sync.WaitGroup
	for _, name := range []string{"snapshots/candidate-v4/ER-007.html", "cases/ER-007.html", "snapshots/candidate-v3/ER-012.html"} {
		wg.Go(func() {
			if _, ok := out.files.get(name); !ok {
				t.Errorf("%s: not served", name)
			}
		})
	}
	wg.Wait()
	waitForPages(t, out.files)
	sameAsBuild(t, out.files.all(), data)
}

// waitForPages waits until the pages files put off are all made.
func waitForPages(t *testing.T, files *siteFiles) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for files.pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := files.pending(); n > 0 {
		t.Fatalf("%d pages still put off", n)
	}
}

// The policy page is rendered again when a case cites other rules, and
// left as it was when a case changes otherwise.
func TestPolicyPageFollowsCitations(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string
		same     bool
	}{
		{"citations", `"citations": ["ER-2026.10 §2.1", "ER-2026.10 §4.2"]`, `"citations": ["ER-2026.10 §2.1"]`, false},
		{"title", `"case_id": "ER-001", "title": "`, `"case_id": "ER-001", "title": "Edited: `, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nr, calls := fakeRenderers()
			b, data := newTestBuilder(t, nr)
			p := filepath.Join(data, load.CasesFile)
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			edited := bytes.Replace(src, []byte(tc.from), []byte(tc.to), 1)
			if bytes.Equal(edited, src) {
				t.Fatal("the edit changes nothing")
			}
			writeFile(t, p, edited)
			if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: load.CasesFile})); err != nil {
				t.Fatal(err)
			}
			rendered := calls.partsRendered()
			if len(rendered) != 1 || rendered[0].SamePolicy != tc.same {
				t.Fatalf("parts %+v, want one call with SamePolicy %v", rendered, tc.same)
			}
		})
	}
}

// TestCaseLinesKeptFromTheFirstBuild: the first edit of a case after a
// full build already takes the other cases from that build.
func TestCaseLinesKeptFromTheFirstBuild(t *testing.T) {
	b, data := newTestBuilder(t, siteRenderer)
	before := b.release.Suite
	p := filepath.Join(data, load.CasesFile)
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, bytes.Replace(src, []byte(`"title": "`), []byte(`"title": "Edited: `), 1))
	if _, err := b.build(batchOf(change{Kind: suiteChanged, Name: load.CasesFile})); err != nil {
		t.Fatal(err)
	}
	taken := 0
	for i, c := range b.release.Suite.Cases {
		if x, y := before.Cases[i].Expected.Citations, c.Expected.Citations; len(x) > 0 && &x[0] == &y[0] {
			taken++
		}
	}
	if want := len(before.Cases) - 1; taken != want {
		t.Fatalf("%d cases taken from the first build, want %d", taken, want)
	}
}

// TestOutputLinesKeptBetweenBuilds: the server remembers each snapshot's
// outputs by their lines from its first build on, takes the outputs of
// the lines an edit left alone from the build before, and forgets a
// snapshot that went.
func TestOutputLinesKeptBetweenBuilds(t *testing.T) {
	b, data := newTestBuilder(t, siteRenderer)
	for _, s := range b.release.Snapshots {
		if n := b.outputLines.of(s.Label()).Len(); n != len(b.release.Suite.Cases) {
			t.Fatalf("%s: %d lines remembered after the first build, want %d", s.Label(), n, len(b.release.Suite.Cases))
		}
	}
	before := snapshotOf(b.release, "candidate-v3")
	p := outputsPath(data, "candidate-v3")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, bytes.Replace(src, []byte(`"latency_ms": 410`), []byte(`"latency_ms": 411`), 1))
	if _, err := b.build(batchOf(snapshotChange("candidate-v3"))); err != nil {
		t.Fatal(err)
	}
	after := snapshotOf(b.release, "candidate-v3")
	taken, parsed := 0, 0
	for i, o := range after.Outputs {
		was := before.Outputs[i]
		if o == nil || len(o.ToolCalls) == 0 {
			continue
		}
		if &o.ToolCalls[0] == &was.ToolCalls[0] {
			taken++
		} else {
			parsed++
		}
	}
	if parsed != 1 || taken == 0 {
		t.Fatalf("after editing one line: %d outputs parsed again, %d taken from the build before; want 1 and the rest", parsed, taken)
	}
	if err := os.Remove(outputsPath(data, "candidate-v2")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.build(batchOf(snapshotChange("candidate-v2"))); err != nil {
		t.Fatal(err)
	}
	if _, kept := b.outputLines.by["candidate-v2"]; kept {
		t.Fatal("the lines of a removed snapshot are still remembered")
	}
}
