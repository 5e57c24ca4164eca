package evaluator

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/livepeak"
)

// everything is what evaluate --all writes for a release: each results
// file, the report and the table, in one string to compare.
func everything(t testing.TB, rel *Release) string {
	var b strings.Builder
	for _, s := range rel.Snapshots {
		fmt.Fprintf(&b, "== results/%s.json\n%s", s.Label(), s.JSON())
		fmt.Fprintf(&b, "== failing %d\n", len(s.FailingCases()))
	}
	fmt.Fprintf(&b, "== RELEASE_REPORT.md\n%s== table\n%s", rel.Report(), rel.Table())
	fmt.Fprintf(&b, "== array\n%s", EncodeJSON(func() []Result {
		var rs []Result
		for _, s := range rel.Snapshots {
			rs = append(rs, s.Result)
		}
		return rs
	}()))
	return b.String()
}

// generated writes a suite of n cases in a temporary folder and lets edit
// change it.
func generated(t *testing.T, n int, edit func(dir string)) string {
	dir := filepath.Join(t.TempDir(), "data")
	if err := gensuite.Write(sampleDir, dir, n); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(dir)
	}
	return dir
}

// generatedTrials writes a suite of n cases with k trials of each in a
// temporary folder, each case's trials one after another when byCase is
// set and trial after trial otherwise, and lets edit change it.
func generatedTrials(t *testing.T, n, k int, byCase bool, edit func(dir string)) string {
	dir := filepath.Join(t.TempDir(), "data")
	write := gensuite.WriteTrials
	if byCase {
		write = gensuite.WriteTrialsByCase
	}
	if err := write(sampleDir, dir, n, k); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(dir)
	}
	return dir
}

// editLines rewrites each line of a file for which edit returns a line.
func editLines(t *testing.T, dir, name string, edit func(i int, line []byte) []byte) {
	editFile(t, dir, name, func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		for i, l := range lines {
			lines[i] = edit(i, l)
		}
		return bytes.Join(lines, nil)
	})
}

// editFile rewrites one file of dir.
func editFile(t *testing.T, dir, name string, edit func([]byte) []byte) {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, edit(b), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStreamDirMatchesEvaluateDir holds the streamed evaluation to the
// whole one: every byte of every results file, the report and the table
// are the same, and so is the error for bad input; folders that cannot
// be streamed are evaluated whole.
func TestStreamDirMatchesEvaluateDir(t *testing.T) {
	reversed := func(b []byte) []byte {
		lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
		slices.Reverse(lines)
		return append(bytes.Join(lines, []byte("\n")), '\n')
	}
	dropLast := func(b []byte) []byte {
		lines := bytes.SplitAfter(b, []byte("\n"))
		return bytes.Join(lines[:len(lines)-2], nil)
	}
	shuffled := func(t *testing.T, dir string) {
		if err := gensuite.Shuffle(dir, 7); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		dir      func(t *testing.T) string
		streamed bool
	}{
		{"sample", func(*testing.T) string { return sampleDir }, true},
		{"airline", func(*testing.T) string { return "../examples/airline" }, false},
		{"minimal", func(*testing.T) string { return "../examples/minimal" }, true},
		{"noise", func(*testing.T) string { return "../examples/noise" }, true},
		{"imported", func(*testing.T) string { return "../examples/imported" }, false},
		{"generated", func(t *testing.T) string { return generated(t, 3_001, nil) }, true},
		{"generated with a baseline", func(t *testing.T) string {
			return generated(t, 1_000, func(dir string) {
				editFile(t, dir, "gate.json", func(b []byte) []byte {
					return bytes.Replace(b, []byte("{"), []byte(`{"baseline": "candidate-v2",`), 1)
				})
			})
		}, true},
		{"outputs out of order", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				editFile(t, dir, "outputs/candidate-v2.jsonl", reversed)
			})
		}, true},
		{"an output missing", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				editFile(t, dir, "outputs/candidate-v3.jsonl", dropLast)
			})
		}, true},
		{"a case without outputs", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				editFile(t, dir, "cases.jsonl", func(b []byte) []byte {
					return append(b, bytes.Replace(bytes.SplitAfter(b, []byte("\n"))[0], []byte("GEN-000001"), []byte("GEN-EXTRA"), 1)...)
				})
			})
		}, true},
		{"a duplicate case", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				editFile(t, dir, "cases.jsonl", func(b []byte) []byte {
					return bytes.Replace(b, []byte("GEN-000002"), []byte("GEN-000001"), 1)
				})
			})
		}, false},
		{"trials, case by case", func(t *testing.T) string { return generatedTrials(t, 400, 3, true, nil) }, true},
		{"one trial a case", func(t *testing.T) string { return generatedTrials(t, 200, 1, true, nil) }, true},
		{"flaky trials passing at 0.6, with a baseline", func(t *testing.T) string {
			return generatedTrials(t, 400, 3, true, func(dir string) {
				editFile(t, dir, "gate.json", func(b []byte) []byte {
					return bytes.Replace(b, []byte("{"), []byte(`{"baseline": "baseline-v1", "min_trial_pass_rate": 0.6,`), 1)
				})
				// Trial 2 of every fifth case of two snapshots answers
				// otherwise.
				for _, name := range []string{"outputs/candidate-v2.jsonl", "outputs/baseline-v1.jsonl"} {
					editLines(t, dir, name, func(i int, l []byte) []byte {
						if i%3 == 1 && (i/3)%5 == 0 {
							return bytes.Replace(l, []byte(`"decision":"`), []byte(`"decision":"no_op","x":"`), 1)
						}
						return l
					})
				}
			})
		}, true},
		{"trials, trial after trial", func(t *testing.T) string { return generatedTrials(t, 300, 3, false, nil) }, true},
		{"trials, trial after trial, blank lines and CRLF", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, false, func(dir string) {
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					switch i {
					case 299: // the last line of trial 1
						return append(bytes.Replace(l, []byte("\n"), []byte("\r\n"), 1), "\n  \n"...)
					case 300:
						return append([]byte("\n"), l...)
					}
					return l
				})
			})
		}, true},
		{"trials, trial after trial, one missing", func(t *testing.T) string {
			return generatedTrials(t, 300, 3, false, func(dir string) {
				editLines(t, dir, "outputs/candidate-v3.jsonl", func(i int, l []byte) []byte {
					if i == 450 {
						return nil
					}
					return l
				})
			})
		}, false},
		{"trials, trial after trial, a line moved to the trial before", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, false, func(dir string) {
				var moved []byte
				editLines(t, dir, "outputs/baseline-v1.jsonl", func(i int, l []byte) []byte {
					switch i {
					case 100:
						moved = l
						return nil
					case 350:
						return append(l, moved...)
					}
					return l
				})
			})
		}, true},
		{"trials, trial after trial, two cases swapped in a trial", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, false, func(dir string) {
				var first []byte
				editLines(t, dir, "outputs/baseline-v1.jsonl", func(i int, l []byte) []byte {
					switch i {
					case 420:
						first = l
						return nil
					case 421:
						return append(l, first...)
					}
					return l
				})
			})
		}, true},
		{"trials, one missing", func(t *testing.T) string {
			return generatedTrials(t, 300, 3, true, func(dir string) {
				editLines(t, dir, "outputs/candidate-v3.jsonl", func(i int, l []byte) []byte {
					if i == 3*150+1 {
						return nil
					}
					return l
				})
			})
		}, false},
		{"trials, one more for a later case", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, true, func(dir string) {
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					if i == 2*100+1 {
						return append(l, bytes.Replace(l, []byte(`"trial":2`), []byte(`"trial":3`), 1)...)
					}
					return l
				})
			})
		}, false},
		{"trials out of order", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, true, func(dir string) {
				var first []byte
				editLines(t, dir, "outputs/baseline-v1.jsonl", func(i int, l []byte) []byte {
					switch i {
					case 2 * 7:
						first = l
						return nil
					case 2*7 + 1:
						return append(l, first...)
					}
					return l
				})
			})
		}, true},
		{"trials on only some lines", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				editLines(t, dir, "outputs/candidate-v3.jsonl", func(i int, l []byte) []byte {
					if i == 120 {
						return bytes.Replace(l, []byte("{"), []byte(`{"trial":1,`), 1)
					}
					return l
				})
			})
		}, false},
		{"outputs shuffled", func(t *testing.T) string {
			return generated(t, 700, func(dir string) { shuffled(t, dir) })
		}, true},
		{"outputs shuffled, with blank lines, CRLF and a byte-order mark", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					switch {
					case i == 0:
						return append([]byte("\uFEFF"), l...)
					case i%7 == 0:
						return append(bytes.Replace(l, []byte("\n"), []byte("\r\n"), 1), " \n\n"...)
					}
					return l
				})
			})
		}, true},
		{"outputs shuffled, the first case without any", func(t *testing.T) string {
			return generated(t, 400, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/baseline-v1.jsonl", func(_ int, l []byte) []byte {
					if bytes.Contains(l, []byte(`"GEN-000001"`)) {
						return nil
					}
					return l
				})
			})
		}, true},
		{"outputs shuffled, one snapshot empty and one with a single line", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				shuffled(t, dir)
				editFile(t, dir, "outputs/baseline-v1.jsonl", func([]byte) []byte { return nil })
				editFile(t, dir, "outputs/candidate-v2.jsonl", func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')+1] })
			})
		}, true},
		{"case ids and output ids written with escapes", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				shuffled(t, dir)
				editFile(t, dir, "cases.jsonl", func(b []byte) []byte {
					return bytes.Replace(b, []byte(`"GEN-000007"`), []byte(`"GEN\u002d000007"`), 1)
				})
				editFile(t, dir, "outputs/candidate-v3.jsonl", func(b []byte) []byte {
					return bytes.Replace(b, []byte(`"case_id":"GEN-000009"`), []byte(`"x":1,"case_id":"GEN\u002D000009"`), 1)
				})
			})
		}, true},
		{"trials case by case, shuffled", func(t *testing.T) string {
			return generatedTrials(t, 300, 3, true, func(dir string) { shuffled(t, dir) })
		}, true},
		{"trials trial after trial, shuffled", func(t *testing.T) string {
			return generatedTrials(t, 300, 2, false, func(dir string) { shuffled(t, dir) })
		}, true},
		{"trials shuffled, a case without any", func(t *testing.T) string {
			return generatedTrials(t, 200, 2, true, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/candidate-v3.jsonl", func(_ int, l []byte) []byte {
					if bytes.Contains(l, []byte(`"GEN-000005"`)) {
						return nil
					}
					return l
				})
			})
		}, false},
		{"trials shuffled, one trial named with escapes", func(t *testing.T) string {
			return generatedTrials(t, 200, 3, true, func(dir string) {
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					if i == 3*40+1 {
						return bytes.Replace(l, []byte(`"trial":`), []byte(`"tr\u0069al":`), 1)
					}
					return l
				})
				shuffled(t, dir)
			})
		}, false},
		{"outputs shuffled, one given twice", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					if i == 40 {
						return append(l, l...)
					}
					return l
				})
			})
		}, false},
		{"outputs shuffled, one of no case", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/candidate-v2.jsonl", func(i int, l []byte) []byte {
					if i == 40 {
						return append(l, bytes.Replace(l, []byte(`"case_id":"GEN-`), []byte(`"case_id":"NOPE-`), 1)...)
					}
					return l
				})
			})
		}, false},
		{"outputs shuffled, a bad line", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				shuffled(t, dir)
				editLines(t, dir, "outputs/baseline-v1.jsonl", func(i int, l []byte) []byte {
					if i == 100 {
						return bytes.Replace(l, []byte(`"latency_ms":`), []byte(`"latency_ms":-`), 1)
					}
					return l
				})
			})
		}, false},
		{"a bad output line", func(t *testing.T) string {
			return generated(t, 500, func(dir string) {
				editFile(t, dir, "outputs/candidate-v3.jsonl", func(b []byte) []byte {
					return bytes.Replace(b, []byte(`"latency_ms":`), []byte(`"latency_ms":"x",`), 1)
				})
			})
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			want, wantErr := EvaluateDir(dir, Options{})
			whole := false
			got, gotErr := StreamDir(dir, StreamOptions{BeforeWhole: func() { whole = true }})
			if whole == tc.streamed {
				t.Errorf("evaluated whole: %v, want %v", whole, !tc.streamed)
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("StreamDir: %v\nEvaluateDir: %v", gotErr, wantErr)
			}
			if wantErr != nil {
				return
			}
			if streamed := got.Snapshots[0].Result.streamed != nil; streamed != tc.streamed {
				t.Errorf("streamed = %v, want %v", streamed, tc.streamed)
			}
			if g, w := everything(t, got), everything(t, want); g != w {
				t.Errorf("streamed evaluation differs from the whole one:\n%s", firstDifference(g, w))
			}
		})
	}
}

// TestStreamDirFlakyTrials: a case that fails some of its trials but
// passes enough of them is streamed as passing, its failures kept in the
// results file and left out of the report's failing cases.
func TestStreamDirFlakyTrials(t *testing.T) {
	dir := generatedTrials(t, 60, 3, true, func(dir string) {
		editFile(t, dir, "gate.json", func(b []byte) []byte {
			return bytes.Replace(b, []byte("{"), []byte(`{"min_trial_pass_rate": 0.6,`), 1)
		})
		// Trial 2 of case 1, an approval, rejects the claim.
		editLines(t, dir, "outputs/candidate-v3.jsonl", func(i int, l []byte) []byte {
			if i == 1 {
				return bytes.Replace(l, []byte(`"decision":"approve"`), []byte(`"decision":"reject"`), 1)
			}
			return l
		})
	})
	rel, err := StreamDir(dir, StreamOptions{BeforeWhole: func() { t.Fatal("evaluated whole") }})
	if err != nil {
		t.Fatal(err)
	}
	s := rel.Snapshots[2]
	var first CaseResult
	s.EachCase(func(i int, c *CaseResult) {
		if i == 0 {
			first = *c
			first.Failures = slices.Clone(c.Failures)
		}
	})
	if !first.Passed || first.Trials != 3 || first.TrialsPassed != 2 || len(first.Failures) == 0 || first.Failures[0].Trial != 2 {
		t.Fatalf("case 1 of %s: %+v, want passed with 2 of 3 trials and trial 2's failures", s.Label(), first)
	}
	if s.Metrics.FlakyCases != 1 {
		t.Errorf("flaky cases: %d, want 1", s.Metrics.FlakyCases)
	}
	for _, c := range s.FailingCases() {
		if c.CaseID == first.CaseID {
			t.Errorf("the flaky case that passed is listed as failing")
		}
	}
}

// TestStreamTrialAfterTrialTellsAtOnce: a snapshot written trial after
// trial is told from one written case by case at its first case, whose
// single line would otherwise pass for one trial a case until the whole
// file had been read, and is then read block by block.
func TestStreamTrialAfterTrialTellsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		byCase bool
	}{{"trial after trial", false}, {"case by case", true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := generatedTrials(t, 600, 2, tc.byCase, nil)
			ss, err := load.OpenSuiteStream(dir, decide.DefaultGates())
			if err != nil {
				t.Fatal(err)
			}
			files, err := load.Snapshots(dir)
			if err != nil {
				t.Fatal(err)
			}
			snaps, err := openStreams(files, ss.Suite.Decisions, &caseTable{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer snaps[0].outputs.Close()
			s := snaps[0]
			s.minRate = ss.Suite.Gate.TrialPassRate().Rat()
			var first []*suite.Case
			if _, err := ss.Each(func(batch []*suite.Case) error {
				if first == nil {
					first = batch[:1]
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := s.judge(ss.Suite.Policy, first); err != nil {
				t.Fatalf("judging the first case: %v", err)
			}
			if s.k != 2 || (s.blocks != nil) == tc.byCase {
				t.Errorf("after the first case: k = %d, read by blocks: %v", s.k, s.blocks != nil)
			}
			if s.blocks != nil {
				defer s.blocks.Close()
			}
		})
	}
}

// firstDifference shows where two long texts part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("got  …%s…\nwant …%s…", got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// TestStreamDirMemory checks that what evaluate --all holds does not grow
// with the suite but by a compact verdict per case: the peak live heap
// of judging 100,000 cases × 3 snapshots and writing their results
// exceeds that of 10,000 by less than maxBytesPerCase for each case
// added. Judging the suite whole holds about 1,000 bytes a case.
func TestStreamDirMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 110,000 cases")
	}
	const small, large, maxBytesPerCase = 10_000, 100_000, 250
	testStreamedMemory(t, small, large, maxBytesPerCase, StreamOptions{}, func(n int) string { return generated(t, n, nil) })
}

// TestStreamDirMemoryTrials is TestStreamDirMemory for trials, written
// case by case and trial after trial: 3 trials of 3,000 and 15,000 cases
// in each snapshot. A failing case keeps the failures of each trial, so
// a case costs more than without trials (400–430 bytes is measured);
// judging the suite whole holds about 1,650 bytes a case.
func TestStreamDirMemoryTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 36,000 cases with 3 trials")
	}
	const small, large, maxBytesPerCase = 3_000, 15_000, 600
	for _, byCase := range []bool{true, false} {
		t.Run(fmt.Sprintf("by case %v", byCase), func(t *testing.T) {
			testStreamedMemory(t, small, large, maxBytesPerCase, StreamOptions{}, func(n int) string { return generatedTrials(t, n, 3, byCase, nil) })
		})
	}
}

// TestStreamDirMemoryForCI is TestStreamDirMemory for evaluate --junit
// and --summary, which keep each case's title and latencies: 5,000
// against 25,000 cases, under 400 bytes for each case added.
func TestStreamDirMemoryForCI(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 30,000 cases")
	}
	testStreamedMemory(t, 5_000, 25_000, 400, StreamOptions{Titles: true, Latencies: true}, func(n int) string { return generated(t, n, nil) })
}

// testStreamedMemory measures the peak live heap of streaming the
// suites of small and large cases that generate writes, and fails when
// it grows by more than maxBytesPerCase for each case added.
func testStreamedMemory(t *testing.T, small, large, maxBytesPerCase int, opts StreamOptions, generate func(n int) string) {
	peak := func(n int) uint64 {
		dir := generate(n)
		return livepeak.Of(func() {
			rel, err := StreamDir(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			if rel.Snapshots[0].Result.streamed == nil {
				t.Fatal("the generated suite was not streamed")
			}
			for _, s := range rel.Snapshots {
				if err := s.Result.WriteJSON(io.Discard); err != nil {
					t.Fatal(err)
				}
			}
			if err := rel.WriteReport(io.Discard); err != nil {
				t.Fatal(err)
			}
		})
	}
	a, b := peak(small), peak(large)
	perCase := (float64(b) - float64(a)) / float64(large-small)
	t.Logf("peak live heap: %.1f MB at %d cases, %.1f MB at %d: %.0f bytes per case added", float64(a)/1e6, small, float64(b)/1e6, large, perCase)
	if perCase > float64(maxBytesPerCase) {
		t.Errorf("the heap grows by %.0f bytes per case, more than %d", perCase, maxBytesPerCase)
	}
}

// TestTextStore reads back texts of every size, the empty one and those
// longer than a block included, across the blocks they were written to.
func TestTextStore(t *testing.T) {
	var s textStore
	if got := s.text(s.blocks(), 0, 0); got != "" {
		t.Fatalf("empty store: %q", got)
	}
	var want []string
	var ends []uint32
	for i := range 5000 {
		n := (i * 7919) % 700
		if i%1000 == 999 {
			n = 3 * maxTextBlock / 2
		}
		text := strings.Repeat(string(rune('a'+i%26)), n)
		want = append(want, text)
		ends = append(ends, s.add(text))
	}
	blocks := s.blocks()
	if len(blocks) < 5 {
		t.Fatalf("%d blocks", len(blocks))
	}
	start := uint32(0)
	for i, w := range want {
		if got := s.text(blocks, start, ends[i]); got != w {
			t.Fatalf("text %d: %d bytes, want %d", i, len(got), len(w))
		}
		if got := s.text(nil, start, ends[i]); got != w {
			t.Fatalf("text %d read from the store: %d bytes, want %d", i, len(got), len(w))
		}
		start = ends[i]
	}
}
