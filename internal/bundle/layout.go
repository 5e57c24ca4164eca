package bundle

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// maxDeflateRatio bounds how far Deflate can expand: a block of
// repeated bytes costs at least about one bit per 258 of them. An entry
// declaring more than this times its compressed size is not an honest
// entry, whatever the limits.
const maxDeflateRatio = 1032

// checkLayout refuses an archive that is not laid out as one zip file
// and nothing else, before anything is extracted: the first local header
// at its first byte, the end record at its last, the central directory
// just before the end record, and the entries' data one after another
// without overlap, so that no two central records share or overlap the
// bytes of one entry (a zip bomb that repeats one entry thousands of
// times). It also checks the total that would be written against what
// the compressed data can honestly expand to.
func checkLayout(archive string, r io.ReaderAt, size int64, files []*zip.File) error {
	refuse := func(format string, args ...any) error {
		return &RefusedError{Archive: archive, Reason: fmt.Sprintf(format, args...)}
	}
	var head [30]byte
	if _, err := r.ReadAt(head[:], 0); err != nil || string(head[:4]) != "PK\x03\x04" {
		return refuse("bytes before the first entry: a bundle is a zip archive from its first byte, and these bytes were added to it")
	}
	cdEnd, err := directoryEnd(r, size)
	if err != nil {
		return refuse("%v", err)
	}
	type span struct {
		name       string
		start, end int64 // the entry's data; its local header lies before
	}
	spans := make([]span, 0, len(files))
	for _, zf := range files {
		data, err := zf.DataOffset()
		if err != nil {
			return &RefusedError{Archive: archive, Entry: zf.Name, Reason: "no readable local header: " + err.Error()}
		}
		end := data + int64(zf.CompressedSize64)
		if data-30-int64(len(zf.Name)) < 0 || end < data || end > cdEnd {
			return &RefusedError{Archive: archive, Entry: zf.Name, Reason: "its data lies outside the entries' part of the archive"}
		}
		switch zf.Method {
		case zip.Store:
			if zf.UncompressedSize64 != zf.CompressedSize64 {
				return &RefusedError{Archive: archive, Entry: zf.Name, Reason: "stored, but its sizes differ"}
			}
		case zip.Deflate:
			if zf.UncompressedSize64/maxDeflateRatio > zf.CompressedSize64+1 {
				return &RefusedError{Archive: archive, Entry: zf.Name, Reason: fmt.Sprintf("declares %d bytes from %d compressed, more than Deflate can expand to; refusing a likely zip bomb", zf.UncompressedSize64, zf.CompressedSize64)}
			}
		}
		spans = append(spans, span{zf.Name, data, end})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmpInt64(a.start, b.start) })
	// The first entry's data follows the local header at byte 0.
	first := 30 + int64(binary.LittleEndian.Uint16(head[26:])) + int64(binary.LittleEndian.Uint16(head[28:]))
	if len(spans) > 0 && spans[0].start != first {
		return refuse("bytes before the first entry: a bundle is a zip archive from its first byte, and these bytes were added to it")
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].start-30-int64(len(spans[i].name)) < spans[i-1].end {
			return &RefusedError{Archive: archive, Entry: spans[i].name, Reason: fmt.Sprintf("shares or overlaps the data of %q; refusing a likely zip bomb", clip(spans[i-1].name))}
		}
	}
	return nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// directoryEnd finds the end record, which must end the file, and
// returns where the central directory starts: where the entries end.
func directoryEnd(r io.ReaderAt, size int64) (int64, error) {
	const endLen, maxComment = 22, 1<<16 - 1
	n := min(size, endLen+maxComment)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, err
	}
	at := findEndRecord(buf, endLen)
	if at < 0 {
		return 0, fmt.Errorf("bytes after the end of the zip archive: a bundle ends with its end record, and these bytes were added to it")
	}
	end := size - n + int64(at)
	rec := buf[at:]
	cdSize, cdOffset := int64(binary.LittleEndian.Uint32(rec[12:])), int64(binary.LittleEndian.Uint32(rec[16:]))
	next := end // what follows the central directory
	if cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF || binary.LittleEndian.Uint16(rec[10:]) == 0xFFFF {
		var err error
		if cdSize, cdOffset, next, err = zip64Directory(r, end); err != nil {
			return 0, err
		}
	}
	if cdOffset < 0 || cdSize < 0 || cdOffset+cdSize != next {
		return 0, fmt.Errorf("the central directory does not lie where the end record says: bytes were added to the archive, or it is damaged")
	}
	return cdOffset, nil
}

// findEndRecord is the offset in buf, the end of the file, of the end
// record whose comment ends the file, or -1.
func findEndRecord(buf []byte, endLen int) int {
	for i := len(buf) - endLen; i >= 0; i-- {
		if string(buf[i:i+4]) == "PK\x05\x06" && i+endLen+int(binary.LittleEndian.Uint16(buf[i+20:])) == len(buf) {
			return i
		}
	}
	return -1
}

// zip64Directory reads the size and offset of the central directory from
// the zip64 end record, and where that record starts (what follows the
// directory). A locator just before the end record at end points to the
// zip64 end record, which must lie just before the locator.
func zip64Directory(r io.ReaderAt, end int64) (cdSize, cdOffset, at64 int64, err error) {
	var loc [20]byte
	if end < 20 {
		return 0, 0, 0, fmt.Errorf("a damaged zip64 end record")
	}
	if _, err := r.ReadAt(loc[:], end-20); err != nil || string(loc[:4]) != "PK\x06\x07" {
		return 0, 0, 0, fmt.Errorf("a damaged zip64 end record")
	}
	at64 = int64(binary.LittleEndian.Uint64(loc[8:]))
	var rec64 [56]byte
	if at64 < 0 || at64 > end-20-56 {
		return 0, 0, 0, fmt.Errorf("a damaged zip64 end record")
	}
	if _, err := r.ReadAt(rec64[:], at64); err != nil || string(rec64[:4]) != "PK\x06\x06" ||
		at64+12+int64(binary.LittleEndian.Uint64(rec64[4:])) != end-20 {
		return 0, 0, 0, fmt.Errorf("bytes between the zip64 end record and its locator")
	}
	cdSize, cdOffset = int64(binary.LittleEndian.Uint64(rec64[40:])), int64(binary.LittleEndian.Uint64(rec64[48:]))
	return cdSize, cdOffset, at64, nil
}
