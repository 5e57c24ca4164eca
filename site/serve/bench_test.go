package serve

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/load"
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
			b.ReportMetric(float64(bld.files.len()), "files")
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

// benchCases is the size of the suites of the serve benchmarks by kind
// of edit: 10,000 cases, or $RELEASEGATE_REBUILD_CASES.
func benchCases() int {
	if n, err := strconv.Atoi(os.Getenv("RELEASEGATE_REBUILD_CASES")); err == nil && n > 0 {
		return n
	}
	return 10000
}

// BenchmarkSaveToServedByKind measures, on 10,000 cases × 3 snapshots
// (or $RELEASEGATE_REBUILD_CASES),
// the time from saving a file to the reload event of the page (the new
// site is then served), for each kind of file an author edits, and the
// server's resident memory: now (rss-MiB) and the most it ever held
// (peak-rss-MiB, the first build included). A case added, which rebuilds everything,
// is the yardstick: on a busy machine compare ratios within one run.
// Run it with -benchtime=10x for 10 saves of each kind.
func BenchmarkSaveToServedByKind(b *testing.B) {
	data := generateSuite(b, benchCases())
	started := time.Now()
	ts := startServer(b, serverOptions{data: data, readyWithin: 20 * time.Minute})
	b.Logf("first build: %s, RSS %d MiB", time.Since(started).Round(time.Millisecond), rssMiB(b, "VmRSS"))
	page := ts.listen()
	page.timeout = 5 * time.Minute
	gen := page.hello
	// Each kind toggles between two versions of one file that render
	// differently. Generated JSON Lines have no space after a colon.
	toggle := func(name string, from, to string) func(testing.TB) (string, []byte, []byte) {
		return func(tb testing.TB) (string, []byte, []byte) {
			p := filepath.Join(data, name)
			original, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			edited := bytes.Replace(original, []byte(from), []byte(to), 1)
			if bytes.Equal(edited, original) {
				compact := func(s string) []byte { return []byte(strings.ReplaceAll(s, `": `, `":`)) }
				edited = bytes.Replace(original, compact(from), compact(to), 1)
			}
			if bytes.Equal(edited, original) {
				tb.Fatalf("%s: the edit changes nothing", name)
			}
			return p, original, edited
		}
	}
	// A new file, saved once before its kind is measured.
	created := func(name string, from, to string) func(testing.TB) (string, []byte, []byte) {
		return func(tb testing.TB) (string, []byte, []byte) {
			p := filepath.Join(data, name)
			writeFile(tb, p, []byte(from))
			gen = page.reload(gen).gen
			return p, []byte(from), []byte(to)
		}
	}
	for _, kind := range []struct {
		name  string
		files func(testing.TB) (string, []byte, []byte)
	}{
		{"outputs", toggle("outputs/candidate-v3.jsonl", `"cost_usd": 0.009`, `"cost_usd": 0.008`)},
		// The first failing case of a snapshot where every case passed:
		// every drilldown of it gets a link to the next failing case.
		{"outputs-first-failure", toggle("outputs/candidate-v3.jsonl", `"decision": "approve"`, `"decision": "no_op"`)},
		{"gate", toggle("gate.json", `"max_avg_cost_usd": 0.025`, `"max_avg_cost_usd": 0.0115`)},
		{"cases", toggle("cases.jsonl", `"title": "`, `"title": "Edited: `)},
		{"policy", toggle("POLICY.md", "§3.1 Finance escalation", "§3.1 Escalation to finance")},
		{"meta", created("outputs/candidate-v3.meta.json", `{"model": "m-1", "description": "Nightly run"}`, `{"model": "m-2", "description": "Nightly run, edited"}`)},
		{"handoff", toggle("HANDOFF.md", "candidate-v3", "candidate-v3 (edited)")},
		// A case added in the middle of the suite, then removed again.
		{"case-added-or-removed", func(tb testing.TB) (string, []byte, []byte) {
			p := filepath.Join(data, "cases.jsonl")
			original, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			return p, original, withCaseAdded(tb, original)
		}},
		// A fourth snapshot dropped in, then removed again: every page
		// changes (nil content: no file). Last, since the site is then
		// completed in the background, which the next save stops.
		{"snapshot-added-or-removed", func(tb testing.TB) (string, []byte, []byte) {
			src, err := os.ReadFile(filepath.Join(data, "outputs", "candidate-v3.jsonl"))
			if err != nil {
				tb.Fatal(err)
			}
			return filepath.Join(data, "outputs", "candidate-v4.jsonl"), nil, src
		}},
	} {
		b.Run(kind.name, func(b *testing.B) {
			p, original, edited := kind.files(b)
			failedBefore := strings.Count(ts.log.String(), "rebuild failed")
			var took []time.Duration
			cpuBefore := processCPU(b)
			for i := 0; b.Loop(); i++ {
				content := edited
				if i%2 == 1 {
					content = original
				}
				saved := time.Now()
				saveOrRemove(b, p, content)
				gen = page.reload(gen).gen
				// What the reloaded page asks for first: the largest page
				// of the site, the edited snapshot's.
				if status, body := ts.get("snapshots/candidate-v3.html"); status != http.StatusOK || len(body) == 0 {
					b.Fatalf("snapshot page: status %d, %d bytes", status, len(body))
				}
				took = append(took, time.Since(saved))
			}
			cpu := processCPU(b) - cpuBefore
			if strings.Count(ts.log.String(), "rebuild failed") != failedBefore {
				b.Fatalf("a rebuild failed, so what was timed is not a save shown:\n%s", ts.log.String())
			}
			if b.N%2 == 1 {
				// Leave the file as it was for the next kind.
				saveOrRemove(b, p, original)
				gen = page.reload(gen).gen
			}
			slices.Sort(took)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(took[len(took)/2]), "p50-ms")
			b.ReportMetric(ms(took[(len(took)*95+99)/100-1]), "p95-ms")
			b.ReportMetric(float64(rssMiB(b, "VmRSS")), "rss-MiB")
			b.ReportMetric(float64(rssMiB(b, "VmHWM")), "peak-rss-MiB")
			// Processor time per save, the server's and the client's: on
			// a shared machine the wall times say as much about the
			// neighbours, whose load the load average gives.
			b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/save")
			b.ReportMetric(loadAverage(b), "load-avg")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// loadAverage is the machine's load average over the last minute.
func loadAverage(tb testing.TB) float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		tb.Skip("no /proc/loadavg:", err)
	}
	f, err := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// rssMiB reads one of this process's memory figures from /proc, in MiB.
func rssMiB(tb testing.TB, field string) int {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status:", err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				tb.Fatal(err)
			}
			return kb >> 10
		}
	}
	tb.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// saveOrRemove writes content to p, or removes p when content is nil.
// It saves as editors with atomic saves do: written in place, a file of
// tens of megabytes was read half-written by the rebuild its first
// events started, and the time measured was that of reporting it as bad
// input.
func saveOrRemove(tb testing.TB, p string, content []byte) {
	if content != nil {
		replaceFile(tb, p, content)
	} else if err := os.Remove(p); err != nil {
		tb.Fatal(err)
	}
}

// withCaseAdded is a generated cases.jsonl with a copy of its last case,
// under a new id, in the middle.
func withCaseAdded(tb testing.TB, cases []byte) []byte {
	lines := bytes.SplitAfter(cases, []byte("\n"))
	last := lines[len(lines)-2] // the last line ends with a newline
	added := bytes.Replace(last, []byte(gensuite.ID(len(lines)-2)), []byte(gensuite.ID(len(lines)-1)), 1)
	if bytes.Equal(added, last) {
		tb.Fatal("the last case has no generated id")
	}
	return bytes.Join(slices.Insert(lines, len(lines)/2, added), nil)
}

// BenchmarkRebuildByKind measures the rebuild behind each kind of save on
// 10,000 cases × 3 snapshots (or $RELEASEGATE_REBUILD_CASES), without the
// debounce and the HTTP side.
func BenchmarkRebuildByKind(b *testing.B) {
	data := generateSuite(b, benchCases())
	bld := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := bld.build(changeSet{}); err != nil {
		b.Fatal(err)
	}
	var size int
	for _, f := range bld.files.files {
		size += len(f.head) + len(f.tail)
	}
	var mem runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&mem)
	b.Logf("%d files kept in %d MiB; heap in use %d MiB, RSS %d MiB", bld.files.len(), size>>20, mem.HeapInuse>>20, rssMiB(b, "VmRSS"))
	for _, kind := range []struct {
		name, file, from, to string
		ch                   change
		// edit, when set, makes the edited file instead of from and to.
		edit func(testing.TB, []byte) []byte
	}{
		{"outputs", "outputs/candidate-v3.jsonl", `"cost_usd":0.009`, `"cost_usd":0.008`, snapshotChange("candidate-v3"), nil},
		{"outputs-first-failure", "outputs/candidate-v3.jsonl", `"decision":"approve"`, `"decision":"no_op"`, snapshotChange("candidate-v3"), nil},
		{"gate", "gate.json", `"max_avg_cost_usd": 0.025`, `"max_avg_cost_usd": 0.0115`, change{Kind: suiteChanged, Name: "gate.json"}, nil},
		{"cases", "cases.jsonl", `"title":"`, `"title":"Edited: `, change{Kind: suiteChanged, Name: "cases.jsonl"}, nil},
		{"policy", "POLICY.md", "§3.1 Finance escalation", "§3.1 Escalation to finance", change{Kind: suiteChanged, Name: "POLICY.md"}, nil},
		{"meta", "outputs/candidate-v3.meta.json", "Nightly run", "Nightly run, edited", change{Kind: metaChanged, Label: "candidate-v3"}, nil},
		{"handoff", "HANDOFF.md", "candidate-v3", "candidate-v3 (edited)", change{Kind: handoffChanged, Name: "HANDOFF.md"}, nil},
		{"case-added-or-removed", "cases.jsonl", "", "", change{Kind: suiteChanged, Name: "cases.jsonl"}, withCaseAdded},
	} {
		b.Run(kind.name, func(b *testing.B) {
			p := filepath.Join(data, kind.file)
			if strings.HasSuffix(p, load.MetaSuffix) {
				writeFile(b, p, []byte(`{"model": "m-1", "description": "`+kind.from+`"}`))
				if _, err := bld.build(batchOf(kind.ch)); err != nil {
					b.Fatal(err)
				}
			}
			original, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			edited := bytes.Replace(original, []byte(kind.from), []byte(kind.to), 1)
			if kind.edit != nil {
				edited = kind.edit(b, original)
			}
			if bytes.Equal(edited, original) {
				b.Fatal("the edit changes nothing")
			}
			cpuBefore := processCPU(b)
			// Labelled, so that a profile (-cpuprofile) shows each kind
			// apart from the first build: go tool pprof -tagfocus kind=gate.
			pprof.Do(context.Background(), pprof.Labels("kind", kind.name), func(context.Context) {
				for i := 0; b.Loop(); i++ {
					content := edited
					if i%2 == 1 {
						content = original
					}
					writeFile(b, p, content)
					if _, err := bld.build(batchOf(kind.ch)); err != nil {
						b.Fatal(err)
					}
				}
			})
			writeFile(b, p, original)
			if _, err := bld.build(batchOf(kind.ch)); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(processCPU(b)-cpuBefore)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkPutOffPageMade measures what a request for a case page put off
// by a rebuild waits for: rendering it, on 10,000 cases once a fourth
// snapshot was dropped in. Each iteration asks for another page; run it
// with -benchtime=300x (at most 50,000).
func BenchmarkPutOffPageMade(b *testing.B) {
	data := generateSuite(b, 10000)
	bld := &builder{data: data, web: releasegate.Web(), newRenderer: siteRenderer}
	if _, err := bld.build(changeSet{}); err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(outputsPath(data, "candidate-v3"))
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, outputsPath(data, "candidate-v4"), src)
	out, err := bld.build(batchOf(snapshotChange("candidate-v4")))
	if err != nil {
		b.Fatal(err)
	}
	names := slices.Clone(out.files.order)
	if len(names) == 0 {
		b.Fatal("no page put off")
	}
	for i := 0; b.Loop(); i++ {
		if _, ok := out.files.get(names[i%len(names)]); !ok {
			b.Fatalf("%s: not made", names[i%len(names)])
		}
	}
	b.ReportMetric(float64(len(names)), "pages-put-off")
}
