package load

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestEveryProblemOfAFile: a run reports each bad line of the suite, in
// line order, each worded as it would be alone.
func TestEveryProblemOfAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../data")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CasesFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	lines[1] = strings.TrimSuffix(lines[1], "}") + ",}"
	lines[3] = strings.Replace(lines[3], `"title"`, `'title'`, 1)
	lines[6] = strings.Replace(lines[6], `"case_id": "ER-007"`, `"case_id": "ER-001"`, 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Suite(dir, Options{})
	got := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	want := strings.Join([]string{
		"cases.jsonl:2:" + col(lines[1], ",}") + ": invalid JSON: a comma before the closing '}' — delete the comma after the last item",
		"cases.jsonl:4:" + col(lines[3], "'title'") + `: invalid JSON: a string in single quotes — use double quotes: "like this"`,
		`cases.jsonl:7: case_id: duplicate case_id "ER-001" (first at line 1)`,
	}, "\n")
	if got != want {
		t.Errorf("error\n%s\nwant\n%s", got, want)
	}
	if n := len(suite.Problems(err)); n != 3 {
		t.Errorf("%d problems, want 3", n)
	}
}

// col is the 1-based column of sub in line.
func col(line, sub string) string {
	return strconv.Itoa(strings.Index(line, sub) + 1)
}

func newBufReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 16) }

// TestProblemsAreCapped: past MaxProblems, problems are counted, not
// listed.
func TestProblemsAreCapped(t *testing.T) {
	s := sampleSuite(t)
	var b strings.Builder
	for range 25 {
		b.WriteString("{\n")
	}
	text := b.String()
	open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }
	load := func(r io.Reader) error {
		_, err := Outputs("out.jsonl", r, s, func(int, *suite.Output) error { return nil })
		return err
	}
	err := moreProblems(load(strings.NewReader(text)), "out.jsonl", open, load)
	many, ok := err.(*suite.InputErrors)
	if !ok {
		t.Fatalf("error %T %v, want several problems", err, err)
	}
	if len(many.Problems) != suite.MaxProblems || many.More != 5 || many.Uncounted {
		t.Errorf("%d problems and %d more (uncounted %v), want %d and 5", len(many.Problems), many.More, many.Uncounted, suite.MaxProblems)
	}
	if last := strings.Split(err.Error(), "\n"); last[len(last)-1] != "… and 5 more problems" || !strings.HasPrefix(last[19], "out.jsonl:20:1: ") {
		t.Errorf("message ends %q", last[len(last)-2:])
	}
}

// TestBlankLines: the blanked lines read as empty and every other byte
// is kept, whatever the read sizes.
func TestBlankLines(t *testing.T) {
	tests := []struct {
		in    string
		blank []int
		want  string
	}{
		{"a\nb\nc\n", []int{2}, "a\n\nc\n"},
		{"a\nb\nc", []int{3}, "a\nb\n"},
		{"a\r\nb\r\n", []int{1}, "\nb\r\n"},
		{"", []int{1}, ""},
		{"a\n" + strings.Repeat("x", 200000) + "\nc", []int{2}, "a\n\nc"},
		{"a\n" + strings.Repeat("x", 200000) + "\nc", []int{3}, "a\n" + strings.Repeat("x", 200000) + "\n"},
	}
	for _, tt := range tests {
		blank := map[int]bool{}
		for _, n := range tt.blank {
			blank[n] = true
		}
		for _, r := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader} {
			got, err := io.ReadAll(r(&blankLines{r: newBufReader(strings.NewReader(tt.in)), blank: blank}))
			if err != nil || !bytes.Equal(got, []byte(tt.want)) {
				t.Errorf("blank %v of %.20q: %.20q, %v; want %.20q", tt.blank, tt.in, got, err, tt.want)
			}
		}
	}
}

func FuzzBlankLines(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, n uint8) {
		got, err := io.ReadAll(&blankLines{r: newBufReader(bytes.NewReader(in)), blank: map[int]bool{int(n): true}})
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(in, []byte("\n"))
		if int(n) >= 1 && int(n) <= len(lines) {
			l := lines[n-1]
			lines[n-1] = l[:0:0]
			if bytes.HasSuffix(l, []byte("\n")) {
				lines[n-1] = []byte("\n")
			}
		}
		if want := bytes.Join(lines, nil); !bytes.Equal(got, want) {
			t.Fatalf("blank %d of %q: %q, want %q", n, in, got, want)
		}
	})
}
