package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzVerify feeds arbitrary bytes to the archive reader and verifier:
// whatever they are, verify must not panic, must either refuse or report,
// and must leave its temporary folder empty.
func FuzzVerify(f *testing.F) {
	good, err := os.ReadFile(makeBundle(f, sampleData, time.Time{}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	dir := f.TempDir()
	for i, h := range hostileArchives() {
		if strings.HasPrefix(h.name, "bomb") {
			continue // megabytes of seed slow every run down
		}
		p := filepath.Join(dir, "h"+string(rune('a'+i))+".zip")
		buildHostile(f, p, h)
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("PK\x05\x06"))
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		archive := filepath.Join(base, "in.zip")
		if err := os.WriteFile(archive, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(base, "tmp")
		os.Mkdir(tmp, 0o755)
		limits := Limits{MaxEntries: 500, MaxFileSize: 1 << 20, MaxTotalSize: 4 << 20}
		rep, err := Verify(archive, VerifyOptions{TempDir: tmp, Limits: limits})
		var refused *RefusedError
		switch {
		case err != nil && !errors.As(err, &refused):
			t.Fatalf("Verify error %v is not a refusal", err)
		case err == nil && rep == nil:
			t.Fatal("Verify returned neither a report nor an error")
		case err == nil && rep.Verified() && len(rep.Snapshots) == 0:
			t.Fatal("verified a bundle without evaluating any snapshot")
		}
		if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
			t.Fatalf("Verify left %d entries in its temporary folder", len(entries))
		}
	})
}

// FuzzParseManifest: any text parses without panic, every accepted path
// is safe, and a manifest written from the result parses back the same.
func FuzzParseManifest(f *testing.F) {
	sum := strings.Repeat("0f", 32)
	f.Add([]byte(sum + "  index.html\n" + sum + "  inputs/POLICY.md\n"))
	f.Add([]byte(sum + " *a\r\n"))
	f.Add([]byte(sum + "  ../x\n" + sum + "  ../x\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _ := parseManifest(data)
		var sums []fileSum
		for p, s := range got {
			if why := checkPath(p); why != "" {
				t.Fatalf("accepted unsafe path %q: %s", p, why)
			}
			if len(s) != 64 || !isLowerHex(s) {
				t.Fatalf("accepted checksum %q", s)
			}
			sums = append(sums, fileSum{Path: p, Sum: s})
		}
		if len(sums) == 0 {
			return
		}
		again, problems := parseManifest(encodeManifest(sums))
		if len(problems) > 0 || len(again) != len(got) {
			t.Fatalf("round trip: %v, %v", again, problems)
		}
	})
}

// FuzzExtract unpacks arbitrary archives: whatever they hold, Extract
// either refuses and leaves nothing, or writes no more than the budget
// it set from the central directory before writing, which is within the
// limits and within what the archive's bytes can expand to.
func FuzzExtract(f *testing.F) {
	good, err := os.ReadFile(makeBundle(f, sampleData, time.Time{}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(sharedEntryBomb(f, 50, 100_000))
	f.Add(append([]byte("prefix"), good...))
	dir := f.TempDir()
	for i, h := range hostileArchives() {
		if strings.HasPrefix(h.name, "bomb") {
			continue
		}
		p := filepath.Join(dir, "h"+string(rune('a'+i))+".zip")
		buildHostile(f, p, h)
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	limits := Limits{MaxEntries: 500, MaxFileSize: 1 << 20, MaxTotalSize: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		archive := filepath.Join(base, "in.zip")
		if err := os.WriteFile(archive, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(base, "out")
		x, err := Extract(archive, dest, limits)
		if err != nil {
			if _, serr := os.Stat(dest); serr == nil {
				t.Fatalf("a refused archive (%v) left %s", err, dest)
			}
			return
		}
		if x.Budget > limits.MaxTotalSize || x.Budget > maxDeflateRatio*int64(len(data)) {
			t.Fatalf("budget %d for an archive of %d bytes, limit %d", x.Budget, len(data), limits.MaxTotalSize)
		}
		var written int64
		var files int
		filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				info, _ := d.Info()
				written += info.Size()
				files++
			}
			return nil
		})
		if written > x.Budget || files > limits.MaxEntries || files != len(x.Sums) {
			t.Fatalf("wrote %d bytes in %d files; budget %d bytes, %d entries", written, files, x.Budget, limits.MaxEntries)
		}
	})
}
