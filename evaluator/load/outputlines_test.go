package load

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// readRemembered reads text as the outputs file out.jsonl of s, with lines
// when it is not nil, and gives every output by line.
func readRemembered(s *suite.Suite, text []byte, lines *OutputLines) (map[int]*suite.Output, string, error) {
	outs := map[int]*suite.Output{}
	sha, err := OutputsRemembered("out.jsonl", bytes.NewReader(text), s, lines, func(i int, o *suite.Output) error {
		outs[o.Line] = o
		return nil
	})
	return outs, sha, err
}

// sharesOutput reports whether b took an output of a as it was: the two
// share its lists.
func sharesOutput(a, b map[int]*suite.Output) bool {
	took := map[*suite.ToolCall]bool{}
	for _, o := range a {
		if len(o.ToolCalls) > 0 {
			took[&o.ToolCalls[0]] = true
		}
	}
	for _, o := range b {
		if len(o.ToolCalls) > 0 && took[&o.ToolCalls[0]] {
			return true
		}
	}
	return false
}

// TestOutputLinesReadAsFresh edits a snapshot at random, step after
// step, and reads it after each step with the outputs of the reading
// before and without: the two must give the same outputs and hash, or the
// same error.
func TestOutputLinesReadAsFresh(t *testing.T) {
	s := sampleSuite(t)
	original, err := os.ReadFile(filepath.Join(sampleDir, "outputs", "candidate-v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	split := func(b []byte) [][]byte { return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) }
	r := rand.New(rand.NewPCG(3, 4))
	edits := append(anyLineEdits(r), []lineEdit{
		{"cost", func(lines [][]byte) [][]byte {
			i := r.IntN(len(lines))
			lines[i] = bytes.Replace(lines[i], []byte(`"cost_usd": 0.`), []byte(`"cost_usd": 0.1`), 1)
			return lines
		}},
		{"decision", func(lines [][]byte) [][]byte {
			i := r.IntN(len(lines))
			lines[i] = bytes.Replace(lines[i], []byte(`"decision": "approve"`), []byte(`"decision": "reject"`), 1)
			return lines
		}},
		{"blank line", func(lines [][]byte) [][]byte { return append(lines[:1:1], append([][]byte{nil}, lines[1:]...)...) }},
		{"unknown decision", func(lines [][]byte) [][]byte {
			i := r.IntN(len(lines))
			lines[i] = bytes.Replace(lines[i], []byte(`"decision": "`), []byte(`"decision": "x`), 1)
			return lines
		}},
		{"restore", func([][]byte) [][]byte { return split(original) }},
	}...)
	lines := NewOutputLines()
	text := split(original)
	var before map[int]*suite.Output
	shared, readable := 0, 0
	for step := range 300 {
		e := edits[r.IntN(len(edits))]
		text = e.do(text)
		file := append(bytes.Join(text, []byte("\n")), '\n')
		remembered := lines.Len()
		got, gotSHA, gotErr := readRemembered(s, file, lines)
		want, wantSHA, wantErr := readRemembered(s, file, nil)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("step %d (%s): error\n%v\nread afresh:\n%v", step, e.name, gotErr, wantErr)
		}
		if gotErr != nil {
			if lines.Len() != remembered {
				t.Fatalf("step %d (%s): a failed reading changed what is remembered: %d lines, not %d", step, e.name, lines.Len(), remembered)
			}
			continue
		}
		readable++
		if gotSHA != wantSHA || !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d (%s): the outputs differ from a fresh reading", step, e.name)
		}
		if before != nil && sharesOutput(before, got) {
			shared++
		}
		before = got
	}
	if readable < 30 || shared < 15 {
		t.Fatalf("%d readable steps, %d taking outputs from the reading before: the test covers too little", readable, shared)
	}
}

// TestOutputLinesDecisions: outputs read under one list of decisions are
// not taken under another, which may refuse them.
func TestOutputLinesDecisions(t *testing.T) {
	s := sampleSuite(t)
	text, err := os.ReadFile(filepath.Join(sampleDir, "outputs", "candidate-v3.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := NewOutputLines()
	first, _, err := readRemembered(s, text, lines)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := readRemembered(s, text, lines)
	if err != nil {
		t.Fatal(err)
	}
	if !sharesOutput(first, again) {
		t.Fatal("the same file read again parsed every line")
	}
	narrowed := *s
	narrowed.Decisions = suite.Vocabulary{"approve"}
	_, _, err = readRemembered(&narrowed, text, lines)
	if err == nil || !strings.Contains(err.Error(), `unknown decision`) {
		t.Fatalf("read under fewer decisions: %v, want an unknown decision refused", err)
	}
	widened := *s
	widened.Decisions = append(slices.Clone(s.Decisions), "defer")
	third, _, err := readRemembered(&widened, text, lines)
	if err != nil {
		t.Fatal(err)
	}
	if sharesOutput(again, third) {
		t.Fatal("outputs read under other decisions were taken")
	}
}

// FuzzOutputLines reads a snapshot, then another, with the outputs of the
// first remembered: the second must read as it reads afresh.
func FuzzOutputLines(f *testing.F) {
	s := sampleSuite(f)
	f.Add(outputLine, outputLine+"\n")
	f.Add(outputLine, strings.Replace(outputLine, "410", "411", 1))
	f.Add(outputLine+"\n"+strings.Replace(outputLine, "ER-001", "ER-002", 1), strings.Replace(outputLine, "ER-001", "ER-002", 1)+"\n"+outputLine)
	f.Add(outputLine, outputLine+"\n"+outputLine)
	f.Add(outputLine, strings.Replace(outputLine, `"approve"`, `"maybe"`, 1))
	f.Fuzz(func(t *testing.T, first, second string) {
		lines := NewOutputLines()
		readRemembered(s, []byte(first), lines)
		got, gotSHA, gotErr := readRemembered(s, []byte(second), lines)
		want, wantSHA, wantErr := readRemembered(s, []byte(second), nil)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("error %v, read afresh: %v", gotErr, wantErr)
		}
		if gotErr == nil && (gotSHA != wantSHA || !reflect.DeepEqual(got, want)) {
			t.Fatal("the outputs differ from a fresh reading")
		}
	})
}

// BenchmarkOutputsEdited reads a snapshot of 10,000 outputs again after
// an edit of one of them, parsing every line ("plain") and taking the
// other outputs from the reading before ("fast"), in turn:
//
//	go test ./evaluator/load -run '^$' -bench OutputsEdited -benchmem -count 5
func BenchmarkOutputsEdited(b *testing.B) {
	dir := b.TempDir()
	for _, name := range []string{PolicyFile, SchemaFile, GateFile} {
		data, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Each sample case and its output repeated under new ids.
	many := func(file string) []byte {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
		var out bytes.Buffer
		for i := range 10_000 {
			out.Write(bytes.Replace(lines[i%len(lines)], []byte(`"case_id": "`), fmt.Appendf(nil, `"case_id": "N%05d-`, i), 1))
			out.WriteByte('\n')
		}
		return out.Bytes()
	}
	if err := os.WriteFile(filepath.Join(dir, CasesFile), many(filepath.Join(sampleDir, CasesFile)), 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := Suite(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	outputs := many(filepath.Join(sampleDir, "outputs", "candidate-v3.jsonl"))
	versions := [][]byte{outputs, bytes.Replace(outputs, []byte(`"latency_ms": `), []byte(`"latency_ms": 1`), 1)}
	for _, way := range []struct {
		name  string
		lines *OutputLines
	}{{"plain", nil}, {"fast", NewOutputLines()}} {
		b.Run(way.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if _, _, err := readRemembered(s, versions[i%2], way.lines); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
