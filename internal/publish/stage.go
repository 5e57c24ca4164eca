package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stage is a scratch folder that a run owns for as long as it lives: it
// holds an exclusive lock on the folder, which the system drops when the
// process ends in any way, SIGKILL included. A stage whose lock is free
// was left by a run that is gone, and the next run removes it; a stage
// still locked belongs to a run in progress and is left alone.
type Stage struct {
	Dir  string
	lock *os.File // the open folder, holding the lock
}

// NewStage sweeps the abandoned stages named prefix* in parent and makes
// a new one there.
func NewStage(parent, prefix string) (*Stage, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	Sweep(parent, prefix)
	for range 3 {
		dir, err := os.MkdirTemp(parent, prefix+"*")
		if err != nil {
			return nil, err
		}
		s, err := lockStage(dir)
		if errors.Is(err, errSwept) {
			continue // a sweep in another run took it before it was locked
		}
		return s, err
	}
	return nil, fmt.Errorf("write: cannot make a staging folder in %s: it keeps disappearing", parent)
}

var errSwept = errors.New("staging folder removed while being made")

// lockStage locks the new folder dir and makes sure it is still the one
// at that path: another run's sweep may have removed it in between.
func lockStage(dir string) (*Stage, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errSwept
	}
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	if err := lockFile(f, true); err != nil {
		f.Close()
		os.Remove(dir)
		return nil, err
	}
	held, err1 := f.Stat()
	there, err2 := os.Stat(dir)
	if err1 != nil || err2 != nil || !os.SameFile(held, there) {
		f.Close()
		return nil, errSwept
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		f.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	return &Stage{Dir: dir, lock: f}, nil
}

// Remove deletes the stage and gives up its lock.
func (s *Stage) Remove() error {
	err := removeTree(s.Dir)
	s.unlock()
	return err
}

// unlock gives up the lock, leaving the folder where it is.
func (s *Stage) unlock() {
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}

// Sweep removes every entry of parent named prefix* that no running
// process holds: folders and files left by runs that were killed. It is
// best effort; what cannot be removed stays for the next sweep.
func Sweep(parent, prefix string) {
	for _, path := range abandoned(parent, prefix) {
		os.RemoveAll(path)
	}
}

// abandoned lists the entries of parent named prefix* whose lock is free.
func abandoned(parent, prefix string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(parent, e.Name())
		if free(path) {
			paths = append(paths, path)
		}
	}
	return paths
}

// free reports whether no running process holds the entry at path.
func free(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return lockFile(f, false) == nil // closing f releases the lock again
}
