package site

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site/internal/render"
)

// BenchmarkTrialDataScripts writes the data scripts of a 10,000-case
// snapshot with three trials, the rows a large case table loads with a
// trial strip each, and matrix.js with the trial counts; it reports the
// bytes per case of each.
func BenchmarkTrialDataScripts(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	if err := gensuite.WriteTrials(sampleData, data, largeCases, 3); err != nil {
		b.Fatal(err)
	}
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	v, err := render.NewView(in)
	if err != nil {
		b.Fatal(err)
	}
	s := in.Release.Snapshots[0]
	var rows, matrix []byte
	for b.Loop() {
		if rows, err = v.SnapshotData(s); err != nil {
			b.Fatal(err)
		}
		if matrix, err = v.MatrixData(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))/largeCases, "row-B/case")
	b.ReportMetric(float64(len(matrix))/largeCases, "matrix-B/case")
}
