// Package livepeak measures the most heap a piece of code keeps live, for
// tests that hold memory flat in the size of their input.
package livepeak

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// Of runs f and returns the peak of the live heap while it ran, sampled
// every millisecond after each collection. The collector runs at
// GOGC=5 meanwhile, so that the live heap is measured often and garbage
// does not hide in it.
func Of(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak.Load()
}
