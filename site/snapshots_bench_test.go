package site

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site/internal/render"
)

// writeNightlySuite writes a data folder of cases generated cases and n
// snapshots, recorded as the sample's three snapshots take turns, under
// nightly labels.
func writeNightlySuite(tb testing.TB, dir string, cases, n int) {
	tb.Helper()
	if err := gensuite.Write(sampleData, dir, cases); err != nil {
		tb.Fatal(err)
	}
	outs := filepath.Join(dir, "outputs")
	sources := []string{"baseline-v1", "candidate-v2", "candidate-v3"}
	var data [3][]byte
	for i, s := range sources {
		b, err := os.ReadFile(filepath.Join(outs, s+".jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		data[i] = b
		if err := os.Remove(filepath.Join(outs, s+".jsonl")); err != nil {
			tb.Fatal(err)
		}
	}
	for i := range n {
		label := fmt.Sprintf("nightly-%04d", i+1)
		if err := os.WriteFile(filepath.Join(outs, label+".jsonl"), data[i%3], 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkBuildSnapshots builds 1,000 cases × 100 and × 365 snapshots
// and reports the time, the files and bytes written and the process's
// peak resident memory. The site must grow linearly in the snapshots:
// bytes per snapshot stay the same from 100 to 365. Peak memory is the
// process's, so run one size per process:
//
//	go test ./site -run '^$' -bench 'BuildSnapshots/365$' -benchtime 1x
func BenchmarkBuildSnapshots(b *testing.B) {
	for _, n := range []int{100, 365} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			data := filepath.Join(b.TempDir(), "data")
			writeNightlySuite(b, data, 1000, n)
			out := filepath.Join(b.TempDir(), "public")
			var files int
			var size int64
			start := time.Now()
			for b.Loop() {
				_, err := Build(data, out, BuildOptions{Written: func(f int, s int64) { files, size = f, s }})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/build")
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(size)/1e6, "MB")
			b.ReportMetric(float64(size)/float64(n)/1e6, "MB/snapshot")
			if hwm, ok := peakRSS(); ok {
				b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
			}
		})
	}
}

// TestSiteGrowsLinearlyInSnapshots renders a small suite at two snapshot
// counts: the bytes per snapshot must not grow with the count, as they
// would if pages linked every other snapshot.
func TestSiteGrowsLinearlyInSnapshots(t *testing.T) {
	perSnapshot := map[int]float64{}
	for _, n := range []int{20, 80} {
		data := filepath.Join(t.TempDir(), "data")
		writeNightlySuite(t, data, 24, n)
		in, err := Load(data)
		if err != nil {
			t.Fatal(err)
		}
		r, err := render.NewRenderer(releasegate.Web())
		if err != nil {
			t.Fatal(err)
		}
		var size int64
		if err := r.RenderAll(in, func(_ string, d []byte) error { size += int64(len(d)); return nil }); err != nil {
			t.Fatal(err)
		}
		perSnapshot[n] = float64(size) / float64(n)
	}
	if ratio := perSnapshot[80] / perSnapshot[20]; ratio > 1.15 {
		t.Errorf("bytes per snapshot grow %.2f× from 20 to 80 snapshots (%.0f → %.0f): the site is not linear in snapshots", ratio, perSnapshot[20], perSnapshot[80])
	}
}
