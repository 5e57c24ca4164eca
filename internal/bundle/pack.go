package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PackOptions tune Pack.
type PackOptions struct {
	// Version is the policy version ("ER-2026.10") the bundle is named
	// after.
	Version string
	// Modified is the time every entry carries; zero means the first day
	// of Version's month. See ModTime.
	Modified time.Time
}

// Packed describes a written bundle.
type Packed struct {
	Root       string // the top folder, e.g. releasegate-ER-2026.10-3fa2c1d9
	InputsHash string // the short hash in Root
	Files      int    // entries, MANIFEST included
	Bytes      int64  // size of the archive
}

// packedFile is one file ready to be written: compressed once, so the
// tree is read only once and MANIFEST can be written before the files.
type packedFile struct {
	path       string
	method     uint16
	crc        uint32
	size       uint64
	compressed []byte
}

// Pack writes to w a bundle of every file in files, which holds the tree
// below the top folder (the site, results/, RELEASE_REPORT.md and inputs/)
// without MANIFEST; Pack adds MANIFEST. The output depends only on the
// files' paths and bytes and on opts.
func Pack(w io.Writer, files fs.FS, opts PackOptions) (*Packed, error) {
	if checkPath(opts.Version) != "" || strings.Contains(opts.Version, "/") {
		return nil, fmt.Errorf("bundle: policy version %q cannot name a folder", opts.Version)
	}
	paths, err := regularFiles(files)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, InputsDir+"/") }) {
		return nil, errors.New("bundle: no inputs/ folder to bundle")
	}
	// Two passes, so memory holds one file at a time: the first hashes
	// every file for MANIFEST, which the second writes in its sorted
	// place among the compressed files.
	sums := make([]fileSum, 0, len(paths))
	for _, p := range paths {
		data, err := fs.ReadFile(files, p)
		if err != nil {
			return nil, fmt.Errorf("bundle: %w", err)
		}
		sums = append(sums, fileSum{Path: p, Sum: sumHex(data)})
	}
	manifest := encodeManifest(sums)
	order := append(slices.Clone(paths), ManifestName)
	slices.Sort(order)

	hash := inputsHash(sums)
	root := RootName(opts.Version, hash)
	modified := opts.Modified
	if modified.IsZero() {
		modified = ModTime(opts.Version)
	}
	dosDate, dosTime := msDosTime(modified)
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	c := newCompressor()
	for _, p := range order {
		data := manifest
		if p != ManifestName {
			var err error
			if data, err = fs.ReadFile(files, p); err != nil {
				return nil, fmt.Errorf("bundle: %w", err)
			}
		}
		e := c.pack(p, data)
		// The MS-DOS time fields, not Modified: Modified also writes an
		// extended-timestamp extra field, and entries carry none so that
		// archives stay byte-identical (docs/bundles.md).
		h := &zip.FileHeader{
			Name:               root + "/" + e.path,
			Method:             e.method,
			CRC32:              e.crc,
			CompressedSize64:   uint64(len(e.compressed)),
			UncompressedSize64: e.size,
			//lint:ignore SA1019 Modified would add an extra field
			ModifiedDate: dosDate,
			//lint:ignore SA1019 Modified would add an extra field
			ModifiedTime: dosTime,
		}
		h.SetMode(0o644)
		// CreateRaw writes the versions as given: made on Unix by zip 2.0,
		// and 2.0 needed to extract, the version that brought Deflate.
		h.CreatorVersion = h.CreatorVersion&0xff00 | zipVersion20
		h.ReaderVersion = zipVersion20
		fw, err := zw.CreateRaw(h)
		if err != nil {
			return nil, fmt.Errorf("bundle: %s: %w", h.Name, err)
		}
		if _, err := fw.Write(e.compressed); err != nil {
			return nil, fmt.Errorf("bundle: %s: %w", h.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return &Packed{Root: root, InputsHash: hash, Files: len(order), Bytes: cw.n}, nil
}

// regularFiles lists the files of fsys sorted by path, refusing anything
// that is not a regular file or whose name a bundle cannot hold.
func regularFiles(fsys fs.FS) ([]string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("bundle: %s is not a regular file", p)
		}
		if why := checkPath(p); why != "" {
			return fmt.Errorf("bundle: %s: %s", p, why)
		}
		if p == ManifestName {
			return fmt.Errorf("bundle: %s is written by the bundle itself", p)
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(paths) // WalkDir order puts "a/b" before "a.html"; MANIFEST wants byte order
	return paths, nil
}

// zipVersion20 is version 2.0 of the zip format, which added Deflate.
const zipVersion20 = 20

// deflateLevel is fixed so that the same bytes always compress the same.
// Level 6 compresses the sample within 0.2% of level 9 in half the time.
const deflateLevel = 6

// compressor deflates files at one fixed level, reusing its state.
type compressor struct {
	buf bytes.Buffer
	fw  *flate.Writer
}

func newCompressor() *compressor {
	c := &compressor{}
	c.fw, _ = flate.NewWriter(&c.buf, deflateLevel) // the level is valid, so no error
	return c
}

// pack compresses one file, or stores it when deflating does not make it
// smaller; both choices depend only on the bytes.
func (c *compressor) pack(path string, data []byte) packedFile {
	c.buf.Reset()
	c.fw.Reset(&c.buf)
	c.fw.Write(data) // writes to a bytes.Buffer cannot fail
	c.fw.Close()
	f := packedFile{path: path, crc: crc32.ChecksumIEEE(data), size: uint64(len(data))}
	if c.buf.Len() < len(data) {
		f.method, f.compressed = zip.Deflate, bytes.Clone(c.buf.Bytes())
	} else {
		f.method, f.compressed = zip.Store, data
	}
	return f
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// policyMonth reads the year and month of a policy version "ER-2026.10".
var policyMonth = regexp.MustCompile(`-([0-9]{4})\.([0-9]{2})$`)

// ModTime is the time a bundle's entries carry when no SOURCE_DATE_EPOCH
// is given: the first day of the policy version's month, in UTC, so it
// follows from the inputs and says something true about them. A version
// without a month gives the earliest time a zip file can hold.
func ModTime(version string) time.Time {
	m := policyMonth.FindStringSubmatch(version)
	if m == nil {
		return zipEpoch
	}
	year, _ := strconv.Atoi(m[1])
	month, _ := strconv.Atoi(m[2])
	if month < 1 || month > 12 {
		return zipEpoch
	}
	return time.Date(year, time.Month(month), 1, 0, 0, 0, 0, time.UTC)
}

// The range of an MS-DOS time stamp, which is all a zip header holds
// without an extra field.
var (
	zipEpoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	zipEnd   = time.Date(2107, 12, 31, 23, 59, 58, 0, time.UTC)
)

// ParseSourceDateEpoch reads a SOURCE_DATE_EPOCH value: whole seconds
// since 1970-01-01 UTC.
func ParseSourceDateEpoch(s string) (time.Time, error) {
	secs, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a whole number of seconds since 1970", s)
	}
	return time.Unix(secs, 0).UTC(), nil
}

// msDosTime encodes t in UTC, clamped to the range a zip header holds;
// seconds round down to even, as the format has two-second steps.
func msDosTime(t time.Time) (date, clock uint16) {
	t = t.UTC()
	if t.Before(zipEpoch) {
		t = zipEpoch
	}
	if t.After(zipEnd) {
		t = zipEnd
	}
	date = uint16(t.Day() + int(t.Month())<<5 + (t.Year()-1980)<<9)
	clock = uint16(t.Second()/2 + t.Minute()<<5 + t.Hour()<<11)
	return date, clock
}
