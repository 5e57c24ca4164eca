// Package parallel runs independent pieces of work side by side on a
// bounded number of goroutines, all of them owned by the caller: Each
// returns only once every goroutine it started has returned.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls work(i) for every i in [0, n), on at most limit goroutines
// at once (GOMAXPROCS when limit is 0 or less), and returns when every
// call has returned. Calls take indices in increasing order, so the
// first pieces start first; work must be safe to run concurrently.
func Each(n, limit int, work func(i int)) {
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	if n <= 1 || limit == 1 {
		for i := range n {
			work(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(limit, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				work(i)
			}
		})
	}
	wg.Wait()
}
