package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sampleData is the repository's sample data folder.
const sampleData = "../../data"

// makeBundle writes a bundle of the data folder into a new folder and
// returns its path.
func makeBundle(t testing.TB, data string, modified time.Time) string {
	t.Helper()
	c, err := Create(Options{Data: data, Dir: t.TempDir(), Modified: modified})
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return c.Path
}

// copyDir copies the folder src into a new temporary folder and returns it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// entry is one entry of a zip a test writes by hand.
type entry struct {
	name string
	data []byte
	mode fs.FileMode // 0 means 0644
	// raw, when set, is written as the entry's compressed bytes with the
	// header's sizes and CRC taken from rawSize and data, to lie about
	// what the entry holds.
	raw     []byte
	rawSize uint64
	method  uint16
	flags   uint16
}

// writeZip writes entries to a new zip file in dir.
func writeZip(t testing.TB, path string, entries []entry) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Flags: e.flags}
		if e.method != 0 {
			h.Method = e.method
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		var w io.Writer
		var err error
		if e.raw != nil {
			h.CRC32 = crc(e.data)
			h.CompressedSize64 = uint64(len(e.raw))
			h.UncompressedSize64 = e.rawSize
			w, err = zw.CreateRaw(h)
			if err == nil {
				_, err = w.Write(e.raw)
			}
		} else {
			w, err = zw.CreateHeader(h)
			if err == nil {
				_, err = w.Write(e.data)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readZip returns the entries of a zip by name, in archive order.
func readZip(t testing.TB, path string) ([]string, map[string][]byte) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		files[f.Name] = b
	}
	return names, files
}

// rewriteBundle writes a changed copy of a bundle: change gets the files
// by path below the top folder and may edit, add or delete them.
func rewriteBundle(t testing.TB, src string, change func(root string, files map[string][]byte)) string {
	t.Helper()
	names, files := readZip(t, src)
	root, _, _ := strings.Cut(names[0], "/")
	rel := map[string][]byte{}
	for n, b := range files {
		rel[strings.TrimPrefix(n, root+"/")] = b
	}
	change(root, rel)
	var entries []entry
	for _, p := range slices.Sorted(maps.Keys(rel)) {
		entries = append(entries, entry{name: root + "/" + p, data: rel[p]})
	}
	dst := filepath.Join(t.TempDir(), "changed.zip")
	writeZip(t, dst, entries)
	return dst
}

func crc(b []byte) uint32 { return crc32.ChecksumIEEE(b) }

// remanifest rewrites MANIFEST to match the files, as someone covering
// their tracks would.
func remanifest(files map[string][]byte) {
	var sums []fileSum
	for p, b := range files {
		if p != ManifestName {
			sums = append(sums, fileSum{Path: p, Sum: sumHex(b)})
		}
	}
	files[ManifestName] = encodeManifest(sums)
}

func deflate(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// listFiles returns every file below dir, as slash paths.
func listFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}
