package publish

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// MarkerName is the file releasegate keeps at the top of every folder it
// writes whole (a site, an evaluate --all output): the SHA-256 and path
// of every file it wrote there, in sha256sum format. A folder is
// releasegate's to replace only when every file in it is listed there
// with that content (docs/ownership.md).
const MarkerName = ".releasegate-owned"

// markerTemp is where a new marker is written before it is renamed over
// the old one; the exact name is releasegate's, so a kill leaving it
// behind does not make the folder foreign.
const markerTemp = MarkerName + ".new"

// markerHeader is the first line of a marker.
const markerHeader = "# releasegate wrote the files below; it replaces or deletes nothing else in this folder (docs/ownership.md)\n"

// manifest maps the slash path of every file releasegate wrote in a
// folder to the SHA-256 it may have. During an in-place replacement a
// path may have two: the old content and the new.
type manifest map[string][]string

// encode writes m as a marker: the header, then one line per file and
// content, sorted, so the same files give the same marker.
func (m manifest) encode() []byte {
	var b bytes.Buffer
	b.WriteString(markerHeader)
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range m {
			if !yield(p) {
				return
			}
		}
	}) {
		sums := slices.Clone(m[p])
		slices.Sort(sums)
		for _, s := range slices.Compact(sums) {
			fmt.Fprintf(&b, "%s  %s\n", s, p)
		}
	}
	return b.Bytes()
}

// add records that path may hold content with the SHA-256 sum.
func (m manifest) add(path, sum string) {
	if !slices.Contains(m[path], sum) {
		m[path] = append(m[path], sum)
	}
}

// readMarker reads the marker at the top of dir; found is false when
// there is none.
func readMarker(dir string) (m manifest, found bool, err error) {
	f, err := os.Open(filepath.Join(dir, MarkerName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s: not a regular file", filepath.Join(dir, MarkerName))
	}
	m = manifest{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		sum, path, ok := strings.Cut(text, "  ")
		if !ok || len(sum) != 64 || !isHex(sum) || !filepath.IsLocal(filepath.FromSlash(path)) {
			return nil, true, fmt.Errorf("%s:%d: not a line of releasegate's list of its files; empty the folder yourself, or write elsewhere", filepath.Join(dir, MarkerName), line)
		}
		m.add(path, sum)
	}
	if err := sc.Err(); err != nil {
		return nil, true, fmt.Errorf("%s: %v", filepath.Join(dir, MarkerName), err)
	}
	return m, true, nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// NotOwnedError refuses a folder that releasegate cannot prove is wholly
// its own: it is not empty, and not every file in it is one releasegate
// wrote, unchanged.
type NotOwnedError struct {
	Dir     string
	Foreign []string // up to a few entries releasegate did not write
	More    int      // how many more there are
	// Earlier is set when the folder has no marker but looks like a site
	// of a releasegate from before the marker.
	Earlier bool
}

func (e *NotOwnedError) Error() string {
	if e.Earlier {
		return fmt.Sprintf("refusing to replace %s: it looks like a site from an earlier releasegate, which kept no list of the files it wrote, so they cannot be told from yours. "+
			"Check it holds nothing you need, empty it yourself (for example: rm -r %s), and run again; or write to another folder with --out", e.Dir, e.Dir)
	}
	names := strings.Join(e.Foreign, ", ")
	if e.More > 0 {
		names += fmt.Sprintf(" and %d more", e.More)
	}
	return fmt.Sprintf("refusing to write to %s: it is not empty and holds what releasegate did not write (%s). "+
		"Write to another folder with --out, or empty this one yourself", e.Dir, names)
}

// earlierNames are the top-level entries of the sites and evaluate --all
// folders releasegate wrote before it kept a marker: a folder holding
// only these is told it looks like one.
var earlierNames = []string{".nojekyll", "404.html", "RELEASE_REPORT.md", "assets", "cases", "cases.html", "compare.html",
	"data", "handoff.html", "index.html", "policy.html", "report.html", "results", "snapshots"}

// shownForeign is how many foreign entries a NotOwnedError names.
const shownForeign = 5

// checkOwned proves dest is releasegate's to replace: missing, an empty
// folder, or a folder whose every file is listed in its marker with the
// content found there. It returns the SHA-256 of every file found.
func checkOwned(dest string) (map[string]string, error) { return checkOwnedHow(dest, true) }

// CheckOwned refuses dest, as NewTree would, unless it is missing, empty
// or wholly releasegate's by its marker; it goes by the names the marker
// lists, without reading the files, so that a command can refuse at once
// before long work (NewTree checks their content too).
func CheckOwned(dest string) error {
	_, err := checkOwnedHow(dest, false)
	return err
}

func checkOwnedHow(dest string, content bool) (map[string]string, error) {
	info, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		// Swapping would put a folder where a file or link was, and then
		// delete that file as the old content.
		return nil, fmt.Errorf("write: %s is not a folder; give a folder to write the release to", dest)
	}
	entries, err := os.ReadDir(dest)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return map[string]string{}, nil
	}
	m, found, err := readMarker(dest)
	if err != nil {
		return nil, err
	}
	if !found {
		e := &NotOwnedError{Dir: dest}
		siteLike, other := false, false
		for _, entry := range entries {
			switch entry.Name() {
			case "index.html", "RELEASE_REPORT.md", "results":
				siteLike = true
			}
			if !slices.Contains(earlierNames, entry.Name()) {
				other = true
			}
			e.note(entry.Name())
		}
		e.Earlier = siteLike && !other
		return nil, e
	}
	sums, foreign := verifyOwned(dest, m, content)
	if len(foreign) > 0 {
		e := &NotOwnedError{Dir: dest}
		for _, f := range foreign {
			e.note(f)
		}
		return nil, e
	}
	return sums, nil
}

func (e *NotOwnedError) note(name string) {
	if len(e.Foreign) < shownForeign {
		e.Foreign = append(e.Foreign, name)
	} else {
		e.More++
	}
}

// verifyOwned walks dir and returns the SHA-256 of every file m lists
// with that content (when content is set; else it goes by names), and the slash paths of every other entry: files not
// listed or changed since, links, devices. Folders are releasegate's when
// everything in them is.
func verifyOwned(dir string, m manifest, content bool) (sums map[string]string, foreign []string) {
	sums = map[string]string{}
	var listedFiles []listedFile
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		slash := filepath.ToSlash(rel)
		if err != nil {
			foreign = append(foreign, slash)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case path == dir:
			return nil
		case d.IsDir():
			return nil
		case slash == MarkerName || slash == markerTemp:
			if !d.Type().IsRegular() {
				foreign = append(foreign, slash)
			}
			return nil
		case !d.Type().IsRegular():
			foreign = append(foreign, slash)
			return nil
		}
		want, listed := m[slash]
		if !listed {
			foreign = append(foreign, slash)
			return nil
		}
		if content {
			listedFiles = append(listedFiles, listedFile{slash, path, want})
		}
		return nil
	})
	// Reading and hashing a site of tens of thousands of files waits on
	// the disk; several readers overlap the waits.
	got := make([]string, len(listedFiles))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(hashers, len(listedFiles)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(listedFiles) {
					return
				}
				if sum, err := HashFile(listedFiles[i].path); err == nil && slices.Contains(listedFiles[i].want, sum) {
					got[i] = sum
				}
			}
		})
	}
	wg.Wait()
	for i, f := range listedFiles {
		if got[i] == "" {
			foreign = append(foreign, f.slash+" (changed since releasegate wrote it)")
			continue
		}
		sums[f.slash] = got[i]
	}
	return sums, foreign
}

// hashers is how many goroutines read and hash the files of a folder.
const hashers = 4

// listedFile is a file found in a folder that its marker lists.
type listedFile struct {
	slash, path string
	want        []string
}

// HashFile returns the hex SHA-256 of the regular file at path.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// removeOwned deletes from dir the files of sums (slash path to the
// SHA-256 they were found with), then the folders left empty, the marker
// and dir itself when nothing else is left. What releasegate did not
// write stays where it is. When recheck is set each file is hashed again
// first: the list was not made by this run.
func removeOwned(dir string, sums map[string]string, recheck bool) {
	for p, sum := range sums {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if recheck {
			if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
				continue
			}
			if got, err := HashFile(path); err != nil || got != sum {
				continue
			}
		}
		os.Remove(path)
	}
	os.Remove(filepath.Join(dir, markerTemp))
	removeEmptyFolders(dir, dir)
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) == 1 && entries[0].Name() == MarkerName {
		os.Remove(filepath.Join(dir, MarkerName))
	}
	os.Remove(dir) // only when empty
}

// removeEmptyFolders removes every folder below dir (not top) left
// empty, deepest first.
func removeEmptyFolders(dir, top string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeEmptyFolders(filepath.Join(dir, e.Name()), top)
		}
	}
	if dir != top {
		os.Remove(dir) // fails, as it should, when anything is left
	}
}

// removeOwnedFolder deletes what dir's own marker proves releasegate
// wrote there, checking every file's content first.
func removeOwnedFolder(dir string) {
	m, found, err := readMarker(dir)
	if err != nil || !found {
		return
	}
	sums, _ := verifyOwned(dir, m, true)
	removeOwned(dir, sums, true)
}

// writeMarker writes m as dir's marker, through a temporary file of a
// name the marker itself covers.
func writeMarker(dir string, m manifest) error {
	tmp := filepath.Join(dir, markerTemp)
	if err := os.WriteFile(tmp, m.encode(), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, MarkerName))
}
