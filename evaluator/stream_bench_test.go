//go:build unix

package evaluator

import (
	"io"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/floor"
)

// BenchmarkStreamParts splits BenchmarkStreamDir into its parts, each
// reporting its processor time: the floor, the cases alone, the three
// snapshots' outputs alone, the whole streamed evaluation, and writing
// its results files and report (docs/design.md, "Scale: streaming
// evaluation").
//
//	go test ./evaluator -run '^$' -bench StreamParts -benchtime 3x
func BenchmarkStreamParts(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		b.Fatal(err)
	}
	rel, err := StreamDir(dir, StreamOptions{})
	if err != nil {
		b.Fatal(err)
	}
	write := func() {
		for _, s := range rel.Snapshots {
			if err := s.Result.WriteJSON(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		if err := rel.WriteReport(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	parts := []struct {
		name string
		run  func()
	}{
		{"floor", func() {
			files, err := floor.Files(dir)
			if err == nil {
				_, err = floor.Check(files)
			}
			if err != nil {
				b.Fatal(err)
			}
		}},
		{"cases", func() {
			ss, err := load.OpenSuiteStream(dir, decide.DefaultGates())
			if err == nil {
				_, err = ss.Each(func([]*suite.Case) error { return nil })
			}
			if err != nil {
				b.Fatal(err)
			}
		}},
		{"outputs", func() {
			files, err := load.Snapshots(dir)
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range files {
				o, err := load.OpenOutputStream(f, nil)
				if err != nil {
					b.Fatal(err)
				}
				for err == nil {
					_, err = o.Next()
				}
				o.Close()
				if err != io.EOF {
					b.Fatal(err)
				}
			}
		}},
		{"whole", func() {
			if rel, err = StreamDir(dir, StreamOptions{}); err != nil {
				b.Fatal(err)
			}
			write()
		}},
		{"write", write},
	}
	for _, part := range parts {
		b.Run(part.name, func(b *testing.B) {
			cpu := processorTime()
			for b.Loop() {
				part.run()
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
