package pages_test

import (
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/pages"
)

// BenchmarkSnapshotRows makes the case-table rows of 10,000 generated
// cases in each of the sample's three snapshots, which every snapshot
// page and its table data start from (see docs/design.md, Fast paths).
func BenchmarkSnapshotRows(b *testing.B) {
	in := loadGenerated(b, 10000)
	rows := 0
	for b.Loop() {
		// A model of its own each time: it keeps a snapshot's rows until
		// its page and table data have both taken them.
		m, err := pages.NewModel(in)
		if err != nil {
			b.Fatal(err)
		}
		rows = 0
		for _, s := range in.Release.Snapshots {
			rows += len(m.SnapshotRows(s))
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// loadGenerated loads a suite of n cases generated from the sample, in
// each of its three snapshots.
func loadGenerated(tb testing.TB, n int) *site.Input {
	tb.Helper()
	data := filepath.Join(tb.TempDir(), "data")
	if err := gensuite.Write(filepath.Join("..", "..", "data"), data, n); err != nil {
		tb.Fatal(err)
	}
	in, err := site.Load(data)
	if err != nil {
		tb.Fatal(err)
	}
	return in
}
