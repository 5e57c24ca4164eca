package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestEachRunsEveryIndexOnceWithinTheLimit(t *testing.T) {
	for _, tt := range []struct{ n, limit int }{
		{0, 4}, {1, 4}, {3, 1}, {10, 3}, {100, 8}, {5, 0}, {7, -1},
	} {
		var (
			mu      sync.Mutex
			seen    = make(map[int]int)
			running atomic.Int64
			most    atomic.Int64
		)
		Each(tt.n, tt.limit, func(i int) {
			now := running.Add(1)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			mu.Lock()
			seen[i]++
			mu.Unlock()
			running.Add(-1)
		})
		if len(seen) != tt.n {
			t.Errorf("n=%d limit=%d: ran %d distinct indices", tt.n, tt.limit, len(seen))
		}
		for i, k := range seen {
			if i < 0 || i >= tt.n || k != 1 {
				t.Errorf("n=%d limit=%d: index %d ran %d times", tt.n, tt.limit, i, k)
			}
		}
		if tt.limit > 0 && most.Load() > int64(tt.limit) {
			t.Errorf("n=%d limit=%d: %d ran at once", tt.n, tt.limit, most.Load())
		}
		if running.Load() != 0 {
			t.Errorf("n=%d limit=%d: Each returned with %d still running", tt.n, tt.limit, running.Load())
		}
	}
}

// TestEachBoundsGoroutines: a thousand pieces of work start no more
// goroutines than the limit.
func TestEachBoundsGoroutines(t *testing.T) {
	var running, most atomic.Int64
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		Each(1000, 4, func(int) {
			now := running.Add(1)
			for {
				m := most.Load()
				if now <= m || most.CompareAndSwap(m, now) {
					break
				}
			}
			<-release
			running.Add(-1)
		})
		close(done)
	}()
	time.Sleep(20 * time.Millisecond)
	close(release)
	<-done
	if most.Load() != 4 {
		t.Errorf("%d ran at once, want exactly the limit of 4", most.Load())
	}
}
