package serve

import (
	"bytes"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// generateSuite writes a data folder of n cases, the sample's twelve
// repeated under fresh ids, with every sample snapshot answering all of
// them.
func generateSuite(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	if err := gensuite.Write(sampleData, dir, n); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// BenchmarkSaveToReload measures what an author waits for: from saving a
// snapshot file to the reload event reaching an open page, debounce
// included. It reports the median and 95th percentile; run it with
// -benchtime=30x for 30 saves.
func BenchmarkSaveToReload(b *testing.B) {
	for _, size := range []struct {
		name  string
		cases int
	}{{"sample", 0}, {"10000-cases", 10000}} {
		b.Run(size.name, func(b *testing.B) {
			data := ""
			if size.cases > 0 {
				data = generateSuite(b, size.cases)
			}
			started := time.Now()
			ts := startServer(b, serverOptions{data: data})
			b.Logf("first build of %s: %s", size.name, time.Since(started).Round(time.Millisecond))
			var mem runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&mem)
			b.Logf("heap in use with the site in memory: %d MiB", mem.HeapInuse>>20)
			page := ts.listen()
			page.timeout = 5 * time.Minute
			gen := page.hello
			v3 := outputsPath(ts.data, "candidate-v3")
			original, err := os.ReadFile(v3)
			if err != nil {
				b.Fatal(err)
			}
			// Two versions that differ in one output's cost, so every save
			// changes the snapshot's pages and the overview.
			edited := bytes.Replace(original, []byte(`"cost_usd": 0.009`), []byte(`"cost_usd": 0.008`), 1)
			if bytes.Equal(edited, original) {
				b.Fatal("the edit changes nothing")
			}
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				content := edited
				if i%2 == 1 {
					content = original
				}
				saved := time.Now()
				writeFile(b, v3, content)
				ev := page.reload(gen)
				gen = ev.gen
				took = append(took, ev.at.Sub(saved))
			}
			slices.Sort(took)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
			b.ReportMetric(ms(took[(len(took)*95+99)/100-1]), "p95-ms")
			b.ReportMetric(0, "ns/op") // the percentiles say it better than a mean
		})
	}
}

// BenchmarkRebuildOneSnapshot measures the rebuild behind a one-snapshot
// save, without the debounce and the HTTP side: evaluate that snapshot
// again, render its pages and the shared ones, swap the site.
func BenchmarkRebuildOneSnapshot(b *testing.B) {
	for _, size := range []struct {
		name  string
		cases int
	}{{"sample", 0}, {"10000-cases", 10000}} {
		b.Run(size.name, func(b *testing.B) {
			data := copyDir(b, sampleData)
			if size.cases > 0 {
				data = generateSuite(b, size.cases)
			}
			bld := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
			if _, err := bld.build(changeSet{}); err != nil {
				b.Fatal(err)
			}
			v3 := outputsPath(data, "candidate-v3")
			original, _ := os.ReadFile(v3)
			edited := bytes.Replace(original, []byte(`"cost_usd": 0.009`), []byte(`"cost_usd": 0.008`), 1)
			var ch changeSet
			ch.Add(snapshotChange("candidate-v3"))
			// Processor time as well as wall time: on a busy machine the
			// wall time says more about the neighbours than about the work.
			cpuBefore := processCPU(b)
			for i := 0; b.Loop(); i++ {
				content := edited
				if i%2 == 1 {
					content = original
				}
				writeFile(b, v3, content)
				out, err := bld.build(ch)
				if err != nil {
					b.Fatal(err)
				}
				if !out.changed {
					b.Fatal("nothing changed")
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpuBefore)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(len(bld.files)), "files")
		})
	}
}

// processCPU is the processor time this process has used, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
