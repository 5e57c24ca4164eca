package load

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// trialLine is an output line of case id in trial t.
func trialLine(id string, t int) string {
	return `{"case_id": "` + id + `", "decision": "approve", "tool_calls": [], "latency_ms": 1, "cost_usd": 1, "trial": ` + string(rune('0'+t)) + `}`
}

// openBlocks writes text as a snapshot and opens its k trial blocks.
func openBlocks(t *testing.T, text string, k int) (*TrialBlocks, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := OpenOutputStream(SnapshotFile{Label: "run", Path: path}, suite.Vocabulary{"approve"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	b, err := out.TrialBlocks(k)
	if b != nil {
		t.Cleanup(func() { b.Close() })
	}
	return b, path, err
}

// TestTrialBlocks cuts a snapshot written trial after trial into its
// trials' blocks, whatever lies between the lines, and reads each block
// as Outputs reads the file: the same lines, the same line numbers.
func TestTrialBlocks(t *testing.T) {
	ids := []string{"A", "B", "C"}
	for _, tc := range []struct {
		name string
		text func(line func(id string, t int) string) string
	}{
		{"plain", func(line func(string, int) string) string {
			var b strings.Builder
			for tr := 1; tr <= 2; tr++ {
				for _, id := range ids {
					b.WriteString(line(id, tr) + "\n")
				}
			}
			return b.String()
		}},
		{"a byte-order mark, blank lines, CRLF and no last line end", func(line func(string, int) string) string {
			return "\ufeff" + line("A", 1) + "\r\n\n" + line("B", 1) + "\n" + line("C", 1) + "\r\n  \n\n" +
				line("A", 2) + "\n" + line("B", 2) + "\n\n" + line("C", 2)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.text(trialLine)
			b, path, err := openBlocks(t, text, 2)
			if err != nil {
				t.Fatal(err)
			}
			s := suite.NewSuite(nil, []*suite.Case{{ID: "A"}, {ID: "B"}, {ID: "C"}}, suite.Gate{})
			s.Decisions = suite.Vocabulary{"approve"}
			var want []*suite.Output
			f, _ := os.Open(path)
			defer f.Close()
			sha, err := Outputs(path, f, s, func(_ int, o *suite.Output) error { want = append(want, o); return nil })
			if err != nil {
				t.Fatal(err)
			}
			var got []*suite.Output
			for _, stream := range b.Streams {
				for {
					o, err := stream.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, o)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d outputs read by block, %d whole", len(got), len(want))
			}
			for i := range want {
				if g, w := fmt.Sprintf("%+v", *got[i]), fmt.Sprintf("%+v", *want[i]); g != w {
					t.Errorf("output %d: %s, want %s", i, g, w)
				}
			}
			if err := b.Check(); err != nil {
				t.Errorf("Check: %v", err)
			}
			if b.SHA256() != sha {
				t.Errorf("SHA256 %s, want %s", b.SHA256(), sha)
			}
		})
	}
}

// TestTrialBlocksRefuse: lines that cannot be cut into k blocks of the
// same length are refused, and so is a block that changed after the file
// was hashed.
func TestTrialBlocksRefuse(t *testing.T) {
	three := trialLine("A", 1) + "\n" + trialLine("B", 1) + "\n" + trialLine("A", 2) + "\n"
	if _, _, err := openBlocks(t, three, 2); !errors.Is(err, ErrNotStreamable) {
		t.Errorf("3 lines in 2 blocks: %v", err)
	}
	if _, _, err := openBlocks(t, three, MaxStreamedTrials+1); !errors.Is(err, ErrNotStreamable) {
		t.Errorf("more trials than streamed: %v", err)
	}
	four := three + trialLine("B", 2) + "\n"
	b, path, err := openBlocks(t, four, 2)
	if err != nil {
		t.Fatal(err)
	}
	// The file changes after it was hashed, before the blocks are read.
	changed := strings.Replace(four, `"latency_ms": 1, "cost_usd": 1, "trial": 2}`+"\n"+`{"case_id": "B"`, `"latency_ms": 2, "cost_usd": 1, "trial": 2}`+"\n"+`{"case_id": "B"`, 1)
	if changed == four {
		t.Fatal("the edit changes nothing")
	}
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range b.Streams {
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}
	if err := b.Check(); !errors.Is(err, ErrNotStreamable) {
		t.Errorf("Check after the file changed: %v", err)
	}
}
