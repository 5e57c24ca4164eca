package livepeak

import (
	"runtime"
	"testing"
)

// TestOfSeesWhatIsHeld: 64 MiB held while f runs shows in the peak, and
// is gone from the next measurement once dropped.
func TestOfSeesWhatIsHeld(t *testing.T) {
	const size = 64 << 20
	var held []byte
	peak := Of(func() {
		held = make([]byte, size)
		for i := 0; i < 50; i++ {
			_ = make([]byte, 1<<20) // garbage, so that the collector runs
			runtime.Gosched()
		}
		runtime.GC()
	})
	if peak < size {
		t.Errorf("peak %d bytes while %d were held", peak, size)
	}
	runtime.KeepAlive(held)
	held = nil
	if after := Of(func() { runtime.GC() }); after >= size {
		t.Errorf("peak %d bytes after the %d were dropped", after, size)
	}
}
