//go:build unix

package render

import (
	"bytes"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site/pages"
)

// processorTime is the user and system time the process has used: on a
// shared machine it tells the work apart from waiting for a core.
func processorTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFastPathGroupedPages renders every grouped result and history
// page of 10,000 generated cases × 3 snapshots (400 pages, their data
// made beforehand): /fast as the site does, the parts written by hand,
// /plain with the templates that wrote them before (testdata), and
// /interleaved both in turn, page by page, each first on every other
// page. See "Fast paths" in docs/design.md.
//
//	go test ./site/internal/render -run '^$' -bench FastPathGroupedPages -benchmem -count 3 -benchtime 3x
func BenchmarkFastPathGroupedPages(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	if err := gensuite.Write(filepath.Join("..", "..", "..", "data"), data, 10000); err != nil {
		b.Fatal(err)
	}
	rel, err := evaluator.EvaluateDir(data, evaluator.Options{KeepOutputs: true, KeepInputs: true})
	if err != nil {
		b.Fatal(err)
	}
	v, err := NewView(&pages.Input{Release: rel, GroupAbove: 10000})
	if err != nil {
		b.Fatal(err)
	}
	type page struct {
		name string
		data any
	}
	var all []page
	n := len(rel.Suite.Cases)
	for _, s := range rel.Snapshots {
		for g := range v.Paths.ResultGroups(n) {
			p, err := v.ResultGroupPage(s, g)
			if err != nil {
				b.Fatal(err)
			}
			all = append(all, page{"results", p})
		}
	}
	for g := range v.Paths.HistoryGroups(n) {
		all = append(all, page{"histories", v.HistoryGroupPage(g)})
	}
	g := newGroupRenderers(b)
	var w bytes.Buffer
	ways := [2]func(p page){
		func(p page) {
			w.Reset()
			if err := g.r.Execute(&w, p.name, p.data); err != nil {
				b.Fatal(err)
			}
		},
		func(p page) {
			w.Reset()
			ref := g.results
			if p.name == "histories" {
				ref = g.histories
			}
			if err := ref.ExecuteTemplate(&w, "base", p.data); err != nil {
				b.Fatal(err)
			}
		},
	}
	for k, name := range []string{"fast", "plain"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			size := 0
			cpu := processorTime()
			for b.Loop() {
				size = 0
				for _, p := range all {
					ways[k](p)
					size += w.Len()
				}
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
			b.SetBytes(int64(size))
		})
	}
	b.Run("interleaved", func(b *testing.B) {
		var spent [2]time.Duration
		for i := 0; b.Loop(); i++ {
			for j, p := range all {
				for k := range 2 {
					k := (k + i + j) % 2
					start := processorTime()
					ways[k](p)
					spent[k] += processorTime() - start
				}
			}
		}
		b.ReportMetric(float64(spent[0])/float64(b.N), "fast-cpu-ns/op")
		b.ReportMetric(float64(spent[1])/float64(b.N), "plain-cpu-ns/op")
		b.ReportMetric(float64(spent[1])/float64(spent[0]), "plain/fast")
	})
}
