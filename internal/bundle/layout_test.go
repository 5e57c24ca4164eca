package bundle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sharedEntryBomb builds a zip of one local entry, deflated from size
// zero bytes, and records central records that all point to it: records
// times size bytes to write from an archive of a few kilobytes.
func sharedEntryBomb(t testing.TB, records, size int) []byte {
	t.Helper()
	data := make([]byte, size)
	raw := deflate(t, data)
	sum := crc32.ChecksumIEEE(data)
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	name := "releasegate-ER-2026.10-00000000/f000000"
	le(uint32(0x04034b50))
	le(uint16(20))
	le(uint16(0))
	le(uint16(8))
	le(uint32(0))
	le(sum)
	le(uint32(len(raw)))
	le(uint32(size))
	le(uint16(len(name)))
	le(uint16(0))
	b.WriteString(name)
	b.Write(raw)
	cd := b.Len()
	for i := range records {
		n := fmt.Sprintf("releasegate-ER-2026.10-00000000/f%06d", i)
		le(uint32(0x02014b50))
		le(uint16(0x0314))
		le(uint16(20))
		le(uint16(0))
		le(uint16(8))
		le(uint32(0))
		le(sum)
		le(uint32(len(raw)))
		le(uint32(size))
		le(uint16(len(n)))
		le(uint16(0))
		le(uint16(0))
		le(uint16(0))
		le(uint16(0))
		le(uint32(0o100644 << 16))
		le(uint32(0)) // every record points to the one local entry
		b.WriteString(n)
	}
	cdLen := b.Len() - cd
	le(uint32(0x06054b50))
	le(uint16(0))
	le(uint16(0))
	le(uint16(records))
	le(uint16(records))
	le(uint32(cdLen))
	le(uint32(cd))
	le(uint16(0))
	return b.Bytes()
}

// TestExtractRefusesSharedEntries: thousands of central records sharing
// one local entry (each just under the ratio floor) are refused before
// a byte is written, and quickly.
func TestExtractRefusesSharedEntries(t *testing.T) {
	base := t.TempDir()
	archive := filepath.Join(base, "bomb.zip")
	if err := os.WriteFile(archive, sharedEntryBomb(t, 8000, 1<<20-1), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tmp := filepath.Join(base, "tmp")
	os.Mkdir(tmp, 0o755)
	_, err := Verify(archive, VerifyOptions{TempDir: tmp})
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(err.Error(), "shares or overlaps the data of") {
		t.Fatalf("Verify = %v, want a refusal of shared data", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refusal took %v", took)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("Verify left %d entries in its temporary folder", len(entries))
	}
}

// TestExtractRefusesAddedBytes: a genuine bundle with bytes before it or
// after it is not the bundle that was made, and is refused.
func TestExtractRefusesAddedBytes(t *testing.T) {
	good, err := os.ReadFile(makeBundle(t, sampleData, time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"prepended", "bytes before the first entry", append([]byte("#!/bin/sh\nexit 0\n"), good...)},
		{"prepended zip header", "bytes were added", append([]byte("PK\x03\x04 not a header at all....."), good...)},
		{"appended", "bytes after the end", append(bytes.Clone(good), "trailing"...)},
		{"appended end record", "central directory does not lie where", append(bytes.Clone(good), good[len(good)-22:]...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			archive := filepath.Join(dir, "b.zip")
			os.WriteFile(archive, tc.data, 0o644)
			_, err := Verify(archive, VerifyOptions{TempDir: dir})
			var refused *RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Verify = %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}
