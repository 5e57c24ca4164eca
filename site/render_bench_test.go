package site

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/internal/publish"
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
	r, err := NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	v, err := newView(in)
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	for _, variant := range []struct {
		name    string
		writers int
	}{{"fast", fileWriters}, {"plain", 0}} {
		b.Run(variant.name, func(b *testing.B) {
			cpu := cpuTime()
			for i := 0; b.Loop(); i++ {
				tree, err := publish.NewTree(context.Background(), filepath.Join(root, fmt.Sprint(variant.name, i)))
				if err != nil {
					b.Fatal(err)
				}
				if err := r.run(r.allJobs(v), tree.Write, runOptions{writers: variant.writers, reuse: true}); err != nil {
					b.Fatal(err)
				}
				if err := tree.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
