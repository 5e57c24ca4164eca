package bundle

import (
	"archive/zip"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator/load"
)

// RefusedError says why an archive was not extracted: it is not a zip
// file, not shaped like a bundle, or unsafe to unpack (zip slip, zip
// bomb). Nothing of it is left on disk.
type RefusedError struct {
	Archive string
	Entry   string // the offending entry, or "" when about the whole archive
	Reason  string
}

func (e *RefusedError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("%s: refused: %s", e.Archive, e.Reason)
	}
	return fmt.Sprintf("%s: refused: entry %q: %s", e.Archive, clip(e.Entry), e.Reason)
}

// Extracted is a bundle unpacked on disk.
type Extracted struct {
	Dir  string // the top folder on disk
	Root string // its name, e.g. releasegate-ER-2026.10-3fa2c1d9
	// Sums are the SHA-256 of every file, MANIFEST included, by slash path
	// relative to the top folder, computed while unpacking.
	Sums map[string]string
	// Budget is the most bytes the extraction may write, set from the
	// sizes the central directory declares before anything is written,
	// within the limits and what the compressed data can expand to.
	Budget int64
}

// directoryBudget bounds the bytes read while parsing the central
// directory, per allowed entry: bundle names are well under 200 bytes, and
// a directory that is larger only inflates memory.
const directoryBudget = 256

// maxNameLen bounds one entry name.
const maxNameLen = 512

// Extract unpacks the bundle archive into dest, which must be missing or
// an empty folder, and returns where its top folder is. Every entry is
// checked before anything is written: names must stay inside the top
// folder, entries must be regular files, and sizes must stay within
// limits (zero fields take DefaultLimits). While unpacking, no entry may
// expand beyond its declared size or fail its checksum. On any error
// dest is left as it was found.
func Extract(archive, dest string, limits Limits) (*Extracted, error) {
	return extract(context.Background(), archive, dest, limits)
}

// extract is Extract, stopping between entries once ctx is done; what it
// wrote is then removed as on any error.
func extract(ctx context.Context, archive, dest string, limits Limits) (*Extracted, error) {
	limits = limits.withDefaults()
	f, err := load.OpenNamed(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &RefusedError{Archive: archive, Reason: "not a regular file"}
	}
	zr, err := openZip(archive, f, st.Size(), limits)
	if err != nil {
		return nil, err
	}
	root, budget, err := checkEntries(archive, zr.File, limits)
	if err != nil {
		return nil, err
	}
	if err := checkLayout(archive, f, st.Size(), zr.File); err != nil {
		return nil, err
	}
	created, err := prepareDest(dest)
	if err != nil {
		return nil, err
	}
	x := &Extracted{Dir: filepath.Join(dest, root), Root: root, Sums: make(map[string]string, len(zr.File)), Budget: budget}
	if err := unpack(ctx, archive, zr.File, x, limits); err != nil {
		os.RemoveAll(x.Dir)
		if created {
			os.Remove(dest)
		}
		return nil, err
	}
	return x, nil
}

// openZip parses the central directory within a read budget, so that a
// directory of millions of tiny records cannot exhaust memory.
func openZip(archive string, r io.ReaderAt, size int64, limits Limits) (*zip.Reader, error) {
	budget := &budgetReaderAt{r: r, left: 64<<10 + int64(limits.MaxEntries)*directoryBudget}
	zr, err := zip.NewReader(budget, size)
	switch {
	case errors.Is(err, errBudget):
		return nil, &RefusedError{Archive: archive, Reason: fmt.Sprintf("central directory too large for %d entries", limits.MaxEntries)}
	case errors.Is(err, zip.ErrInsecurePath):
		// Names are checked below, with a reason per entry.
	case err != nil:
		return nil, &RefusedError{Archive: archive, Reason: "not a readable zip archive: " + err.Error()}
	}
	budget.left = -1 // unlimited from here: entry data is bounded by the size limits
	return zr, nil
}

var errBudget = errors.New("read budget exhausted")

type budgetReaderAt struct {
	r    io.ReaderAt
	left int64 // bytes still allowed; negative means unlimited
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left >= 0 {
		if int64(len(p)) > b.left {
			return 0, errBudget
		}
		b.left -= int64(len(p))
	}
	return b.r.ReadAt(p, off)
}

// checkEntries refuses an archive that is not safe to unpack or not shaped
// like a bundle, before anything is written, and returns its top folder
// and the bytes its files declare in total.
func checkEntries(archive string, files []*zip.File, limits Limits) (string, int64, error) {
	c := &entryChecker{
		archive: archive,
		limits:  limits,
		seen:    make(map[string]string, len(files)),
		isFile:  make(map[string]bool, len(files)),
		isDir:   map[string]bool{},
	}
	if len(files) == 0 {
		return "", 0, c.refuse("", "empty archive")
	}
	if len(files) > limits.MaxEntries {
		return "", 0, c.refuse("", "%d entries, more than the limit of %d", len(files), limits.MaxEntries)
	}
	for _, zf := range files {
		if err := c.check(zf); err != nil {
			return "", 0, err
		}
	}
	if err := c.checkTree(); err != nil {
		return "", 0, err
	}
	return c.root, int64(c.total), nil
}

// entryChecker is what checkEntries has learnt from the entries so far.
type entryChecker struct {
	archive string
	limits  Limits
	root    string            // the top folder, from the first entry
	seen    map[string]string // case-folded name -> name, of files
	isFile  map[string]bool   // names below the top folder
	isDir   map[string]bool
	total   uint64 // bytes the files declare
}

// refuse is the error that refuses the archive for entry.
func (c *entryChecker) refuse(entry, format string, args ...any) error {
	return &RefusedError{Archive: c.archive, Entry: entry, Reason: fmt.Sprintf(format, args...)}
}

// check refuses one entry that is unsafe or out of place, and notes it.
func (c *entryChecker) check(zf *zip.File) error {
	name := zf.Name
	if len(name) > maxNameLen {
		return c.refuse(name, "name longer than %d bytes", maxNameLen)
	}
	dir := strings.HasSuffix(name, "/")
	clean := strings.TrimSuffix(name, "/")
	if why := checkPath(clean); why != "" {
		return c.refuse(name, "%s", why)
	}
	rest, nested, err := c.checkPlace(zf, clean, dir)
	if err != nil {
		return err
	}
	if err := c.checkMode(zf, dir); err != nil {
		return err
	}
	if dir {
		if zf.UncompressedSize64 != 0 {
			return c.refuse(name, "folder entry with content")
		}
		if nested {
			c.isDir[rest] = true
		}
		return nil
	}
	return c.checkFile(zf, rest)
}

// checkPlace refuses an entry outside the top folder, or a file beside it,
// or an encrypted one; rest is the name below the top folder.
func (c *entryChecker) checkPlace(zf *zip.File, clean string, dir bool) (rest string, nested bool, err error) {
	name := zf.Name
	top, rest, nested := strings.Cut(clean, "/")
	if c.root == "" {
		c.root = top
	}
	switch {
	case top != c.root:
		return "", false, c.refuse(name, "outside the bundle's top folder %s/", c.root)
	case !nested && !dir:
		return "", false, c.refuse(name, "a file beside the top folder; a bundle keeps every file inside it")
	case zf.Flags&0x1 != 0:
		return "", false, c.refuse(name, "encrypted")
	}
	return rest, nested, nil
}

// checkMode refuses links, and modes other than a plain file or folder:
// unpacking them could write outside the destination or change rights.
func (c *entryChecker) checkMode(zf *zip.File, dir bool) error {
	mode := zf.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return c.refuse(zf.Name, "symbolic link")
	case mode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0,
		dir && !mode.IsDir(), !dir && !mode.IsRegular():
		return c.refuse(zf.Name, "unusual file mode %v", mode)
	}
	return nil
}

// checkFile refuses a file that is compressed in a way bundles do not use,
// that clashes with another on a case-insensitive disk, or that is too
// large, alone or with the others.
func (c *entryChecker) checkFile(zf *zip.File, rest string) error {
	name := zf.Name
	if zf.Method != zip.Store && zf.Method != zip.Deflate {
		return c.refuse(name, "compression method %d; bundles use Store or Deflate", zf.Method)
	}
	folded := strings.ToLower(rest)
	if prev, dup := c.seen[folded]; dup {
		if prev == rest {
			return c.refuse(name, "duplicate entry")
		}
		return c.refuse(name, "same name as %q on a case-insensitive disk", prev)
	}
	c.seen[folded] = rest
	c.isFile[rest] = true
	return c.checkSize(zf)
}

// checkSize refuses a file larger than the limits allow, compressed like
// a zip bomb, or that takes the archive over its total.
func (c *entryChecker) checkSize(zf *zip.File) error {
	name, limits := zf.Name, c.limits
	size := zf.UncompressedSize64
	if size > uint64(limits.MaxFileSize) {
		return c.refuse(name, "expands to %d bytes, more than the limit of %d per file", size, limits.MaxFileSize)
	}
	if size >= ratioFloor && size/uint64(limits.MaxRatio) > zf.CompressedSize64 { // divided: a hostile size must not overflow
		return c.refuse(name, "compressed more than %d to 1 (%d bytes from %d); refusing a likely zip bomb", limits.MaxRatio, size, zf.CompressedSize64)
	}
	c.total += size
	if c.total > uint64(limits.MaxTotalSize) {
		return c.refuse(name, "the archive expands to more than the limit of %d bytes in total", limits.MaxTotalSize)
	}
	return nil
}

// checkTree refuses a file that is also a folder, or a parent folder of
// another entry: it cannot be unpacked; say so before writing anything.
func (c *entryChecker) checkTree() error {
	root := c.root
	for _, p := range slices.Sorted(maps.Keys(c.isDir)) {
		if c.isFile[p] {
			return c.refuse(root+"/"+p+"/", "a folder with the same name as a file")
		}
	}
	for _, p := range slices.Sorted(maps.Keys(c.isFile)) {
		for dir := p; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			dir = dir[:i]
			if c.isFile[dir] {
				return c.refuse(root+"/"+p, "inside %s/%s, which is a file", root, dir)
			}
		}
	}
	return nil
}

// prepareDest makes sure dest exists and is empty; created says whether
// Extract made it.
func prepareDest(dest string) (created bool, err error) {
	entries, err := os.ReadDir(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, os.MkdirAll(dest, 0o755)
	case err != nil:
		return false, err
	case len(entries) > 0:
		return false, fmt.Errorf("%s: not empty; extract a bundle into a new folder", dest)
	}
	return false, nil
}

// unpack writes every file, never trusting the declared sizes: each entry
// is read through a limit one byte past its declared size.
func unpack(ctx context.Context, archive string, files []*zip.File, x *Extracted, limits Limits) error {
	dest := filepath.Dir(x.Dir)
	var total int64
	for _, zf := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(zf.Name, x.Root+"/"), "/")
		if strings.HasSuffix(zf.Name, "/") {
			if zf.Name == x.Root+"/" {
				continue
			}
			if err := os.MkdirAll(filepath.Join(x.Dir, filepath.FromSlash(rel)), 0o755); err != nil {
				return err
			}
			continue
		}
		path := filepath.Join(x.Dir, filepath.FromSlash(rel))
		if r, err := filepath.Rel(dest, path); err != nil || !filepath.IsLocal(r) {
			return &RefusedError{Archive: archive, Entry: zf.Name, Reason: "path leaves the extraction folder"} // unreachable after checkPath
		}
		n, sum, err := unpackFile(archive, zf, path, x.Budget-total)
		if err != nil {
			return err
		}
		total += n
		x.Sums[rel] = sum
	}
	return nil
}

// unpackFile writes one entry to path and returns its size and SHA-256.
// It decompresses the raw data itself so every limit is its own, with a
// clear message.
func unpackFile(archive string, zf *zip.File, path string, totalLeft int64) (int64, string, error) {
	refuse := func(format string, args ...any) error {
		return &RefusedError{Archive: archive, Entry: zf.Name, Reason: fmt.Sprintf(format, args...)}
	}
	raw, err := zf.OpenRaw()
	if err != nil {
		return 0, "", refuse("unreadable: %v", err)
	}
	var data io.Reader = raw
	if zf.Method == zip.Deflate {
		fr := flate.NewReader(raw)
		defer fr.Close()
		data = fr
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, "", err
	}
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, "", err
	}
	declared := int64(zf.UncompressedSize64)
	sha, crc := sha256.New(), crc32.NewIEEE()
	n, err := io.Copy(io.MultiWriter(out, sha, crc), io.LimitReader(data, declared+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		var pe *os.PathError
		if errors.As(err, &pe) {
			return 0, "", err
		}
		return 0, "", refuse("damaged compressed data: %v", err)
	case n > declared:
		return 0, "", refuse("expands beyond its declared size of %d bytes; refusing a likely zip bomb", declared)
	case n > totalLeft:
		return 0, "", refuse("the archive expands beyond the total size limit")
	case n < declared:
		return 0, "", refuse("holds %d bytes, not the %d declared (truncated or damaged)", n, declared)
	case crc.Sum32() != zf.CRC32:
		return 0, "", refuse("CRC-32 mismatch (damaged)")
	}
	return n, hex.EncodeToString(sha.Sum(nil)), nil
}
