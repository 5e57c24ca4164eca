package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/livepeak"
)

// orderedCases are the case lines of the tests below: ids A to F, read
// at once or member by member, one of them escaped.
const orderedCases = `{"case_id":"A","title":"a"}
{ "case_id" : "B" }

{"title":"c","case_id":"C"}` + "\r\n" + `{"case_id":"\u0044","x":[1,{"y":null}]}
{"case_id":"E"}
{"case_id":"F"}
`

// sortedFolder writes a data folder of orderedCases and a snapshot of
// text, and reads its case order.
func sortedFolder(t *testing.T, cases, text string) (SnapshotFile, *CaseOrder, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, CasesFile), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	order, err := ReadCaseOrder(dir)
	return SnapshotFile{Label: "run", Path: path, Dir: dir}, order, err
}

// readAll reads every output of o.
func readAll(t *testing.T, o *OutputStream) []*suite.Output {
	t.Helper()
	var outs []*suite.Output
	for {
		out, err := o.Next()
		if err == io.EOF {
			return outs
		}
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
}

// TestSortedOutputStream reads snapshots written in any order in suite
// order: the outputs Outputs reads, with their line numbers, sorted by
// case and trial, whatever lies between the lines and however few lines
// a window holds.
func TestSortedOutputStream(t *testing.T) {
	ids := []string{"A", "B", "C", "D", "E", "F"}
	for _, tc := range []struct {
		name    string
		text    string
		missing []int // positions of cases without a line
	}{
		{"trials shuffled, a byte-order mark, blank lines, CRLF and no last line end",
			"\ufeff" + trialLine("D", 2) + "\r\n\n" + trialLine("A", 1) + "\n" + trialLine("F", 1) + "\r\n  \n\n" +
				trialLine("B", 2) + "\n" + trialLine("C", 1) + "\n" + trialLine("E", 2) + "\n" + trialLine("A", 2) + "\n" +
				trialLine("B", 1) + "\n\n" + trialLine("D", 1) + "\n" + trialLine("F", 2) + "\n" + trialLine("E", 1) + "\n" + trialLine("C", 2), nil},
		{"reversed, two cases without a line", `{"case_id":"F","decision":"approve","tool_calls":[],"latency_ms":null,"cost_usd":null}` + "\n" +
			`{"decision":"approve","case_id":"D","tool_calls":[{"name":"x","arguments":{"a":[1,2]}}],"citations":["r"],"latency_ms":5,"cost_usd":0.5}` + "\n" +
			`{"case_id":"C","decision":"approve","tool_calls":[],"latency_ms":null,"cost_usd":null}` + "\n" +
			`{"case_id":"\u0042","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":null}` + "\n", []int{0, 4}},
		{"in order", trialLine("A", 1) + "\n" + trialLine("B", 1) + "\n" + trialLine("C", 1) + "\n" +
			trialLine("D", 1) + "\n" + trialLine("E", 1) + "\n" + trialLine("F", 1) + "\n", nil},
	} {
		for _, limit := range []int{1, 150, 1 << 20} {
			t.Run(fmt.Sprintf("%s, windows of %d bytes", tc.name, limit), func(t *testing.T) {
				file, order, err := sortedFolder(t, orderedCases, tc.text)
				if err != nil {
					t.Fatal(err)
				}
				if order.Len() != len(ids) {
					t.Fatalf("%d cases, want %d", order.Len(), len(ids))
				}
				for p, id := range ids {
					if got, ok := order.Position(id); !ok || got != p {
						t.Errorf("Position(%s) = %d, %v; want %d", id, got, ok, p)
					}
				}
				s := suite.NewSuite(nil, []*suite.Case{{ID: "A"}, {ID: "B"}, {ID: "C"}, {ID: "D"}, {ID: "E"}, {ID: "F"}}, suite.Gate{})
				s.Decisions = suite.Vocabulary{"approve"}
				type placed struct {
					pos int
					out *suite.Output
				}
				var want []placed
				f, err := os.Open(file.Path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				sha, err := Outputs(file.Path, f, s, func(i int, o *suite.Output) error { want = append(want, placed{i, o}); return nil })
				if err != nil {
					t.Fatal(err)
				}
				slices.SortFunc(want, func(a, b placed) int { return a.pos*1000 + a.out.Trial - b.pos*1000 - b.out.Trial })
				o, err := OpenSortedOutputStream(file, s.Decisions, order)
				if err != nil {
					t.Fatal(err)
				}
				defer o.Close()
				o.sorted.limit = limit
				got := readAll(t, o)
				if len(got) != len(want) {
					t.Fatalf("%d outputs in suite order, %d read whole", len(got), len(want))
				}
				for i := range want {
					if g, w := fmt.Sprintf("%+v", *got[i]), fmt.Sprintf("%+v", *want[i].out); g != w {
						t.Errorf("output %d: %s, want %s", i, g, w)
					}
				}
				if o.SHA256() != sha {
					t.Errorf("SHA256 %s, want %s", o.SHA256(), sha)
				}
				if last := want[len(want)-1].out.Trial; o.LastTrial() != last {
					t.Errorf("LastTrial %d, want %d", o.LastTrial(), last)
				}
				for p := range ids {
					if got, want := o.Missing(p), slices.Contains(tc.missing, p); got != want {
						t.Errorf("Missing(%d) = %v, want %v", p, got, want)
					}
				}
				if _, err := o.TrialBlocks(2); !errors.Is(err, ErrNotStreamable) {
					t.Errorf("TrialBlocks of a sorted stream: %v", err)
				}
			})
		}
	}
}

// TestSortedOutputStreamRefuses: whatever Outputs would word, or the
// streamed judging could not take, is refused, and so is a line that
// changed after the file was hashed. (A line that starts with its
// case_id is read whole only when judged, and refused then.)
func TestSortedOutputStreamRefuses(t *testing.T) {
	line := func(id string) string { return `{"case_id":"` + id + `","decision":"approve","tool_calls":[]}` + "\n" }
	for _, tc := range []struct {
		name, cases, text string
	}{
		{"an id of no case", orderedCases, line("B") + line("Z")},
		{"a case twice", orderedCases, line("B") + line("A") + line("B")},
		{"a case twice in a trial", orderedCases, trialLine("B", 1) + "\n" + trialLine("A", 1) + "\n" + trialLine("B", 1) + "\n"},
		{"trials leaving a case without a line", orderedCases, trialLine("A", 1) + "\n" + trialLine("B", 1) + "\n" + trialLine("C", 1) + "\n" +
			trialLine("D", 1) + "\n" + trialLine("E", 1) + "\n"},
		{"an invalid line", orderedCases, line("A") + `{"x":"B",}` + "\n"},
		{"a line without a case_id", orderedCases, line("A") + `{"decision":"approve","tool_calls":[]}` + "\n"},
		{"a case_id that is not a string", orderedCases, line("A") + `{"case_id":7,"decision":"approve","tool_calls":[]}` + "\n"},
		{"a trial that is not a whole number", orderedCases, line("A") + `{"case_id":"B","trial":1.5}` + "\n"},
		{"a case_id given twice", orderedCases, `{"x":1,"case_id":"A","case_id":"B"}` + "\n"},
		{"two cases of one id", orderedCases + `{"case_id":"A"}` + "\n", line("A")},
		{"a case without a case_id", orderedCases + `{"title":"x"}` + "\n", line("A")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, order, err := sortedFolder(t, tc.cases, tc.text)
			if err == nil {
				var o *OutputStream
				if o, err = OpenSortedOutputStream(file, suite.Vocabulary{"approve"}, order); o != nil {
					o.Close()
				}
			}
			if !errors.Is(err, ErrNotStreamable) {
				t.Errorf("got %v, want ErrNotStreamable", err)
			}
		})
	}
	// readSorted opens text sorted, lets change change the file, and
	// returns the error that ends reading it.
	readSorted := func(t *testing.T, text string, change func(path string)) error {
		file, order, err := sortedFolder(t, orderedCases, text)
		if err != nil {
			t.Fatal(err)
		}
		o, err := OpenSortedOutputStream(file, suite.Vocabulary{"approve"}, order)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		change(file.Path)
		var last error
		for last == nil {
			_, last = o.Next()
		}
		return last
	}
	t.Run("a line bad after its leading case_id, when read", func(t *testing.T) {
		if err := readSorted(t, line("C")+`{"case_id":"A","decision":}`+"\n", func(string) {}); err == io.EOF {
			t.Error("the bad line was read")
		}
	})
	t.Run("a line changed after the file was hashed", func(t *testing.T) {
		text := line("C") + line("A") + line("B")
		err := readSorted(t, text, func(path string) {
			if err := os.WriteFile(path, []byte(strings.Replace(text, `"B"`, `"b"`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		})
		if !errors.Is(err, ErrNotStreamable) {
			t.Errorf("reading a changed file: %v", err)
		}
	})
}

// FuzzOrderKeys holds the ids and trials that order a snapshot's lines
// to what the full readers find: whenever a line is read both ways, the
// case_id and trial agree (sortKey may miss a trial whose name has
// escapes), and a line read by member is valid JSON.
func FuzzOrderKeys(f *testing.F) {
	for _, name := range []string{CasesFile, "outputs/baseline-v1.jsonl", "outputs/candidate-v2.jsonl"} {
		for _, l := range sampleLines(f, name) {
			f.Add(string(l.text))
		}
	}
	for _, l := range strings.Split(orderedCases, "\n") {
		f.Add(l)
	}
	f.Add(trialLine("A", 3))
	f.Add(`{"case_id":"A\"B","trial":2,"decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":null}`)
	f.Add(`{"x":{"case_id":"inner"},"case\u005fid":"outer","trial":1.0,"decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`)
	f.Add(`{"case_id":"A","trial":1e0,"case_id":"B"}`)
	f.Add(`{"case_id":"A","x":{"trial":3},"trial":2}`)
	f.Add(`{"case_id":"A","tr\u0069al":2,"decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1}`)
	f.Add(`{"case_id":"A","decision":"approve","tool_calls":[],"latency_ms":1,"cost_usd":1,"x":"\"trial\":3}"}`)
	f.Add(`{"case_id":"A` + "\xff" + `"}`)
	f.Fuzz(func(t *testing.T, line string) {
		text := []byte(line)
		d := newJSONDecoder()
		if id, trial, ok := d.lineKey(text); ok {
			if !jsontext.Value(text).IsValid() {
				t.Fatalf("lineKey reads an invalid line")
			}
			if out, err := parseOutput(newJSONDecoder(), "f", 1, text, suite.Vocabulary{"approve", "no_op", "reject", "escalate", "request_receipt"}); err == nil {
				if out.CaseID != string(id) || out.Trial != trial {
					t.Fatalf("lineKey: %q, trial %d; parseOutput: %q, trial %d", id, trial, out.CaseID, out.Trial)
				}
			}
		}
		if id, trial, ok := d.sortKey(text); ok {
			// A trial named with escapes is read as none, which the
			// judging finds; anything else must be read right.
			if out, err := parseOutput(newJSONDecoder(), "f", 1, text, suite.Vocabulary{"approve", "no_op", "reject", "escalate", "request_receipt"}); err == nil && (out.CaseID != string(id) || out.Trial != trial && trial != 0) {
				t.Fatalf("sortKey: %q, trial %d; parseOutput: %q, trial %d", id, trial, out.CaseID, out.Trial)
			}
		}
		if id, ok := d.caseID(text); ok {
			var c struct {
				ID *string `json:"case_id"`
			}
			if jsontext.Value(text).IsValid() && json.Unmarshal(text, &c) == nil && (c.ID == nil || *c.ID != string(id)) {
				t.Fatalf("caseID %q; decoded %v", id, c.ID)
			}
		}
	})
}

// TestSortedOutputStreamMemory holds what reading a shuffled snapshot in
// suite order keeps to an entry a line and a case, beside the window of
// text, whose size is fixed here: the peak live heap of reading 100,000
// lines exceeds that of 20,000 by less than maxBytesPerLine for each
// line added (about 85 is measured: 32 for the line, as much again while
// the list of lines grows, the rest for the
// case's position by the hash of its id).
func TestSortedOutputStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 120,000 lines")
	}
	const small, large, maxBytesPerLine = 20_000, 100_000, 100
	peak := func(n int) uint64 {
		var cases, outputs strings.Builder
		for i := range n {
			fmt.Fprintf(&cases, `{"case_id":"C-%07d"}`+"\n", i)
		}
		for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
			fmt.Fprintf(&outputs, `{"case_id":"C-%07d","decision":"approve","tool_calls":[],"latency_ms":%d,"cost_usd":null}`+"\n", i, i)
		}
		file, order, err := sortedFolder(t, cases.String(), outputs.String())
		if err != nil {
			t.Fatal(err)
		}
		return livepeak.Of(func() {
			o, err := OpenSortedOutputStream(file, suite.Vocabulary{"approve"}, order)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			o.sorted.limit = 64 << 10
			read := 0
			for ; ; read++ {
				if _, err := o.Next(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
			if read != n {
				t.Fatalf("%d lines read of %d", read, n)
			}
		})
	}
	a, b := peak(small), peak(large)
	perLine := (float64(b) - float64(a)) / float64(large-small)
	t.Logf("peak live heap: %.1f MB at %d lines, %.1f MB at %d: %.0f bytes per line added", float64(a)/1e6, small, float64(b)/1e6, large, perLine)
	if perLine > maxBytesPerLine {
		t.Errorf("the heap grows by %.0f bytes per line, more than %d", perLine, maxBytesPerLine)
	}
}
