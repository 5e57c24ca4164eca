package load

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

func TestOpenRefusesWhatIsNotARegularFileInside(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(dir, "real.md"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.Symlink("real.md", filepath.Join(dir, "in.md"))
	os.Symlink(filepath.Join(dir, "real.md"), filepath.Join(dir, "abs-in.md"))
	os.Symlink(filepath.Join("sub", "..", "real.md"), filepath.Join(dir, "dotdot-in.md"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out.md"))
	os.Symlink(filepath.Join("..", filepath.Base(outside), "secret"), filepath.Join(dir, "rel-out.md"))
	os.Symlink("nowhere", filepath.Join(dir, "dangling.md"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.md"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tests := []struct {
		name    string
		refused bool
	}{
		{"real.md", false},
		{"in.md", false},
		{"abs-in.md", false},
		{"dotdot-in.md", false},
		{"out.md", true},
		{"rel-out.md", true},
		{"dangling.md", true},
		{"zero.md", true},
		{"fifo.md", true},
		{"sub", true},
	}
	// Open (openat2 where there is one) and the portable checks alone
	// agree on every case.
	openers := map[string]func(dir, path string) (*os.File, error){"Open": Open, "openResolved": openResolved}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		for name, open := range openers {
			var b []byte
			f, err := open(dir, path)
			if err == nil {
				b, err = readLimited(f, path, 1<<10)
				f.Close()
			}
			var bad *suite.InputError
			switch {
			case tt.refused && (!errors.As(err, &bad) || err.Error() != path+": "+notInside && !strings.HasPrefix(err.Error(), path+": "+notInside)):
				t.Errorf("%s(%s): error %v, want %q", name, tt.name, err, path+": "+notInside)
			case !tt.refused && (err != nil || string(b) != "inside"):
				t.Errorf("%s(%s): %q, %v", name, tt.name, b, err)
			}
		}
		checkErr, resolvedErr := Check(dir, path), checkResolved(dir, path, fs.FileMode.IsRegular, notInside)
		if (checkErr == nil) == tt.refused || (resolvedErr == nil) == tt.refused {
			t.Errorf("%s: Check = %v, checkResolved = %v; refused %v", tt.name, checkErr, resolvedErr, tt.refused)
		}
	}
	if _, err := Open(dir, filepath.Join(dir, "missing.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
	if err := CheckDir(dir, filepath.Join(dir, "sub")); err != nil {
		t.Errorf("CheckDir(sub) = %v", err)
	}
	os.Symlink(outside, filepath.Join(dir, "outdir"))
	if err := CheckDir(dir, filepath.Join(dir, "outdir")); err == nil || !strings.Contains(err.Error(), notInside) {
		t.Errorf("CheckDir(outdir) = %v", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gate.json")
	os.WriteFile(path, make([]byte, MaxSmallJSONBytes), 0o644)
	if _, err := ReadFile(dir, path, MaxSmallJSONBytes); err != nil {
		t.Fatalf("a file at the limit: %v", err)
	}
	os.WriteFile(path, make([]byte, MaxSmallJSONBytes+1), 0o644)
	_, err := ReadFile(dir, path, MaxSmallJSONBytes)
	if err == nil || err.Error() != path+": larger than the limit of 1 MiB" {
		t.Fatalf("a file over the limit: %v", err)
	}
}

func TestSuiteRefusesOversizedDocuments(t *testing.T) {
	tests := []struct {
		file string
		size int64
		want string
	}{
		{PolicyFile, MaxDocumentBytes + 1, "POLICY.md: larger than the limit of 16 MiB"},
		{SchemaFile, MaxDocumentBytes + 1, "case.schema.json: larger than the limit of 16 MiB"},
		{GateFile, MaxSmallJSONBytes + 1, "gate.json: larger than the limit of 1 MiB"},
	}
	for _, tt := range tests {
		dir := copySample(t)
		// A sparse file: its size is what is refused, before any read.
		if err := os.Truncate(filepath.Join(dir, tt.file), tt.size); err != nil {
			t.Fatal(err)
		}
		_, err := Suite(dir, Options{})
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.file, err, tt.want)
		}
	}
}

// TestHugeLineIsRefusedWithinItsLimit reads a 2 GiB sparse file with no
// line end: it is refused as a line over 64 MiB, and memory stays near
// the limit, not the file's size.
func TestHugeLineIsRefusedWithinItsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Skipf("sparse file: %v", err)
	}
	f.Close()
	f, _ = os.Open(path)
	defer f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lr := newLineReader(path, f)
	_, _, err = lr.next()
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != path+":1: line longer than the limit of 64 MiB" {
		t.Fatalf("error %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 3*MaxLineBytes {
		t.Errorf("allocated %d MiB reading one refused line", grown>>20)
	}
	// A line at the limit is read.
	lr = newLineReader(path, io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20)+"\r\n"), strings.NewReader("{}\n")))
	lr.max = 1 << 20
	if text, n, err := lr.next(); err != nil || n != 1 || len(text) != 1<<20 {
		t.Fatalf("a line at the limit: %d bytes, line %d, %v", len(text), n, err)
	}
	lr = newLineReader(path, strings.NewReader("{}\n"+strings.Repeat("x", 1<<20+1)+"\n"))
	lr.max = 1 << 20
	lr.next()
	if _, _, err := lr.next(); err == nil || !strings.Contains(err.Error(), ":2: line longer than the limit of 1 MiB") {
		t.Fatalf("a line over the limit: %v", err)
	}
}

// copySample copies the sample data folder.
func copySample(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("../../data")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestReadLinesStopsAtALongLine reads JSON Lines whole, as a bundle keeps
// them: lines within the limit are read byte for byte, a file over its
// size limit is refused before a byte is read, and a line over the line
// limit is refused, naming it, without reading the rest.
func TestReadLinesStopsAtALongLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cases.jsonl")
	content := "{\"a\":1}\r\n\n{\"b\":2}"
	os.WriteFile(path, []byte(content), 0o644)
	if b, err := ReadLines(dir, path, 1<<20); err != nil || string(b) != content {
		t.Fatalf("ReadLines = %q, %v", b, err)
	}
	if _, err := ReadLines(dir, path, 4); err == nil || err.Error() != path+": larger than the limit of 4 bytes" {
		t.Fatalf("over the size limit: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero.jsonl"))
	if _, err := ReadLines(dir, filepath.Join(dir, "zero.jsonl"), 1<<62); err == nil || !strings.Contains(err.Error(), notInside) {
		t.Fatalf("a link to /dev/zero: %v", err)
	}
	if testing.Short() {
		return
	}
	// Two lines, then a sparse gigabyte with no line end.
	f, _ := os.Create(path)
	f.WriteString("{}\n{}\n")
	if err := f.Truncate(1 << 30); err != nil {
		t.Skipf("sparse file: %v", err)
	}
	f.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ReadLines(dir, path, 1<<62)
	runtime.ReadMemStats(&after)
	if err == nil || err.Error() != path+":3: line longer than the limit of 64 MiB" {
		t.Fatalf("a line over the limit: %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Errorf("allocated %d KiB before refusing the line", grown>>10)
	}
}
