// Package goldentest compares what a test produced with a golden file
// kept beside the test, and rewrites the file when the test binary runs
// with -update. A mismatch is reported as a unified diff of the two, so a
// one-line change in a long page shows as that line and its context.
package goldentest

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Check compares got with the golden file at path. Under -update it
// writes got to path (creating its folder) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := Diff(path, want, "got", got); d != "" {
		t.Errorf("the output differs from %s (run go test -update after checking the change):\n%s", path, d)
	}
}

// context is how many unchanged lines a hunk shows around a change.
const context = 3

// maxCells bounds the work of the line alignment; beyond it the changed
// middle of the two texts is shown as removed and added whole.
const maxCells = 16 << 20

// Diff returns a unified diff turning a into b, or "" when they are equal.
func Diff(aName string, a []byte, bName string, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	ops := edits(lines(a), lines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	for start := 0; start < len(ops); {
		// Find the next change and the run of ops its hunk covers: changes
		// closer than two contexts apart share one hunk.
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		lo := max(first-context, start)
		hi, same := first, 0
		for i := first; i < len(ops); i++ {
			if ops[i].kind == ' ' {
				same++
				if same > 2*context {
					break
				}
				continue
			}
			same, hi = 0, i+1
		}
		hi = min(hi+context, len(ops))
		writeHunk(&out, ops[lo:hi])
		start = hi
	}
	return out.String()
}

// op is one line of an edit script: ' ' kept, '-' removed, '+' added;
// aLine and bLine are the one-based numbers it has (or would have) in a
// and b.
type op struct {
	kind         byte
	text         string
	aLine, bLine int
}

func writeHunk(out *strings.Builder, ops []op) {
	aCount, bCount := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			aCount++
		}
		if o.kind != '-' {
			bCount++
		}
	}
	aStart, bStart := ops[0].aLine, ops[0].bLine
	if aCount == 0 {
		aStart-- // an empty range names the line before it
	}
	if bCount == 0 {
		bStart--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", aStart, aCount, bStart, bCount)
	for _, o := range ops {
		out.WriteByte(o.kind)
		out.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// lines splits s after each line break; the last line may lack one.
func lines(s []byte) []string {
	if len(s) == 0 {
		return nil
	}
	ls := strings.SplitAfter(string(s), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// edits returns a shortest edit script from a to b: the common prefix and
// suffix kept, the middle aligned by a longest common subsequence.
func edits(a, b []string) []op {
	prefix, suffix := commonEnds(a, b)
	am, bm := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	s := &script{}
	for _, l := range a[:prefix] {
		s.emit(' ', l)
	}
	if len(am)*len(bm) > maxCells {
		for _, l := range am {
			s.emit('-', l)
		}
		for _, l := range bm {
			s.emit('+', l)
		}
	} else {
		s.align(am, bm)
	}
	for _, l := range a[len(a)-suffix:] {
		s.emit(' ', l)
	}
	return s.ops
}

// commonEnds counts the lines a and b share at their start and, of the
// rest, at their end: only the middle needs aligning.
func commonEnds(a, b []string) (prefix, suffix int) {
	for prefix < len(a) && prefix < len(b) && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < len(a)-prefix && suffix < len(b)-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

// script is an edit script being written, with the lines of a and b
// emitted so far, which number the next op.
type script struct {
	ops  []op
	i, j int
}

// emit appends an op: ' ' keeps a line, '-' removes one of a, '+' adds
// one of b.
func (s *script) emit(kind byte, text string) {
	s.ops = append(s.ops, op{kind: kind, text: text, aLine: s.i + 1, bLine: s.j + 1})
	if kind != '+' {
		s.i++
	}
	if kind != '-' {
		s.j++
	}
}

// align emits the ops that turn am into bm along a longest common
// subsequence, removals before additions where the two tie.
func (s *script) align(am, bm []string) {
	lcs, w := lcsLengths(am, bm)
	x, y := 0, 0
	for x < len(am) || y < len(bm) {
		switch {
		case x < len(am) && y < len(bm) && am[x] == bm[y]:
			s.emit(' ', am[x])
			x, y = x+1, y+1
		case y == len(bm) || (x < len(am) && lcs[(x+1)*w+y] >= lcs[x*w+y+1]):
			s.emit('-', am[x])
			x++
		default:
			s.emit('+', bm[y])
			y++
		}
	}
}

// lcsLengths is the table align walks: lcs[x*w+y] is the length of a
// longest common subsequence of am[x:] and bm[y:].
func lcsLengths(am, bm []string) (lcs []int32, w int) {
	w = len(bm) + 1
	lcs = make([]int32, (len(am)+1)*w)
	for x := len(am) - 1; x >= 0; x-- {
		for y := len(bm) - 1; y >= 0; y-- {
			if am[x] == bm[y] {
				lcs[x*w+y] = lcs[(x+1)*w+y+1] + 1
			} else {
				lcs[x*w+y] = max(lcs[(x+1)*w+y], lcs[x*w+y+1])
			}
		}
	}
	return lcs, w
}
