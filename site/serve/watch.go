package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// watcher turns file system events under the roots into classified
// changes. It watches folders, never single files: editors and sed -i
// save by writing a temporary file and renaming it over the original,
// which silently ends a watch on the original file.
type watcher struct {
	roots watchRoots
	fs    *fsnotify.Watcher
	warn  func(string) // problems worth a log line, e.g. a folder that cannot be watched
	// status, when set, hears whether changes can be seen: a problem
	// while they cannot (the data folder is gone), "" once they can again.
	status func(problem string)
	// follow checks that the data folder is still the one watched.
	follow *follower
}

// newWatcher watches every folder under dirs (hidden folders excepted).
func newWatcher(roots watchRoots, dirs []string, warn func(string)) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watching for changes: %w", err)
	}
	w := &watcher{roots: roots, fs: fw, warn: warn}
	for _, d := range dirs {
		if err := w.addTree(d); err != nil {
			fw.Close()
			return nil, err
		}
	}
	w.follow = newFollower(w, roots.Data)
	return w, nil
}

// addTree watches dir and every folder below it.
func (w *watcher) addTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // vanished while walking; its removal has its own event
			}
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.fs.Add(p); err != nil {
			return fmt.Errorf("watching %s: %w", p, err)
		}
		return nil
	})
}

// run sends the changes it sees to out until ctx is done, then closes the
// underlying watcher. It returns once nothing more will be sent.
func (w *watcher) run(ctx context.Context, out chan<- change) {
	defer w.fs.Close()
	ctx, cancel := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		w.follow.run(ctx, FollowInterval, out)
	}()
	defer func() {
		cancel()
		<-followed
	}()
	warn := func(s string) {
		// After an error the watch may have missed a folder: the next
		// check watches everything again.
		w.follow.rewatch.Store(true)
		w.warn(s)
	}
	translate(ctx, w.fs.Events, w.fs.Errors, w.event, warn, out)
}

// event classifies one event, first watching a folder that just appeared:
// a new folder is not watched until added.
func (w *watcher) event(ev fsnotify.Event) (change, bool) {
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			if err := w.addTree(ev.Name); err != nil {
				w.warn(err.Error())
			}
		}
	}
	return w.roots.classify(filepath.Clean(ev.Name))
}

// translate is the watcher's loop without the file system, so that tests
// can feed it events and errors. Chmod-only events are dropped: they come
// from indexers and backup tools, and on Linux with every unlink. An
// overflow means events were lost, so everything is rebuilt.
func translate(ctx context.Context, events <-chan fsnotify.Event, errs <-chan error,
	classify func(fsnotify.Event) (change, bool), warn func(string), out chan<- change) {
	for {
		var ch change
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			if !ev.Has(fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename) {
				continue
			}
			c, matters := classify(ev)
			if !matters {
				continue
			}
			ch = c
		case err, ok := <-errs:
			if !ok {
				return
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				warn("watching for changes: " + err.Error())
				continue
			}
			ch = change{Kind: everythingChanged, Name: "all files: change events were lost"}
		}
		select {
		case out <- ch:
		case <-ctx.Done():
			return
		}
	}
}
