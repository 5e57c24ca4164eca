package site

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site/internal/render"
)

var (
	largeSuite      = flag.String("large-suite", "", "write a generated suite to this folder (TestWriteLargeSuite) for measuring the command")
	largeSuiteCases = flag.Int("large-cases", largeCases, "how many cases TestWriteLargeSuite generates")
)

// largeCases is the size of the generated suite of the benchmark.
const largeCases = 10000

// writeLargeSuite writes a data folder of n cases and the sample's three
// snapshots.
func writeLargeSuite(t testing.TB, dir string, n int) {
	t.Helper()
	if err := gensuite.Write(sampleData, dir, n); err != nil {
		t.Fatal(err)
	}
}

// TestWriteLargeSuite writes the benchmark's suite where -large-suite
// says, to time the command itself:
//
//	go test ./site -run TestWriteLargeSuite -large-suite /tmp/large [-large-cases 100000]
//	go build -o /tmp/releasegate ./cmd/releasegate
//	/usr/bin/time -v /tmp/releasegate build --data /tmp/large --out /tmp/large-site
func TestWriteLargeSuite(t *testing.T) {
	if *largeSuite == "" {
		t.Skip("set -large-suite DIR to write the generated suite")
	}
	writeLargeSuite(t, *largeSuite, *largeSuiteCases)
	if _, err := Load(*largeSuite); err != nil {
		t.Fatalf("the generated suite does not load: %v", err)
	}
}

// BenchmarkBuildLarge builds the site of a 10,000-case × 3-snapshot suite
// (about 40,000 pages) and reports pages per second and the process's
// peak resident memory.
func BenchmarkBuildLarge(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	writeLargeSuite(b, data, largeCases)
	out := filepath.Join(b.TempDir(), "public")
	var pages int
	start, cpuStart := time.Now(), cpuTime()
	for b.Loop() {
		pages = 0
		_, err := Build(data, out, BuildOptions{Progress: func(done, total int) { pages = total }})
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpuStart
	b.ReportMetric(float64(pages*b.N)/elapsed.Seconds(), "files/s")
	// Processor time tells the work apart from waiting on a busy machine.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	if hwm, ok := peakRSS(); ok {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MB")
	}
}

// BenchmarkRenderLarge renders the same suite without writing files:
// the processor's share of a build.
func BenchmarkRenderLarge(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	writeLargeSuite(b, data, largeCases)
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	var files int
	var size int64
	start, cpuStart := time.Now(), cpuTime()
	for b.Loop() {
		files, size = 0, 0
		err := r.RenderAll(in, func(_ string, data []byte) error {
			files++
			size += int64(len(data))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpuStart
	b.ReportMetric(float64(files*b.N)/elapsed.Seconds(), "files/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/(1<<20), "site-MB")
}

// BenchmarkRenderDrilldown measures the page rendered most often.
func BenchmarkRenderDrilldown(b *testing.B) {
	in := sampleInput(b)
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	v, err := render.NewView(in)
	if err != nil {
		b.Fatal(err)
	}
	s := in.Release.Snapshots[1]
	var w bytes.Buffer
	for b.Loop() {
		w.Reset()
		p, err := v.DrilldownPage(s, 6)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Frame(v, "drilldown", p.Frame()); err != nil {
			b.Fatal(err)
		}
		if err := r.Execute(&w, "drilldown", p); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the user and system time the process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS reads the process's high-water mark of resident memory, in
// bytes, where Linux reports it.
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// hugeBenchEnv enables the benchmarks of a 100,000-case suite, which take
// a minute and a gigabyte each; `go test ./...` skips them.
const hugeBenchEnv = "RELEASEGATE_BENCH_HUGE"

// BenchmarkBuild100kx3 builds 100,000 cases × 3 snapshots, where results
// share pages, and reports the seconds, the files and bytes written and
// the process's peak resident memory. The targets: under 30 s, 1 GiB of
// memory, 50,000 files and 500 MB. Run it alone, one build per process:
//
//	RELEASEGATE_BENCH_HUGE=1 go test ./site -run '^$' -bench Build100kx3 -benchtime 1x [-large-suite DIR]
//
// With -large-suite naming a folder written by TestWriteLargeSuite
// (-large-cases 100000), the suite is read from there.
func BenchmarkBuild100kx3(b *testing.B) {
	if testing.Short() || os.Getenv(hugeBenchEnv) == "" {
		b.Skip("set " + hugeBenchEnv + "=1 to build 100,000 cases × 3 snapshots")
	}
	data := *largeSuite
	if data == "" {
		data = filepath.Join(b.TempDir(), "data")
		writeLargeSuite(b, data, 100000)
	}
	out := filepath.Join(b.TempDir(), "public")
	// What the build command does.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(BuildMemoryLimit))
	}
	var files int
	var size int64
	start, cpuStart := time.Now(), cpuTime()
	for b.Loop() {
		_, err := Build(data, out, BuildOptions{Written: func(f int, s int64) { files, size = f, s }})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/build")
	b.ReportMetric((cpuTime()-cpuStart).Seconds()/float64(b.N), "cpu-s/build")
	b.ReportMetric(float64(files), "files")
	b.ReportMetric(float64(size)/1e6, "MB")
	if hwm, ok := peakRSS(); ok {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkRenderResultGroup renders one grouped page of 100 results of
// the snapshot that fails most (a third of its cases), the page a large
// release renders thousands of times.
func BenchmarkRenderResultGroup(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	writeLargeSuite(b, data, 300)
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	in.GroupAbove = 100
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	v, err := render.NewView(in)
	if err != nil {
		b.Fatal(err)
	}
	s := in.Release.Snapshots[0]
	var w bytes.Buffer
	for b.Loop() {
		w.Reset()
		p, err := v.ResultGroupPage(s, 1)
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Execute(&w, "results", p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Len()), "bytes/page")
}

// BenchmarkRenderHistoryGroup renders one grouped history page: 100
// cases × 3 snapshots.
func BenchmarkRenderHistoryGroup(b *testing.B) {
	data := filepath.Join(b.TempDir(), "data")
	writeLargeSuite(b, data, 300)
	in, err := Load(data)
	if err != nil {
		b.Fatal(err)
	}
	in.GroupAbove = 100
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	v, err := render.NewView(in)
	if err != nil {
		b.Fatal(err)
	}
	var w bytes.Buffer
	for b.Loop() {
		w.Reset()
		if err := r.Execute(&w, "histories", v.HistoryGroupPage(1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Len()), "bytes/page")
}
