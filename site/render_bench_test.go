package site

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site/internal/render"
)

// BenchmarkFastPathFileWriters renders and writes the site of a
// 1,000-case × 3-snapshot suite (about 4,000 files) into a fresh tree,
// with fileWriters goroutines writing files while the render workers go
// on, and with the render workers writing each file themselves, one at
// a time. See "Fast paths" in docs/design.md.
//
//	go test ./site -run '^$' -bench 'FastPathFileWriters' -count 5 -benchtime 5x
func BenchmarkFastPathFileWriters(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	writeLargeSuite(b, data, 1000)
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	v, err := render.NewView(in)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	build := func(b *testing.B, writers int, name string) {
		tree, err := publish.NewTree(context.Background(), filepath.Join(root, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Run(r.AllJobs(v), tree.Write, render.RunOptions{Writers: writers, Reuse: true}); err != nil {
			b.Fatal(err)
		}
		if err := tree.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	for _, variant := range []struct {
		name    string
		writers int
	}{{"fast", fileWriters}, {"plain", 0}} {
		b.Run(variant.name, func(b *testing.B) {
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				build(b, variant.writers, fmt.Sprint(variant.name, i))
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
	// Both in turn in every round, each first in every other round, so
	// that a change of load on the machine favours neither.
	b.Run("interleaved", func(b *testing.B) {
		var wall, cpu [2]time.Duration
		writers := [2]int{fileWriters, 0}
		for i := 0; b.Loop(); i++ {
			for k := range 2 {
				k := (k + i) % 2
				start, startCPU := time.Now(), cpuTime()
				build(b, writers[k], fmt.Sprint("interleaved", i, k))
				wall[k] += time.Since(start)
				cpu[k] += cpuTime() - startCPU
			}
		}
		b.ReportMetric(float64(wall[1])/float64(wall[0]), "plain/fast-wall")
		b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "plain/fast-cpu")
		b.ReportMetric(float64(wall[0])/float64(b.N), "fast-ns/op")
		b.ReportMetric(float64(wall[1])/float64(b.N), "plain-ns/op")
	})
}
