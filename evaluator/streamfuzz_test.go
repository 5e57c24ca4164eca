package evaluator

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// FuzzStreamDirTrials holds the streamed evaluation of trials to the
// whole one on snapshots, written case by case or trial after trial,
// whose lines the fuzzer drops, repeats, swaps, renumbers and gives to
// other cases: each gives the same results files, report, table and
// errors both ways, whether it can be streamed or not.
func FuzzStreamDirTrials(f *testing.F) {
	const snapshot = "outputs/candidate-v2.jsonl"
	// files[byCase] are the generated folder's files, written case by
	// case or trial after trial.
	files := map[bool]map[string][]byte{}
	for _, byCase := range []bool{true, false} {
		base := filepath.Join(f.TempDir(), "data")
		write := gensuite.WriteTrials
		if byCase {
			write = gensuite.WriteTrialsByCase
		}
		if err := write(sampleDir, base, 6, 3); err != nil {
			f.Fatal(err)
		}
		files[byCase] = map[string][]byte{}
		for _, name := range []string{"POLICY.md", "case.schema.json", "cases.jsonl", "gate.json", "outputs/baseline-v1.jsonl", snapshot, "outputs/candidate-v3.jsonl"} {
			b, err := os.ReadFile(filepath.Join(base, name))
			if err != nil {
				f.Fatal(err)
			}
			files[byCase][name] = b
		}
	}
	for _, order := range []byte{0, 1} { // case by case, trial after trial
		f.Add([]byte{order})                   // as generated
		f.Add([]byte{order, 0, 4})             // a trial dropped
		f.Add([]byte{order, 1, 17})            // the last line twice
		f.Add([]byte{order, 2, 0})             // two lines swapped
		f.Add([]byte{order, 3, 5, 7})          // a trial renumbered
		f.Add([]byte{order, 4, 9})             // a trial without its number
		f.Add([]byte{order, 5, 3})             // a line given to the next case
		f.Add([]byte{order, 6, 2, 0, 1, 3, 1}) // a flaky pass rate, then a trial dropped
		f.Add([]byte{order, 7, 5})             // a blank line and CRLF
	}
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		byCase := ops[0]%2 == 0
		ops = ops[1:]
		original := files[byCase][snapshot]
		lines := bytes.SplitAfter(bytes.TrimSuffix(original, []byte("\n")), []byte("\n"))
		gate := files[byCase]["gate.json"]
		for len(ops) >= 2 && len(lines) > 0 {
			op, j := ops[0]%8, int(ops[1])%len(lines)
			ops = ops[2:]
			l := lines[j]
			switch op {
			case 0:
				lines = append(lines[:j:j], lines[j+1:]...)
			case 1:
				lines = append(lines[:j+1:j+1], lines[j:]...)
			case 2:
				if j+1 < len(lines) {
					lines[j], lines[j+1] = lines[j+1], l
				}
			case 3:
				if len(ops) > 0 {
					lines[j] = renumber(l, int(ops[0]%5))
					ops = ops[1:]
				}
			case 4:
				lines[j] = renumber(l, 0)
			case 5:
				for c := range 6 {
					if id := []byte(gensuite.ID(c)); bytes.Contains(l, id) {
						lines[j] = bytes.Replace(l, id, []byte(gensuite.ID((c+1)%6)), 1)
						break
					}
				}
			case 6:
				gate = bytes.Replace(gate, []byte("{"), []byte(fmt.Sprintf(`{"min_trial_pass_rate": 0.%d,`, j%10)), 1)
			case 7:
				lines[j] = append(append([]byte("\n"), bytes.TrimSuffix(l, []byte("\n"))...), "\r\n"...)
			}
		}
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
			t.Fatal(err)
		}
		write := func(name string, b []byte) {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range files[byCase] {
			write(name, b)
		}
		write("gate.json", gate)
		write(snapshot, bytes.Join(lines, nil))
		want, wantErr := EvaluateDir(dir, Options{})
		got, gotErr := StreamDir(dir, StreamOptions{})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("StreamDir: %v\nEvaluateDir: %v", gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		if g, w := everything(t, got), everything(t, want); g != w {
			t.Fatalf("streamed evaluation differs from the whole one:\n%s", firstDifference(g, w))
		}
	})
}

// renumber gives an output line trial n, or no trial for 0.
func renumber(line []byte, n int) []byte {
	i := bytes.Index(line, []byte(`"trial":`))
	if i < 0 {
		return line
	}
	end := i + len(`"trial":`)
	for end < len(line) && line[end] >= '0' && line[end] <= '9' {
		end++
	}
	if n == 0 {
		// The member and the comma on one side of it.
		if end < len(line) && line[end] == ',' {
			end++
		} else if i > 0 && line[i-1] == ',' {
			i--
		}
		return append(line[:i:i], line[end:]...)
	}
	return append(append(line[:i:i], fmt.Sprintf(`"trial":%d`, n)...), line[end:]...)
}
