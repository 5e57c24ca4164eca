//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// BenchmarkEvaluateAllCommand runs the built command, as a user would, on a
// generated suite of 100,000 cases and three snapshots, and reports its
// peak resident memory as well as its speed.
func BenchmarkEvaluateAllCommand(b *testing.B) {
	const n = 100_000
	benchmarkEvaluateAll(b, 3*n, func(data string) error { return gensuite.Write("../../data", data, n) })
}

// BenchmarkEvaluateAllTrialsCommand is BenchmarkEvaluateAllCommand for
// real agents: 20,000 cases run 5 times in each of three snapshots, with
// argument matchers and the four tool-call wire formats.
func BenchmarkEvaluateAllTrialsCommand(b *testing.B) {
	const n, k = 20_000, 5
	benchmarkEvaluateAll(b, 3*n*k, func(data string) error { return gensuite.WriteTrials("../../data", data, n, k) })
}

// benchmarkEvaluateAll times evaluate --all on the data gen writes,
// reporting outputs judged per second as cases/s.
func benchmarkEvaluateAll(b *testing.B, judged int, gen func(data string) error) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "releasegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	if err := gen(data); err != nil {
		b.Fatal(err)
	}
	var peakKB int64
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "evaluate", "--all", "--data", data, "--out", filepath.Join(dir, "public"), "--quiet")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("evaluate --all: %v\n%s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peakKB = max(peakKB, int64(ru.Maxrss)) // kilobytes on Linux
		}
	}
	b.ReportMetric(float64(judged)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
	// On a shared machine the wall clock includes waiting for a core;
	// CPU time does not.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}
