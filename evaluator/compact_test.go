package evaluator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestCompactOutputsReadWhole: a release evaluated compact has the
// results of one that keeps its outputs and inputs whole, each output
// read again whole (Snapshot.Whole) is the output kept whole, field for
// field, and each case's input read again (Suite.Input) the input kept,
// whatever the line ends, blank lines and byte-order mark of the files.
func TestCompactOutputsReadWhole(t *testing.T) {
	untidy := func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n\n  \t\n"))
		return append([]byte("\xEF\xBB\xBF"), b...)
	}
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"sample", func(*testing.T) string { return sampleDir }},
		{"airline", func(*testing.T) string { return "../examples/airline" }},
		{"imported", func(*testing.T) string { return "../examples/imported" }},
		{"noise", func(*testing.T) string { return "../examples/noise" }},
		{"generated", func(t *testing.T) string { return generated(t, 700, nil) }},
		{"generated, CRLF, blank lines and a byte-order mark", func(t *testing.T) string {
			return generated(t, 300, func(dir string) {
				editFile(t, dir, "outputs/candidate-v2.jsonl", untidy)
				editFile(t, dir, "cases.jsonl", untidy)
			})
		}},
		{"trials, case by case", func(t *testing.T) string { return generatedTrials(t, 200, 3, true, nil) }},
		{"trials, trial after trial, untidy", func(t *testing.T) string {
			return generatedTrials(t, 200, 2, false, func(dir string) { editFile(t, dir, "outputs/candidate-v3.jsonl", untidy) })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			whole, err := EvaluateDir(dir, Options{KeepOutputs: true, KeepInputs: true})
			if err != nil {
				t.Fatal(err)
			}
			compact, err := EvaluateDir(dir, Options{KeepOutputs: true, KeepInputs: true, Compact: true})
			if err != nil {
				t.Fatal(err)
			}
			defer compact.Close()
			for i, c := range compact.Suite.Cases {
				if c.Input != nil || c.InputPlace.Size == 0 {
					t.Fatalf("case %s keeps its input", c.ID)
				}
				input, err := compact.Suite.Input(c)
				if err != nil {
					t.Fatal(err)
				}
				if want := whole.Suite.Cases[i].Input; !bytes.Equal(input, want) || want == nil {
					t.Fatalf("case %s: input read again as %q, kept as %q", c.ID, input, want)
				}
			}
			if len(whole.Snapshots) != len(compact.Snapshots) {
				t.Fatalf("%d snapshots compact, %d whole", len(compact.Snapshots), len(whole.Snapshots))
			}
			read := 0
			for k, w := range whole.Snapshots {
				c := compact.Snapshots[k]
				// The gates hold functions, which reflect never finds equal.
				if !reflect.DeepEqual(w.Result.Cases, c.Result.Cases) || !reflect.DeepEqual(w.Metrics, c.Metrics) {
					t.Fatalf("%s: the results differ when outputs are kept compact", w.Label())
				}
				if a, b := w.JSON(), c.JSON(); !bytes.Equal(a, b) {
					t.Fatalf("%s: the results files differ", w.Label())
				}
				pairs := [][2][]*suite.Output{{w.Outputs, c.Outputs}}
				if len(w.TrialOutputs) != len(c.TrialOutputs) {
					t.Fatalf("%s: %d trials compact, %d whole", w.Label(), len(c.TrialOutputs), len(w.TrialOutputs))
				}
				for tr := range w.TrialOutputs {
					pairs = append(pairs, [2][]*suite.Output{w.TrialOutputs[tr], c.TrialOutputs[tr]})
				}
				for _, p := range pairs {
					for i, wo := range p[0] {
						co := p[1][i]
						if (wo == nil) != (co == nil) {
							t.Fatalf("%s case %d: kept whole %v, compact %v", w.Label(), i, wo != nil, co != nil)
						}
						if wo == nil {
							continue
						}
						if !co.Compact() || co.ToolCalls != nil || co.Citations != nil {
							t.Fatalf("%s line %d: not kept compact: %+v", w.Label(), co.Line, co)
						}
						if co.CaseID != wo.CaseID || co.Decision != wo.Decision || co.Trial != wo.Trial || co.Line != wo.Line ||
							!reflect.DeepEqual(co.LatencyMS, wo.LatencyMS) || !reflect.DeepEqual(co.CostUSD, wo.CostUSD) {
							t.Fatalf("%s line %d: the fields kept compact differ: %+v against %+v", w.Label(), co.Line, co, wo)
						}
						again, err := c.Whole(co)
						if err != nil {
							t.Fatal(err)
						}
						if !again.Equal(wo) {
							t.Fatalf("%s line %d: read again as %+v, kept whole as %+v", w.Label(), co.Line, again, wo)
						}
						read++
					}
				}
				if same, err := w.Whole(w.Outputs[0]); err != nil || same != w.Outputs[0] {
					t.Fatalf("an output kept whole is not given back as it is: %v", err)
				}
			}
			if read == 0 {
				t.Fatal("no output was read again")
			}
			if err := compact.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := compact.Snapshots[0].Whole(firstOutput(compact.Snapshots[0])); err == nil {
				t.Fatal("an output was read from a closed release")
			}
			if _, err := compact.Suite.Input(compact.Suite.Cases[0]); err == nil {
				t.Fatal("an input was read from a closed release")
			}
		})
	}
}

// firstOutput is the first output s keeps.
func firstOutput(s *Snapshot) *suite.Output {
	for _, o := range s.Outputs {
		if o != nil {
			return o
		}
	}
	return nil
}

// TestCompactOutputsFileChanged: outputs are read again from the bytes
// judged. A file replaced since (as editors save) is still read as it
// was; one written over, or cut short, is an error naming the file and
// the line, never another output.
func TestCompactOutputsFileChanged(t *testing.T) {
	dir := generated(t, 50, nil)
	path := filepath.Join(dir, "outputs", "candidate-v2.jsonl")
	original, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evaluate := func() (*Release, *Snapshot) {
		t.Helper()
		rel, err := EvaluateDir(dir, Options{KeepOutputs: true, Compact: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rel.Close() })
		for _, s := range rel.Snapshots {
			if s.Label() == "candidate-v2" {
				return rel, s
			}
		}
		t.Fatal("no snapshot candidate-v2")
		return nil, nil
	}
	whole := func(s *Snapshot, i int) (*suite.Output, error) { return s.Whole(s.Outputs[i]) }

	t.Run("replaced", func(t *testing.T) {
		_, s := evaluate()
		before, err := whole(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, bytes.ReplaceAll(original, []byte(`"decision":"`), []byte(`"decision":"x`)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(path, original, 0o644)
		after, err := whole(s, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !after.Equal(before) {
			t.Fatalf("read %+v after the file was replaced, %+v before", after, before)
		}
	})
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"written over", func(b []byte) []byte { return bytes.Replace(b, []byte("GEN-000004"), []byte("GEN-000005"), 1) }},
		{"cut short", func(b []byte) []byte { return b[:bytes.Index(b, []byte("GEN-000004"))] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := evaluate()
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Write(tc.edit(original))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(path, original, 0o644)
			if _, err := whole(s, 2); err != nil {
				t.Fatalf("a line before the change: %v", err)
			}
			o, err := whole(s, 3)
			if err == nil {
				t.Fatalf("read %+v from a line that changed", o)
			}
			if msg := err.Error(); !strings.Contains(msg, "candidate-v2.jsonl:4: the line changed while the site was being made from it") {
				t.Fatalf("error %q does not name the file, the line and what happened", msg)
			}
		})
	}
}

// TestCompactInputsFileChanged: a case's input read again from a cases
// file written over since is an error naming the file and the line.
func TestCompactInputsFileChanged(t *testing.T) {
	dir := generated(t, 20, nil)
	rel, err := EvaluateDir(dir, Options{KeepOutputs: true, KeepInputs: true, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rel.Close()
	editFile(t, dir, "cases.jsonl", func(b []byte) []byte { return bytes.Replace(b, []byte("GEN-000002"), []byte("GEN-000009"), 1) })
	if _, err := rel.Suite.Input(rel.Suite.Cases[0]); err != nil {
		t.Fatalf("a line before the change: %v", err)
	}
	_, err = rel.Suite.Input(rel.Suite.Cases[1])
	if err == nil || !strings.Contains(err.Error(), "cases.jsonl:2: the line changed while the site was being made from it") {
		t.Fatalf("reading the input of a changed line: %v", err)
	}
}

// TestRejudgeRefusesCompactOutputs: judging again needs whole outputs,
// and a snapshot kept compact is refused rather than judged without its
// calls.
func TestRejudgeRefusesCompactOutputs(t *testing.T) {
	rel, err := EvaluateDir(sampleDir, Options{KeepOutputs: true, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rel.Close()
	defer func() {
		if recover() == nil {
			t.Fatal("a snapshot kept compact was judged again")
		}
	}()
	Rejudge(rel.Suite, rel.Snapshots[0], []int{0})
}

// TestCompactManySnapshots: a folder of more snapshots than files are
// kept open for keeps their outputs whole, and is judged the same.
func TestCompactManySnapshots(t *testing.T) {
	dir := generated(t, 20, func(dir string) {
		src, err := os.ReadFile(filepath.Join(dir, "outputs", "candidate-v2.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range maxCompactSnapshots {
			if err := os.WriteFile(filepath.Join(dir, "outputs", fmt.Sprintf("extra-%03d.jsonl", i)), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	rel, err := EvaluateDir(dir, Options{KeepOutputs: true, KeepInputs: true, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rel.Close()
	if n := len(rel.Snapshots); n <= maxCompactSnapshots {
		t.Fatalf("%d snapshots, not more than %d", n, maxCompactSnapshots)
	}
	for _, s := range rel.Snapshots {
		if o := firstOutput(s); o == nil || o.Compact() || s.outputs != nil {
			t.Fatalf("%s: outputs kept compact, with %d snapshots", s.Label(), len(rel.Snapshots))
		}
	}
	if c := rel.Suite.Cases[0]; c.Input != nil || c.InputPlace.Size == 0 {
		t.Fatal("the inputs were not kept compact")
	}
}

// TestCompactClosesOnError: a compact evaluation that fails closes every
// file it opened, the suite's included.
func TestCompactClosesOnError(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts the open files in /proc/self/fd")
	}
	dir := generated(t, 20, func(dir string) {
		editFile(t, dir, "outputs/candidate-v3.jsonl", func(b []byte) []byte { return append(b, "{\n"...) })
	})
	open := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	before := open()
	if _, err := EvaluateDir(dir, Options{KeepOutputs: true, KeepInputs: true, Compact: true}); err == nil {
		t.Fatal("a snapshot with a broken line was judged")
	}
	if after := open(); after != before {
		t.Fatalf("%d files open after a failed evaluation, %d before", after, before)
	}
}
