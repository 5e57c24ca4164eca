package publish

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
//
// A stage is named prefix followed by a random suffix of suffixLen hex
// digits, and holds a file stageMarker that repeats its name: only a
// folder with both is ever swept as a stage, so a folder or file that
// merely starts with the prefix (.public.old-backup) is never touched.
type Stage struct {
	Dir  string
	lock *os.File // the open folder, holding the lock
}

// stageMarker is the file inside a stage that says releasegate made it.
const stageMarker = ".releasegate-stage"

// suffixLen is the length of a stage's random suffix.
const suffixLen = 16

// NewStage sweeps the abandoned stages named prefix* in parent and makes
// a new one there.
func NewStage(parent, prefix string) (*Stage, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	Sweep(parent, prefix)
	return newStageNamed(parent, prefix, randomSuffix())
}

// randomSuffix returns suffixLen random hex digits.
func randomSuffix() string {
	var b [suffixLen / 2]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newStageNamed makes the stage prefix+suffix in parent.
func newStageNamed(parent, prefix, suffix string) (*Stage, error) {
	dir := filepath.Join(parent, prefix+suffix)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	s, err := lockStage(dir)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, stageMarker), []byte(filepath.Base(dir)+"\n"), 0o644); err != nil {
		s.Remove()
		return nil, err
	}
	return s, nil
}

// lockStage locks the new folder dir and makes sure it is still the one
// at that path.
func lockStage(dir string) (*Stage, error) {
	f, err := os.Open(dir)
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
		return nil, fmt.Errorf("write: the staging folder %s changed while being made", dir)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		f.Close()
		os.Remove(dir)
		return nil, err
	}
	return &Stage{Dir: dir, lock: f}, nil
}

// Remove deletes the stage and gives up its lock.
func (s *Stage) Remove() error {
	err := removeTreeLast(s.Dir, stageMarker)
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

// Sweep removes the stages named prefix* in parent that no running
// process holds: left by runs that were killed. Only what releasegate
// provably made goes: a stage with its marker is removed whole; a folder
// of the stage's name holding a site marker loses the files that marker
// lists, unchanged, and nothing else. It is best effort; what cannot be
// removed stays for the next sweep.
func Sweep(parent, prefix string) {
	for _, path := range abandoned(parent, prefix) {
		switch {
		case isStage(path):
			removeTreeLast(path, stageMarker)
			continue
		case isUnfinished(path):
			// Made by a run killed before it finished writing the
			// marker: a folder of a stage's exact name holding nothing
			// but the start of its marker holds nothing to lose.
			os.Remove(filepath.Join(path, stageMarker))
			os.Remove(path)
			continue
		}
		removeOwnedFolder(path)
	}
}

// isStage reports whether the folder at path holds the marker of a stage
// of that very name.
func isStage(path string) bool {
	b, err := os.ReadFile(filepath.Join(path, stageMarker))
	return err == nil && string(b) == filepath.Base(path)+"\n"
}

// isOurName reports whether name is prefix followed by a suffix as
// NewStage makes them.
func isOurName(name, prefix string) bool {
	suffix, ok := strings.CutPrefix(name, prefix)
	return ok && len(suffix) == suffixLen && isHex(suffix)
}

// abandoned lists the folders of parent named prefix and a stage suffix,
// whose lock is free and which hold a stage marker or a site marker, or
// nothing but the start of a stage marker.
func abandoned(parent, prefix string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var paths []string
	for _, e := range entries {
		if !e.IsDir() || !isOurName(e.Name(), prefix) {
			continue // a link or file is never a stage
		}
		path := filepath.Join(parent, e.Name())
		if !isStage(path) && !isUnfinished(path) {
			if _, err := os.Lstat(filepath.Join(path, MarkerName)); errors.Is(err, fs.ErrNotExist) {
				continue
			}
		}
		if free(path) {
			paths = append(paths, path)
		}
	}
	return paths
}

// isUnfinished reports whether the folder at path holds nothing but, at
// most, the first bytes of the marker of a stage of that name: what a run
// leaves when it is killed between making the folder and finishing the
// marker.
func isUnfinished(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(2)
	f.Close()
	switch {
	case len(names) == 0:
		return err == io.EOF
	case len(names) == 1 && names[0] == stageMarker:
		b, err := os.ReadFile(filepath.Join(path, stageMarker))
		return err == nil && strings.HasPrefix(filepath.Base(path)+"\n", string(b))
	}
	return false
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
