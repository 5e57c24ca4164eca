package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestStreamLinesAsParseLines checks that streaming lines gives what
// parsing them whole does, in order and batch by batch, with the same
// first error, and that a refusing yield stops it.
func TestStreamLinesAsParseLines(t *testing.T) {
	var text strings.Builder
	for i := range 2_000 {
		if i%7 == 0 {
			text.WriteString("\n") // blank lines keep their numbers
		}
		fmt.Fprintf(&text, "line %d\n", i)
	}
	parse := func(_ *jsonDecoder, line []byte, n int) (string, error) {
		if bytes.HasSuffix(line, []byte(" bad")) {
			return "", fmt.Errorf("line %d is bad", n)
		}
		return fmt.Sprintf("%d:%s", n, line), nil
	}
	for _, tc := range []struct{ name, text string }{
		{"good", text.String()},
		{"bad", strings.Replace(text.String(), "line 1500\n", "line 1500 bad\n", 1) + "line 9 bad\n"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := parseLines(newLineReader("f", strings.NewReader(tc.text)), parse, nil)
			var got []string
			gotErr := streamLines(newLineReader("f", strings.NewReader(tc.text)), parse, func(batch []string) error {
				got = append(got, batch...)
				return nil
			})
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if wantErr == nil && strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("streamed %d lines, parsed %d, or in another order", len(got), len(want))
			}
		})
	}
	stop := errors.New("stop")
	batches := 0
	err := streamLines(newLineReader("f", strings.NewReader(text.String())), parse, func([]string) error {
		batches++
		return stop
	})
	if err != stop || batches != 1 {
		t.Errorf("a refusing yield: %v after %d batches", err, batches)
	}
}

// TestSuiteStreamReadsAsSuite checks that streaming the sample's suite
// gives the cases, hashes and settings a whole read gives, and that a
// duplicate case id is left to the whole read to word.
func TestSuiteStreamReadsAsSuite(t *testing.T) {
	want, err := Suite(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := OpenSuiteStream(sampleDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	n, err := ss.Each(func(batch []*suite.Case) error {
		for _, c := range batch {
			ids = append(ids, c.ID)
		}
		return nil
	})
	if err != nil || n != len(want.Cases) {
		t.Fatalf("Each: %d cases, %v; want %d", n, err, len(want.Cases))
	}
	for i, c := range want.Cases {
		if ids[i] != c.ID {
			t.Errorf("case %d is %s, want %s", i, ids[i], c.ID)
		}
	}
	got := ss.Suite
	if got.CasesSHA256 != want.CasesSHA256 || got.PolicySHA256 != want.PolicySHA256 || got.GateSHA256 != want.GateSHA256 {
		t.Error("hashes differ from a whole read")
	}
	if got.Gate.Confidence != want.Gate.Confidence || got.Decisions.String() != want.Decisions.String() || got.PolicyVersion() != want.PolicyVersion() {
		t.Error("settings differ from a whole read")
	}

	dir := t.TempDir()
	for _, name := range []string{PolicyFile, SchemaFile, GateFile, CasesFile} {
		b, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == CasesFile {
			b = bytes.Replace(b, []byte(`"ER-002"`), []byte(`"ER-001"`), 1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ss, err = OpenSuiteStream(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Each(func([]*suite.Case) error { return nil }); err != ErrNotStreamable {
		t.Errorf("a duplicate case id: %v, want ErrNotStreamable", err)
	}
}

// TestOutputStreamReadsAsOutputs checks that reading a snapshot a line at
// a time gives the outputs and hash Outputs gives.
func TestOutputStreamReadsAsOutputs(t *testing.T) {
	s, err := Suite(sampleDir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := SnapshotFile{Label: "candidate-v2", Path: filepath.Join(sampleDir, OutputsDir, "candidate-v2.jsonl"), Dir: sampleDir}
	f, err := file.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	wantSHA, err := Outputs(file.Path, f, s, func(_ int, o *suite.Output) error {
		want = append(want, fmt.Sprintf("%+v", *o))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := OpenOutputStream(file, s.Decisions)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var got []string
	for {
		o, err := out.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%+v", *o))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("streamed outputs differ:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out.SHA256() != wantSHA {
		t.Error("hash differs")
	}
}

// TestOutputStreamLastTrial reads the trial of a file's last line from
// its end, whatever ends the file, and 0 wherever it cannot tell.
func TestOutputStreamLastTrial(t *testing.T) {
	const line = `{"case_id": "ER-001", "decision": "approve", "tool_calls": [], "latency_ms": 1, "cost_usd": 1`
	long := `{"case_id": "ER-001", "decision": "approve", "tool_calls": [], "latency_ms": 1, "cost_usd": 1, "note": "` + strings.Repeat("x", 70<<10) + `", "trial": 3}`
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"trial 2 last", line + `, "trial": 1}` + "\n" + line + `, "trial": 2}` + "\n", 2},
		{"no line end", line + `, "trial": 4}`, 4},
		{"CRLF and blank lines", line + `, "trial": 1}` + "\r\n" + line + `, "trial": 3}` + "\r\n\r\n  \n", 3},
		{"no trial", line + "}\n", 0},
		{"a bad last line", line + `, "trial": 2}` + "\n" + line + `, "trial": 2` + "\n", 0},
		{"a last line longer than the tail read", line + `, "trial": 1}` + "\n" + long + "\n", 0},
		{"empty", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "outputs.jsonl")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := OpenOutputStream(SnapshotFile{Label: "x", Path: path}, suite.Vocabulary{"approve"})
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			if got := out.LastTrial(); got != tc.want {
				t.Errorf("LastTrial() = %d, want %d", got, tc.want)
			}
			// Next still reads the file from its start.
			if tc.text == "" {
				return
			}
			if o, err := out.Next(); err != nil || o.CaseID != "ER-001" {
				t.Errorf("Next after LastTrial: %+v, %v", o, err)
			}
		})
	}
}
