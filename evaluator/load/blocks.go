package load

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"hash/crc32"
	"io"
	"slices"
)

// A snapshot whose trials are written trial after trial (each trial's
// lines in suite order, one trial after the other) is streamed with one
// reader per trial, each over its own block of the file: the file's
// non-blank lines cut into k blocks of equal length (docs/design.md,
// "Scale: streaming evaluation"). The blocks are found by reading the
// file's lines twice, and the file is then read once more whole for its
// SHA-256 and a CRC-32C of each block; each block's reader sums what it
// reads, and TrialBlocks.Check compares the sums, so that the hash
// stands for the bytes judged even if the file changed meanwhile.

// MaxStreamedTrials bounds the trials of a snapshot streamed block by
// block: each block has a reader of its own, with its buffer and open
// file.
const MaxStreamedTrials = 64

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// TrialBlocks are the readers of the k blocks of a snapshot written trial
// after trial.
type TrialBlocks struct {
	Streams []*OutputStream // Streams[t] reads trial t+1
	sha     string
	sums    []uint32 // of each block, as the whole file was read
}

// TrialBlocks opens a reader on each of k blocks of the file o reads;
// ErrNotStreamable when the file's lines cannot be cut into k blocks of
// equal length.
func (o *OutputStream) TrialBlocks(k int) (*TrialBlocks, error) {
	if k < 2 || k > MaxStreamedTrials || o.sorted != nil {
		return nil, ErrNotStreamable
	}
	starts, lines, err := blockStarts(o.src, k)
	if err != nil {
		return nil, err
	}
	b := &TrialBlocks{}
	var size int64
	if b.sha, b.sums, size, err = sumBlocks(o.src, starts); err != nil {
		return nil, err
	}
	for t := range k {
		end := size // the last block ends where the file did when hashed
		if t+1 < k {
			end = starts[t+1]
		}
		if end < starts[t] {
			b.Close()
			return nil, ErrNotStreamable
		}
		f, err := o.src.Open()
		if err != nil {
			b.Close()
			return nil, err
		}
		h := crc32.New(castagnoli)
		lr := newLineReader(o.file, io.TeeReader(io.NewSectionReader(f, starts[t], end-starts[t]), h))
		lr.n = lines[t] // the lines before the block, so that its first is not taken for the file's first
		b.Streams = append(b.Streams, &OutputStream{src: o.src, file: o.file, f: f, h: h, lr: lr, d: newJSONDecoder(), decisions: o.decisions})
	}
	return b, nil
}

// blockStarts reads the lines of file and returns where each of k blocks
// of equal numbers of non-blank lines starts, and how many lines, blank
// or not, come before it. The first block starts at the file's start.
func blockStarts(file SnapshotFile, k int) (starts []int64, lines []int, err error) {
	count := 0
	if err := eachLine(file, func(*lineReader) bool { count++; return true }); err != nil {
		return nil, nil, err
	}
	if count == 0 || count%k != 0 {
		return nil, nil, ErrNotStreamable
	}
	per, i := count/k, 0
	starts, lines = []int64{0}, []int{0}
	err = eachLine(file, func(lr *lineReader) bool {
		if i > 0 && i%per == 0 {
			starts, lines = append(starts, lr.start), append(lines, lr.n-1)
		}
		i++
		return len(starts) < k
	})
	if err != nil || len(starts) != k {
		return nil, nil, ErrNotStreamable
	}
	return starts, lines, nil
}

// eachLine calls line after reading each non-blank line of file, until it
// returns false.
func eachLine(file SnapshotFile, line func(*lineReader) bool) error {
	f, err := file.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(file.Path, f)
	for {
		if _, _, err := lr.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return ErrNotStreamable
		}
		if !line(lr) {
			return nil
		}
	}
}

// sumBlocks reads file whole and returns its SHA-256, the CRC-32C of
// each block starting at starts, and its size.
func sumBlocks(file SnapshotFile, starts []int64) (string, []uint32, int64, error) {
	f, err := file.Open()
	if err != nil {
		return "", nil, 0, err
	}
	defer f.Close()
	h := sha256.New()
	sums := &blockSums{starts: starts, sums: make([]uint32, len(starts))}
	size, err := io.Copy(io.MultiWriter(h, sums), f)
	if err != nil {
		return "", nil, 0, ErrNotStreamable
	}
	return hex.EncodeToString(h.Sum(nil)), sums.sums, size, nil
}

// blockSums sums the bytes written to it block by block.
type blockSums struct {
	starts []int64
	pos    int64
	sums   []uint32
}

func (b *blockSums) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		// The block holding pos: the last that starts at or before it.
		t, found := slices.BinarySearch(b.starts, b.pos)
		if !found {
			t--
		}
		m := int64(len(p))
		if t+1 < len(b.starts) {
			m = min(m, b.starts[t+1]-b.pos)
		}
		b.sums[t] = crc32.Update(b.sums[t], castagnoli, p[:m])
		p, b.pos = p[m:], b.pos+m
	}
	return n, nil
}

// Check reports whether every block was read whole, to its end, and read
// as the whole file was when it was hashed.
func (b *TrialBlocks) Check() error {
	for t, s := range b.Streams {
		if _, err := s.Next(); err != io.EOF {
			return ErrNotStreamable
		}
		if s.h.(hash.Hash32).Sum32() != b.sums[t] {
			return ErrNotStreamable
		}
	}
	return nil
}

// SHA256 is the hash of the whole file, read once.
func (b *TrialBlocks) SHA256() string { return b.sha }

// Close closes the readers' files.
func (b *TrialBlocks) Close() error {
	var errs []error
	for _, s := range b.Streams {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
