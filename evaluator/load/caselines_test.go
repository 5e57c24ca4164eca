package load

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// copySuite copies the sample's suite files into a new folder.
func copySuite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{CasesFile, PolicyFile, SchemaFile, GateFile} {
		b, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestCaseLinesReadAsFresh edits a suite at random, step after step, and
// reads it after each step with the cases of the reading before and
// without: the two must give the same cases, or the same error.
func TestCaseLinesReadAsFresh(t *testing.T) {
	dir := copySuite(t)
	path := func(name string) string { return filepath.Join(dir, name) }
	read := func(name string) []byte {
		b, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(path(name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	original := map[string][]byte{CasesFile: read(CasesFile), PolicyFile: read(PolicyFile), SchemaFile: read(SchemaFile)}
	lines := NewCaseLines()
	r := rand.New(rand.NewPCG(1, 2))
	edits := append(anyLineEdits(r), []lineEdit{
		{"retitle", func(cases [][]byte) [][]byte {
			i := r.IntN(len(cases))
			cases[i] = bytes.Replace(cases[i], []byte(`"title": "`), []byte(`"title": "Edited `), 1)
			return cases
		}},
		{"restore cases", func([][]byte) [][]byte {
			return bytes.Split(bytes.TrimSuffix(original[CasesFile], []byte("\n")), []byte("\n"))
		}},
		{"rename a rule", func(cases [][]byte) [][]byte {
			write(PolicyFile, bytes.Replace(original[PolicyFile], []byte("§2.1 Ordinary"), []byte("§2.9 Ordinary"), 1))
			return cases
		}},
		{"restore the policy", func(cases [][]byte) [][]byte { write(PolicyFile, original[PolicyFile]); return cases }},
		{"remove the policy", func(cases [][]byte) [][]byte { os.Remove(path(PolicyFile)); return cases }},
		{"touch the schema", func(cases [][]byte) [][]byte {
			write(SchemaFile, append(bytes.Clone(original[SchemaFile]), '\n'))
			return cases
		}},
		{"restore the schema", func(cases [][]byte) [][]byte { write(SchemaFile, original[SchemaFile]); return cases }},
	}...)
	cases := bytes.Split(bytes.TrimSuffix(original[CasesFile], []byte("\n")), []byte("\n"))
	var before *suite.Suite
	shared, readable := 0, 0
	for step := range 300 {
		e := edits[r.IntN(len(edits))]
		cases = e.do(cases)
		write(CasesFile, append(bytes.Join(cases, []byte("\n")), '\n'))
		got, gotErr := Suite(dir, Options{KeepInputs: true, CaseLines: lines})
		want, wantErr := Suite(dir, Options{KeepInputs: true})
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("step %d (%s): error\n%v\nread afresh:\n%v", step, e.name, gotErr, wantErr)
		}
		if gotErr != nil {
			continue
		}
		readable++
		if !reflect.DeepEqual(got.Cases, want.Cases) {
			t.Fatalf("step %d (%s): the cases differ from a fresh reading", step, e.name)
		}
		if before != nil && sharesCase(before, got) {
			shared++
		}
		before = got
	}
	if readable < 30 || shared < 15 {
		t.Fatalf("%d readable steps, %d taking cases from the reading before: the test covers too little", readable, shared)
	}
}

// lineEdit is one random edit of the lines of a JSON Lines file.
type lineEdit struct {
	name string
	do   func(lines [][]byte) [][]byte
}

// anyLineEdits are the edits that suit any JSON Lines file: two lines
// swapped, a line copied to the end, a line removed, a line cut short.
func anyLineEdits(r *rand.Rand) []lineEdit {
	return []lineEdit{
		{"swap", func(lines [][]byte) [][]byte {
			i, j := r.IntN(len(lines)), r.IntN(len(lines))
			lines[i], lines[j] = lines[j], lines[i]
			return lines
		}},
		{"duplicate", func(lines [][]byte) [][]byte { return append(lines, lines[r.IntN(len(lines))]) }},
		{"remove", func(lines [][]byte) [][]byte {
			if len(lines) < 2 {
				return lines
			}
			i := r.IntN(len(lines))
			return append(lines[:i:i], lines[i+1:]...)
		}},
		{"break", func(lines [][]byte) [][]byte {
			i := r.IntN(len(lines))
			lines[i] = lines[i][:len(lines[i])/2]
			return lines
		}},
	}
}

// sharesCase reports whether b took a case of a as it was: the two share
// its lists.
func sharesCase(a, b *suite.Suite) bool {
	for _, c := range b.Cases {
		if i, ok := a.CaseIndex(c.ID); ok {
			x, y := a.Cases[i].Expected.Citations, c.Expected.Citations
			if len(x) > 0 && len(y) > 0 && &x[0] == &y[0] {
				return true
			}
		}
	}
	return false
}

// BenchmarkSuiteEdited reads a suite of 10,000 cases again after an edit
// of one case, from scratch ("plain") and taking the other cases from
// the reading before ("fast"), in turn.
//
//	go test ./evaluator/load -run '^$' -bench SuiteEdited -benchmem -count 5
func BenchmarkSuiteEdited(b *testing.B) {
	dir := b.TempDir()
	src, err := os.ReadFile(filepath.Join(sampleDir, CasesFile))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{PolicyFile, SchemaFile, GateFile} {
		data, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	lines := bytes.Split(bytes.TrimSpace(src), []byte("\n"))
	var big bytes.Buffer
	for i := range 10_000 {
		l := lines[i%len(lines)]
		big.Write(bytes.Replace(l, []byte(`"case_id": "`), fmt.Appendf(nil, `"case_id": "N%05d-`, i), 1))
		big.WriteByte('\n')
	}
	versions := [][]byte{big.Bytes(), bytes.Replace(big.Bytes(), []byte(`"title": "`), []byte(`"title": "Edited `), 1)}
	for _, way := range []struct {
		name  string
		lines *CaseLines
	}{{"plain", nil}, {"fast", NewCaseLines()}} {
		b.Run(way.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if err := os.WriteFile(filepath.Join(dir, CasesFile), versions[i%2], 0o644); err != nil {
					b.Fatal(err)
				}
				if _, err := Suite(dir, Options{KeepInputs: true, CaseLines: way.lines}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
