package bundle

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestExtractUnpacksABundle(t *testing.T) {
	path := makeBundle(t, sampleData, time.Time{})
	dest := filepath.Join(t.TempDir(), "out")
	x, err := Extract(path, dest, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if x.Dir != filepath.Join(dest, x.Root) {
		t.Errorf("Dir %s, want %s", x.Dir, filepath.Join(dest, x.Root))
	}
	_, files := readZip(t, path)
	got := listFiles(t, x.Dir)
	if len(got) != len(files) {
		t.Errorf("extracted %d files, the archive has %d", len(got), len(files))
	}
	for name, data := range files {
		rel := strings.TrimPrefix(name, x.Root+"/")
		b, err := os.ReadFile(filepath.Join(x.Dir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(b, data) {
			t.Errorf("%s: extracted content differs (%v)", rel, err)
		}
		if x.Sums[rel] != sumHex(data) {
			t.Errorf("%s: sum %s, want %s", rel, x.Sums[rel], sumHex(data))
		}
	}
	// A second extraction into the same, now full, folder is refused.
	if _, err := Extract(path, dest, Limits{}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("extracting into a full folder: %v", err)
	}
}

// hostile is an archive built to escape or exhaust the extractor.
type hostile struct {
	name    string
	entries []entry
	limits  Limits
	want    string // in the refusal
}

func hostileArchives() []hostile {
	ok := entry{name: "releasegate-ER-2026.10-00000000/index.html", data: []byte("<p>")}
	zeros := func(n int) []byte { return make([]byte, n) }
	many := []entry{}
	for i := range 11 {
		many = append(many, entry{name: "r/f" + strconv.Itoa(i), data: []byte("x")})
	}
	return []hostile{
		{name: "zip slip", entries: []entry{ok, {name: "../evil", data: []byte("pwned")}}, want: `".." path element`},
		{name: "zip slip inside", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/a/../../../evil", data: []byte("x")}}, want: `".." path element`},
		{name: "absolute path", entries: []entry{{name: "/tmp/evil", data: []byte("x")}}, want: "absolute path"},
		{name: "backslash", entries: []entry{ok, {name: `releasegate-ER-2026.10-00000000\..\..\evil`, data: []byte("x")}}, want: "backslash"},
		{name: "drive letter", entries: []entry{{name: "C:/evil", data: []byte("x")}}, want: "drive letter"},
		{name: "dot element", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/./x", data: []byte("x")}}, want: `"." path element`},
		{name: "empty element", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000//x", data: []byte("x")}}, want: "empty path element"},
		{name: "odd character", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/a\x00b", data: []byte("x")}}, want: "not allowed"},
		{name: "symlink", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}}, want: "symbolic link"},
		{name: "device", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/dev", mode: fs.ModeDevice | 0o644}}, want: "unusual file mode"},
		{name: "setuid", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/run", mode: fs.ModeSetuid | 0o755}}, want: "unusual file mode"},
		{name: "duplicate", entries: []entry{ok, ok}, want: "duplicate entry"},
		{name: "case duplicate", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/INDEX.html"}}, want: "case-insensitive"},
		{name: "file beside the folder", entries: []entry{ok, {name: "evil.sh", data: []byte("x")}}, want: "outside the bundle's top folder"},
		{name: "lone file", entries: []entry{{name: "evil.sh", data: []byte("x")}}, want: "beside the top folder"},
		{name: "file and folder", entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/index.html/x"}}, want: "which is a file"},
		{name: "encrypted", entries: []entry{{name: ok.name, data: []byte("x"), flags: 1}}, want: "encrypted"},
		{name: "odd method", entries: []entry{{name: ok.name, raw: []byte("x"), data: []byte("x"), rawSize: 1, method: 99}}, want: "compression method 99"},
		{name: "too many entries", entries: many, limits: Limits{MaxEntries: 10}, want: "11 entries, more than the limit of 10"},
		{
			name:    "bomb over the file limit",
			entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/bomb", data: zeros(2 << 20)}},
			limits:  Limits{MaxFileSize: 1 << 20},
			want:    "more than the limit of 1048576 per file",
		},
		{
			name:    "bomb over the ratio",
			entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/bomb", data: zeros(3 << 20)}},
			want:    "compressed more than 200 to 1",
		},
		{
			name: "bomb over the total",
			entries: []entry{
				{name: "r/a", data: bytes.Repeat([]byte("abcdefgh"), 80<<10)},
				{name: "r/b", data: bytes.Repeat([]byte("abcdefgh"), 80<<10)},
			},
			limits: Limits{MaxTotalSize: 1 << 20},
			want:   "more than the limit of 1048576 bytes in total",
		},
		{
			name: "claimed small, expands big",
			entries: []entry{ok, {
				name: "releasegate-ER-2026.10-00000000/small", data: zeros(10),
				rawSize: 10, // declared; the data below inflates to 8 MiB
			}},
			want: "expands beyond its declared size of 10 bytes",
		},
		{
			name:    "claimed big, holds less",
			entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/short", data: []byte("abc"), rawSize: 100}},
			want:    "holds 3 bytes, not the 100 declared",
		},
		{
			name:    "bad checksum",
			entries: []entry{ok, {name: "releasegate-ER-2026.10-00000000/crc", data: []byte("abd"), rawSize: 3}},
			want:    "CRC-32 mismatch",
		},
	}
}

// buildHostile writes one hostile archive; raw entries get their
// compressed bytes here, where a test is at hand.
func buildHostile(t testing.TB, path string, h hostile) {
	t.Helper()
	entries := slices.Clone(h.entries)
	for i, e := range entries {
		switch {
		case e.rawSize == 10 && strings.HasSuffix(e.name, "/small"):
			entries[i].raw = deflate(t, make([]byte, 8<<20))
		case strings.HasSuffix(e.name, "/short"):
			entries[i].raw = deflate(t, e.data)
		case strings.HasSuffix(e.name, "/crc"):
			entries[i].raw = deflate(t, []byte("abc")) // CRC is of "abd"
		}
	}
	writeZip(t, path, entries)
}

func TestExtractRefusesHostileArchives(t *testing.T) {
	for _, h := range hostileArchives() {
		t.Run(h.name, func(t *testing.T) {
			base := t.TempDir()
			archive := filepath.Join(base, "in", "hostile.zip")
			os.MkdirAll(filepath.Dir(archive), 0o755)
			buildHostile(t, archive, h)
			dest := filepath.Join(base, "out", "x")
			_, err := Extract(archive, dest, h.limits)
			var refused *RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Extract error %v, want a refusal", err)
			}
			if !strings.Contains(err.Error(), h.want) {
				t.Errorf("refusal %q, want it to contain %q", err, h.want)
			}
			// Nothing was written anywhere: only the archive is left.
			if got := listFiles(t, base); !slices.Equal(got, []string{"in/hostile.zip"}) {
				t.Errorf("files after the refusal: %v", got)
			}
			if _, err := os.Stat(dest); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the extraction folder was left behind")
			}
			// Verify refuses it too and leaves its temporary folder empty.
			tmp := filepath.Join(base, "tmp")
			os.Mkdir(tmp, 0o755)
			if _, err := Verify(archive, VerifyOptions{TempDir: tmp, Limits: h.limits}); !errors.As(err, &refused) {
				t.Errorf("Verify error %v, want a refusal", err)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
				t.Errorf("Verify left %d entries in its temporary folder", len(entries))
			}
		})
	}
}

func TestExtractRefusesNonArchives(t *testing.T) {
	dir := t.TempDir()
	tests := map[string][]byte{
		"empty":   nil,
		"text":    []byte("hello, this is not a zip archive"),
		"no dirs": {0x50, 0x4b, 0x05, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	for name, data := range tests {
		path := filepath.Join(dir, name+".zip")
		os.WriteFile(path, data, 0o644)
		var refused *RefusedError
		if _, err := Extract(path, filepath.Join(dir, name), Limits{}); !errors.As(err, &refused) {
			t.Errorf("%s: Extract error %v, want a refusal", name, err)
		}
	}
	if _, err := Extract(dir, filepath.Join(dir, "x"), Limits{}); err == nil {
		t.Error("a folder was extracted as an archive")
	}
	if _, err := Extract(filepath.Join(dir, "missing.zip"), filepath.Join(dir, "y"), Limits{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing archive: %v", err)
	}
}

func TestExtractRefusesHugeCentralDirectory(t *testing.T) {
	// 300 tiny entries against a limit of 10: the directory is refused
	// while it is read, before its entries are counted.
	var entries []entry
	for i := range 300 {
		entries = append(entries, entry{name: "r/" + strings.Repeat("n", 200) + strconv.Itoa(i)})
	}
	path := filepath.Join(t.TempDir(), "wide.zip")
	writeZip(t, path, entries)
	_, err := Extract(path, filepath.Join(t.TempDir(), "x"), Limits{MaxEntries: 10})
	if err == nil || !strings.Contains(err.Error(), "central directory too large") {
		t.Fatalf("Extract error %v, want the directory refused", err)
	}
}

func TestCheckPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"index.html", ""},
		{"snapshots/candidate-v3/ER-001.html", ""},
		{".nojekyll", ""},
		{"a+b@c~d_e", ""},
		{"", "empty name"},
		{"/etc", "absolute"},
		{"a/../b", `".."`},
		{"..", `".."`},
		{"a/./b", `"."`},
		{"a//b", "empty path element"},
		{"a/", "empty path element"},
		{`a\b`, "backslash"},
		{"c:x", "drive letter"},
		{"a b", "not allowed"},
		{"é", "not allowed"},
	}
	for _, tt := range tests {
		got := checkPath(tt.in)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("checkPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseRootName(t *testing.T) {
	tests := []struct {
		in, version, hash string
		ok                bool
	}{
		{"releasegate-ER-2026.10-3fa2c1d9", "ER-2026.10", "3fa2c1d9", true},
		{"releasegate-ER-2026.10-3fa2c1d", "", "", false},
		{"bundle-ER-2026.10-3fa2c1d9", "", "", false},
		{"releasegate--3fa2c1d9", "", "", false},
	}
	for _, tt := range tests {
		v, h, ok := parseRootName(tt.in)
		if v != tt.version || h != tt.hash || ok != tt.ok {
			t.Errorf("parseRootName(%q) = %q, %q, %v", tt.in, v, h, ok)
		}
	}
	if got := RootName("ER-2026.10", "3fa2c1d9"); got != "releasegate-ER-2026.10-3fa2c1d9" {
		t.Errorf("RootName = %q", got)
	}
}
