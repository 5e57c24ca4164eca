package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// FollowInterval is how often the watcher checks that it still watches
// the data folder the path names, and that no file behind a link changed.
// Change events say nothing about either: an inotify watch follows a
// folder that is moved away (`mv new data`, a git checkout that replaces
// the folder) and never sees a link's target change.
const FollowInterval = 200 * time.Millisecond

// follower keeps a watcher on the folder a path names rather than on the
// folder it named at the start. It runs in one goroutine; its state is
// not shared.
type follower struct {
	w    *watcher
	root string // the data folder, absolute, as given
	// dir identifies the folder watched under root; nil while root is
	// missing.
	dir fs.FileInfo
	// targets fingerprints the file behind each link inside root, by the
	// link's path.
	targets map[string]fileStamp
	// lost is the problem shown while changes cannot be seen; "" when
	// all is watched.
	lost string
	// rewatch is set when the watcher reported an error: the next check
	// watches everything again.
	rewatch *atomic.Bool
}

// fileStamp is what changes when a file is rewritten or replaced.
type fileStamp struct {
	info fs.FileInfo
	size int64
	mod  time.Time
	err  bool
}

func stampOf(p string) fileStamp {
	info, err := os.Stat(p)
	if err != nil {
		return fileStamp{err: true}
	}
	return fileStamp{info: info, size: info.Size(), mod: info.ModTime()}
}

func (a fileStamp) same(b fileStamp) bool {
	if a.err || b.err {
		return a.err == b.err
	}
	return os.SameFile(a.info, b.info) && a.size == b.size && a.mod.Equal(b.mod)
}

func newFollower(w *watcher, root string) *follower {
	f := &follower{w: w, root: root, targets: map[string]fileStamp{}, rewatch: &atomic.Bool{}}
	if info, err := os.Stat(root); err == nil && info.IsDir() {
		f.dir = info
	}
	f.targets = f.scanLinks()
	return f
}

// run checks every interval until ctx ends, sending what it finds to out.
func (f *follower) run(ctx context.Context, interval time.Duration, out chan<- change) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, ch := range f.check() {
			select {
			case out <- ch:
			case <-ctx.Done():
				return
			}
		}
	}
}

// check compares the folder and the link targets with the last check.
func (f *follower) check() []change {
	name := filepath.Base(f.root) + "/"
	info, err := os.Stat(f.root)
	if err != nil || !info.IsDir() {
		if f.dir != nil || f.lost == "" {
			f.dir = nil
			what := "is gone"
			if err == nil {
				what = "is not a folder"
			}
			f.setLost(fmt.Sprintf("the data folder %s %s; serving the last good site until it is back", f.root, what))
			return []change{{Kind: everythingChanged, Name: name + " (gone)"}}
		}
		return nil
	}
	if f.dir == nil || !os.SameFile(f.dir, info) || f.rewatch.Swap(false) {
		replaced := f.dir != nil && !os.SameFile(f.dir, info)
		f.dir = info
		if err := f.w.rewatch(f.root); err != nil {
			f.dir = nil // try again on the next check
			f.setLost(fmt.Sprintf("cannot watch %s: %v", f.root, err))
			return nil
		}
		f.setLost("")
		f.targets = f.scanLinks()
		what := " (watched again)"
		if replaced {
			what = " (folder replaced)"
		}
		return []change{{Kind: everythingChanged, Name: name + what}}
	}
	var out []change
	now := f.scanLinks()
	for link, stamp := range now {
		if before, ok := f.targets[link]; !ok || !before.same(stamp) {
			if ch, ok := f.w.roots.classify(link); ok {
				out = append(out, ch)
			}
		}
	}
	for link := range f.targets {
		if _, ok := now[link]; !ok {
			if ch, ok := f.w.roots.classify(link); ok {
				out = append(out, ch)
			}
		}
	}
	f.targets = now
	return out
}

// setLost records the watch's state and says so once in the log and on
// the served pages.
func (f *follower) setLost(problem string) {
	if problem == f.lost {
		return
	}
	if problem == "" {
		f.w.warn("watching " + f.root + " again")
	} else {
		f.w.warn("watch lost: " + problem)
	}
	f.lost = problem
	if f.w.status != nil {
		f.w.status(problem)
	}
}

// scanLinks fingerprints the target of every link to a file inside the
// data folder (hidden folders excepted), and watches the target of every
// link to a folder: a watch on a link's path follows it to the folder,
// and names the events by the link's path.
func (f *follower) scanLinks() map[string]fileStamp {
	out := map[string]fileStamp{}
	_ = filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != f.root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink == 0 || ignored(d.Name()) {
			return nil
		}
		info, err := os.Stat(p)
		if err == nil && info.IsDir() {
			if !f.w.watching(p) {
				if err := f.w.fs.Add(p); err != nil {
					f.w.warn(fmt.Sprintf("watching %s: %v", p, err))
				}
			}
			return nil
		}
		out[p] = stampOf(p)
		return nil
	})
	return out
}

// watching reports whether p is watched already.
func (w *watcher) watching(p string) bool {
	for _, q := range w.fs.WatchList() {
		if q == p {
			return true
		}
	}
	return false
}

// rewatch drops every watch under root, which may still follow a folder
// that was moved away, and watches the folder root names now.
func (w *watcher) rewatch(root string) error {
	for _, p := range w.fs.WatchList() {
		if _, in := within(root, p); in {
			// The folder may be gone already; its watch went with it.
			if err := w.fs.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.warn(fmt.Sprintf("unwatching %s: %v", p, err))
			}
		}
	}
	return w.addTree(root)
}
