//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// BenchmarkEvaluateAllCommand runs the built command, as a user would, on a
// generated suite of 100,000 cases and three snapshots, and reports its
// peak resident memory as well as its speed.
func BenchmarkEvaluateAllCommand(b *testing.B) {
	const n = 100_000
	dir := b.TempDir()
	bin := filepath.Join(dir, "releasegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "data")
	if err := gensuite.Write("../../data", data, n); err != nil {
		b.Fatal(err)
	}
	var peakKB int64
	for b.Loop() {
		cmd := exec.Command(bin, "evaluate", "--all", "--data", data, "--out", filepath.Join(dir, "public"), "--quiet")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("evaluate --all: %v\n%s", err, out)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peakKB = max(peakKB, int64(ru.Maxrss)) // kilobytes on Linux
		}
	}
	b.ReportMetric(float64(3*n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	b.ReportMetric(float64(peakKB)/1024, "peak-RSS-MB")
}
