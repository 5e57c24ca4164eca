package site

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

// collect renders into a map.
func collect(t *testing.T, renderAll func(render.Emit) error) map[string][]byte {
	t.Helper()
	var mu sync.Mutex
	files := map[string][]byte{}
	err := renderAll(func(p string, data []byte) error {
		mu.Lock()
		defer mu.Unlock()
		files[p] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestRenderPartsRendersWhatItSelectsAsRenderAllDoes(t *testing.T) {
	rel, r := release(t), embeddedRenderer(t)
	in := &pages.Input{Release: rel, Handoff: []byte("# Handoff\n")}
	all := collect(t, func(e render.Emit) error { return r.RenderAll(in, e) })
	parts := render.Parts{
		Snapshots:  []string{"baseline-v1", "candidate-v3"},
		Results:    []string{"candidate-v2"},
		Tables:     []string{"candidate-v3", "candidate-v2"},
		Drilldowns: map[string][]string{"candidate-v2": {"ER-007"}, "candidate-v3": {"ER-001", "ER-007"}},
		Histories:  []string{"ER-004"},
	}
	got := collect(t, func(e render.Emit) error { return r.RenderParts(in, parts, e) })

	selected := map[string]bool{
		pages.SnapshotPath("baseline-v1"): true, pages.ResultsPath("baseline-v1"): true,
		pages.SnapshotPath("candidate-v3"): true, pages.ResultsPath("candidate-v3"): true,
		pages.ResultsPath("candidate-v2"):      true,
		pages.SnapshotDataPath("candidate-v3"): true, pages.SnapshotDataPath("candidate-v2"): true,
		pages.DrilldownPath("candidate-v2", "ER-007"): true,
		pages.DrilldownPath("candidate-v3", "ER-001"): true, pages.DrilldownPath("candidate-v3", "ER-007"): true,
		pages.HistoryPath("ER-004"): true,
	}
	// Drilldowns whose next-failing link may lead to a selected one too:
	// walking forward from each drilldown over passing cases only, found
	// here by brute force rather than by the code under test.
	n := len(rel.Suite.Cases)
	for label, ids := range parts.Drilldowns {
		s, _ := (&pages.Model{In: in}).Snapshot(label)
		for j := range n {
			for step := 1; step < n; step++ {
				k := (j + step) % n
				if slices.Contains(ids, rel.Suite.Cases[k].ID) {
					selected[pages.DrilldownPath(label, rel.Suite.Cases[j].ID)] = true
				}
				if !s.Result.Cases[k].Passed {
					break
				}
			}
		}
	}
	var want []string
	for p := range all {
		perSnapshotOrCase := strings.HasPrefix(p, "snapshots/") || strings.HasPrefix(p, "cases/") || strings.HasPrefix(p, "results/") || strings.HasPrefix(p, "data/snapshots/")
		if !perSnapshotOrCase || selected[p] {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, want) {
		t.Errorf("RenderParts files:\n%q\nwant\n%q", names, want)
	}
	for p, b := range got {
		if !bytes.Equal(b, all[p]) {
			t.Errorf("%s differs from RenderAll", p)
		}
	}
	// The report left out when it is the same.
	parts.SameReport = true
	kept := collect(t, func(e render.Emit) error { return r.RenderParts(in, parts, e) })
	for p := range got {
		if _, ok := kept[p]; ok == (p == pages.ReportPath || p == pages.ReportPagePath) {
			t.Errorf("%s: rendered %v with SameReport", p, ok)
		}
	}
	for _, bad := range []render.Parts{
		{Snapshots: []string{"no-such-snapshot"}},
		{Results: []string{"no-such-snapshot"}},
		{Tables: []string{"no-such-snapshot"}},
		{Drilldowns: map[string][]string{"candidate-v3": {"NO-SUCH-CASE"}}},
		{Histories: []string{"NO-SUCH-CASE"}},
	} {
		if err := r.RenderParts(in, bad, func(string, []byte) error { return nil }); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestSameFrameIgnoresTheFooter checks what SameFrame compares: the
// navigation, which every page carries, and not the footer, which a
// live server swaps on its own.
func TestSameFrameIgnoresTheFooter(t *testing.T) {
	evaluate := func(edit func(dir string)) *evaluator.Release {
		t.Helper()
		dir := copySample(t)
		edit(dir)
		rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	write := func(dir, name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := evaluate(func(string) {})
	handoff := []byte("# Handoff\n")
	r := embeddedRenderer(t)
	footer := func(in *pages.Input) []byte {
		f, err := r.Footer(in)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for _, tt := range []struct {
		name        string
		other       *pages.Input
		same        bool
		otherFooter bool
	}{
		{"the same inputs", &pages.Input{Release: base, Handoff: handoff}, true, false},
		{"new thresholds", &pages.Input{Release: evaluate(func(dir string) {
			write(dir, "gate.json", `{"min_pass_rate": 0.5, "max_critical_failures": 3, "max_p95_latency_ms": 9000, "max_avg_cost_usd": 0.05}`)
		}), Handoff: handoff}, true, true},
		{"no handoff page", &pages.Input{Release: base}, false, false},
		{"a snapshot removed", &pages.Input{Release: evaluate(func(dir string) {
			if err := os.Remove(filepath.Join(dir, "outputs", "candidate-v2.jsonl")); err != nil {
				t.Fatal(err)
			}
		}), Handoff: handoff}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &pages.Input{Release: base, Handoff: handoff}
			if got := render.SameFrame(in, tt.other); got != tt.same {
				t.Errorf("SameFrame = %v, want %v", got, tt.same)
			}
			if differs := !bytes.Equal(footer(in), footer(tt.other)); differs != tt.otherFooter {
				t.Errorf("footer differs: %v, want %v", differs, tt.otherFooter)
			}
		})
	}
}

// TestEveryPageCarriesTheFooter checks that Footer gives the bytes each
// framed page of a build carries, once, after the page's content.
func TestEveryPageCarriesTheFooter(t *testing.T) {
	rel, r := release(t), embeddedRenderer(t)
	in := &pages.Input{Release: rel, Handoff: []byte("# Handoff\n")}
	footer, err := r.Footer(in)
	if err != nil || !bytes.HasPrefix(footer, []byte(`<footer class="site-footer">`)) {
		t.Fatalf("footer %q, %v", footer, err)
	}
	framed := 0
	for p, b := range collect(t, func(e render.Emit) error { return r.RenderAll(in, e) }) {
		if !strings.HasSuffix(p, ".html") || p == pages.NotFoundPath {
			continue
		}
		framed++
		if n := bytes.Count(b, footer); n != 1 {
			t.Errorf("%s carries the footer %d times", p, n)
		} else if at := bytes.Index(b, footer); at < bytes.LastIndex(b, []byte("</main>")) {
			t.Errorf("%s: the footer comes before the end of the content", p)
		}
	}
	if framed < 40 {
		t.Errorf("only %d pages", framed)
	}
}

// TestGroupedPartsRenderEachPageOnce lists several cases of one block of
// a grouped site: their shared page is rendered once.
func TestGroupedPartsRenderEachPageOnce(t *testing.T) {
	rel, r := release(t), embeddedRenderer(t)
	in := &pages.Input{Release: rel, GroupAbove: 10}
	ids := []string{"ER-001", "ER-002", "ER-003", "ER-007"}
	parts := render.Parts{Drilldowns: map[string][]string{"candidate-v2": ids}, Histories: ids}
	count := map[string]int{}
	err := r.RenderParts(in, parts, func(p string, _ []byte) error { count[p]++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	grouped := 0
	for p, n := range count {
		if n != 1 {
			t.Errorf("%s rendered %d times", p, n)
		}
		if strings.HasSuffix(p, "/p0001.html") {
			grouped++
		}
	}
	if grouped != 2 {
		t.Errorf("%d grouped pages rendered, want the result page and the history page: %v", grouped, count)
	}
}

// editCases rewrites the sample's cases.jsonl and outputs files in dir:
// edit gets the lines of each (cases.jsonl first) and returns them.
func editCases(t *testing.T, dir string, edit func(name string, lines []string) []string) {
	t.Helper()
	names := []string{"cases.jsonl"}
	outputs, _ := filepath.Glob(filepath.Join(dir, "outputs", "*.jsonl"))
	for _, p := range outputs {
		names = append(names, filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator))))
	}
	for _, name := range names {
		p := filepath.Join(dir, name)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Each line with its newline.
		lines := edit(name, strings.SplitAfter(string(src), "\n"))
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRenderPartsFollowsCasesThatMove renders, after cases came, went or
// moved, the pages of the new cases with the last release as Before, and
// checks by comparing two full builds that every page that changed is
// among what RenderParts renders, as RenderAll renders it.
func TestRenderPartsFollowsCasesThatMove(t *testing.T) {
	r := embeddedRenderer(t)
	evaluate := func(dir string) *evaluator.Release {
		t.Helper()
		rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
		if err != nil {
			t.Fatal(err)
		}
		return rel
	}
	// A case page with its footer, which a live server keeps apart.
	withoutFooter := func(in *pages.Input, files map[string][]byte) map[string][]byte {
		footer, err := r.Footer(in)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for p, b := range files {
			if strings.Contains(p, "/ER-") {
				out[p] = bytes.Replace(b, footer, nil, 1)
			}
		}
		return out
	}
	caseID := func(line string) string {
		_, rest, ok := strings.Cut(line, `"case_id": "`)
		if !ok {
			return "" // after the last newline
		}
		id, _, _ := strings.Cut(rest, `"`)
		return id
	}
	// The outputs of ER-007, last in their files: when it goes, no other
	// output's line number changes.
	lastOutputs := func(name string, lines []string) []string {
		if name == "cases.jsonl" {
			return lines
		}
		var moved []string
		lines = slices.DeleteFunc(lines, func(l string) bool {
			if caseID(l) == "ER-007" {
				moved = append(moved, l)
				return true
			}
			return false
		})
		return append(lines, moved...)
	}
	for _, tc := range []struct {
		name string
		// edit makes the release after of a copy of the sample, or if
		// set, of the copy that prepare made the release before of.
		edit, prepare func(name string, lines []string) []string
		new           []string // the cases that are new
	}{
		{"a failing case removed", func(_ string, lines []string) []string {
			return slices.DeleteFunc(lines, func(l string) bool { return caseID(l) == "ER-007" })
		}, lastOutputs, nil},
		{"a case added in the middle", func(name string, lines []string) []string {
			if name != "cases.jsonl" {
				return lines
			}
			return slices.Insert(lines, 4, strings.Replace(lines[2], `"ER-003"`, `"ER-100"`, 1))
		}, nil, []string{"ER-100"}},
		{"the first case moved last", func(name string, lines []string) []string {
			if name != "cases.jsonl" {
				return lines
			}
			return append(lines[1:], lines[0])
		}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copySample(t)
			if tc.prepare != nil {
				editCases(t, dir, tc.prepare)
			}
			before := evaluate(dir)
			old := withoutFooter(&pages.Input{Release: before}, collect(t, func(e render.Emit) error { return r.RenderAll(&pages.Input{Release: before}, e) }))
			editCases(t, dir, tc.edit)
			after := evaluate(dir)
			in := &pages.Input{Release: after}
			all := collect(t, func(e render.Emit) error { return r.RenderAll(in, e) })
			pageList := withoutFooter(in, all)
			if !render.SameFrame(&pages.Input{Release: before}, in) {
				t.Fatal("SameFrame: false, want true")
			}
			parts := render.Parts{Before: before, Drilldowns: map[string][]string{}, Histories: tc.new}
			for _, s := range after.Snapshots {
				parts.Snapshots = append(parts.Snapshots, s.Label())
				parts.Tables = append(parts.Tables, s.Label())
				parts.Drilldowns[s.Label()] = tc.new
			}
			got := collect(t, func(e render.Emit) error { return r.RenderParts(in, parts, e) })
			changed := 0
			// Exactly the case pages that changed.
			for p, b := range pageList {
				_, rendered := got[p]
				differs := !bytes.Equal(b, old[p])
				switch {
				case differs && !rendered:
					t.Errorf("%s changed but was not rendered", p)
				case !differs && rendered:
					t.Errorf("%s rendered, although it did not change", p)
				}
				if differs {
					changed++
				}
			}
			if changed == 0 {
				t.Error("no case page changed")
			}
			for p, b := range got {
				if !bytes.Equal(b, all[p]) {
					t.Errorf("%s differs from RenderAll", p)
				}
			}
			t.Logf("%d of %d case pages changed", changed, len(pageList))

			// With Steps, a page whose case did not change comes as its
			// case-steps part alone: put in place of that part of the page
			// as it was, it gives the page as it is now.
			var mu sync.Mutex
			steps := map[string][]byte{}
			parts.Steps = func(p string, b []byte) error {
				mu.Lock()
				defer mu.Unlock()
				steps[p] = b
				return nil
			}
			whole := collect(t, func(e render.Emit) error { return r.RenderParts(in, parts, e) })
			for p, part := range steps {
				if _, ok := whole[p]; ok {
					t.Errorf("%s: rendered whole and as its steps", p)
				}
				start, end, ok := r.StepsMarks().At(old[p])
				if !ok {
					t.Fatalf("%s: no case steps in the page", p)
				}
				spliced := slices.Concat(old[p][:start], part, old[p][end:])
				if !bytes.Equal(spliced, pageList[p]) {
					t.Errorf("%s: the page with its new steps differs from RenderAll:\n%s\nwant\n%s", p, spliced, pageList[p])
				}
			}
			for p := range got {
				if _, ok := steps[p]; !ok {
					if _, ok := whole[p]; !ok {
						t.Errorf("%s: rendered without Steps, neither whole nor as steps with them", p)
					}
				}
			}
			if len(steps) == 0 {
				t.Error("no page came as its steps alone")
			}
			// A new case's drilldowns have no page to put steps in: even
			// when not listed, they are rendered whole.
			if len(tc.new) > 0 {
				for label := range parts.Drilldowns {
					parts.Drilldowns[label] = nil
				}
				parts.Histories = nil
				clear(steps)
				whole := collect(t, func(e render.Emit) error { return r.RenderParts(in, parts, e) })
				for _, label := range parts.Snapshots {
					p := pages.DrilldownPath(label, tc.new[0])
					if _, ok := whole[p]; !ok {
						t.Errorf("%s: not rendered whole", p)
					}
					if _, ok := steps[p]; ok {
						t.Errorf("%s: given as steps", p)
					}
				}
			}
			// A grouped site keeps a case's place in its page's path.
			grouped := &pages.Input{Release: after, GroupAbove: 12}
			if render.SameFrame(&pages.Input{Release: before, GroupAbove: 12}, grouped) {
				t.Error("SameFrame of grouped sites whose cases moved: true, want false")
			}
		})
	}
}

// TestRenderAllLaterPutsOffTheCasePages checks that the files RenderAllLater
// renders and the case pages it puts off make up the site RenderAll
// renders, byte for byte, and that MakeLater finds the same case pages.
func TestRenderAllLaterPutsOffTheCasePages(t *testing.T) {
	rel, r := release(t), embeddedRenderer(t)
	for _, groupAbove := range []int{0, 12} {
		in := &pages.Input{Release: rel, Handoff: []byte("# Handoff\n"), GroupAbove: groupAbove}
		all := collect(t, func(e render.Emit) error { return r.RenderAll(in, e) })
		var later []render.Later
		front := collect(t, func(e render.Emit) error {
			var err error
			later, err = r.RenderAllLater(in, e)
			return err
		})
		got := maps.Clone(front)
		var paths []string
		for _, l := range later {
			if strings.HasPrefix(l.Path, "snapshots/") && !strings.Contains(strings.TrimPrefix(l.Path, "snapshots/"), "/") {
				t.Errorf("%s: a snapshot page put off", l.Path)
			}
			if _, ok := got[l.Path]; ok {
				t.Errorf("%s: both rendered and put off", l.Path)
			}
			b, err := l.Make()
			if err != nil {
				t.Fatal(err)
			}
			got[l.Path] = b
			paths = append(paths, l.Path)
		}
		if groupAbove == 0 && len(later) < len(all)/2 || len(later) == 0 {
			t.Errorf("grouped above %d: %d of %d files put off, want the case pages", groupAbove, len(later), len(all))
		}
		if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, slices.Sorted(maps.Keys(all))) {
			t.Errorf("grouped above %d: files\n%q\nwant\n%q", groupAbove, names, slices.Sorted(maps.Keys(all)))
		}
		for p, b := range got {
			if !bytes.Equal(b, all[p]) {
				t.Errorf("%s differs from RenderAll", p)
			}
		}
		again, err := r.MakeLater(in, append(paths[:3:3], "index.html", "snapshots/no-such/ER-001.html"))
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != 3 {
			t.Errorf("MakeLater found %d pages, want the 3 case pages asked for", len(again))
		}
		for _, l := range again {
			if b, err := l.Make(); err != nil || !bytes.Equal(b, all[l.Path]) {
				t.Errorf("%s: made again differs from RenderAll (%v)", l.Path, err)
			}
		}
	}
}
