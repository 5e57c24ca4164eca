package serve

import (
	"context"
	"time"
)

// DefaultDebounce is how long the files must stay quiet before a rebuild
// starts. One save gives several events (truncate, write, rename, chmod);
// 75 ms covers an editor's save and is short enough to feel instant.
const DefaultDebounce = 75 * time.Millisecond

// rebuildLoop collects changes and runs builds: a trailing debounce, one
// build at a time, and changes that arrive during a build cause exactly
// one more build once it ends. It is the only goroutine that starts
// builds, so the builder's state is never shared.
type rebuildLoop struct {
	debounce time.Duration
	build    func(changeSet)
}

// run consumes changes until ctx is done, waiting for a running build to
// finish before it returns.
func (l *rebuildLoop) run(ctx context.Context, changes <-chan change) {
	var pending changeSet
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	defer quiet.Stop()
	finished := make(chan struct{})
	building := false
	due := false // the files went quiet while a build was running

	start := func() {
		batch := pending
		pending = changeSet{}
		building, due = true, false
		go func() {
			l.build(batch)
			finished <- struct{}{}
		}()
	}
	for {
		select {
		case <-ctx.Done():
			if building {
				<-finished
			}
			return
		case ch, ok := <-changes:
			if !ok {
				changes = nil // no more events; keep serving until ctx ends
				continue
			}
			pending.Add(ch)
			quiet.Reset(l.debounce)
		case <-quiet.C:
			if building {
				due = true
			} else if !pending.Empty() {
				start()
			}
		case <-finished:
			building = false
			if due && !pending.Empty() {
				start()
			}
		}
	}
}
