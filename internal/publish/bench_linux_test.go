//go:build linux

package publish

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The benchmarks report the processor time the process spent (user and
// system), which tells the work apart from waiting on a busy disk.

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRemoveTree removes a tree shaped like a large site: four
// folders of 2,500 files each, with removeTree (fast) and os.RemoveAll
// (plain) in the same run. See "Fast paths" in docs/design.md.
func BenchmarkRemoveTree(b *testing.B) {
	for _, remove := range []struct {
		name string
		f    func(string) error
	}{{"fast", removeTree}, {"plain", os.RemoveAll}} {
		b.Run(remove.name, func(b *testing.B) {
			root := b.TempDir()
			var used time.Duration
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				dir := filepath.Join(root, fmt.Sprint(i))
				for d := range 4 {
					sub := filepath.Join(dir, fmt.Sprint("d", d))
					if err := os.MkdirAll(sub, 0o755); err != nil {
						b.Fatal(err)
					}
					for f := range 2500 {
						if err := writeNew(filepath.Join(sub, fmt.Sprint(f, ".html")), []byte("<p>page</p>")); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
				cpu := cpuTime()
				if err := remove.f(dir); err != nil {
					b.Fatal(err)
				}
				used += cpuTime() - cpu
			}
			b.ReportMetric(used.Seconds()*1000/float64(b.N), "cpu-ms/op")
		})
	}
}
