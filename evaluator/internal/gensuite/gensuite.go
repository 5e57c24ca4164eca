// Package gensuite writes large synthetic data folders for benchmarks and
// load tests: the sample's policy, schema, gate and handoff, and its twelve
// cases and outputs repeated under fresh ids, so every snapshot keeps the
// sample's mix of passing and failing cases at any size.
package gensuite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Write fills dir with a suite of n cases and, for each snapshot label of
// the sample folder src, an outputs file answering every case.
func Write(src, dir string, n int) error {
	for _, name := range []string{"POLICY.md", "case.schema.json", "gate.json", "HANDOFF.md"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	if err := repeat(filepath.Join(src, "cases.jsonl"), filepath.Join(dir, "cases.jsonl"), n); err != nil {
		return err
	}
	snaps, err := filepath.Glob(filepath.Join(src, "outputs", "*.jsonl"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		return err
	}
	for _, s := range snaps {
		if err := repeat(s, filepath.Join(dir, "outputs", filepath.Base(s)), n); err != nil {
			return err
		}
	}
	return nil
}

// repeat writes n lines cycling through the lines of src, giving line i
// the case id "G<i>": the sample ids "ER-001"… map onto it consistently in
// cases and outputs because both files list the sample cases in the same
// order of ids.
func repeat(src, dst string, n int) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var lines [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	byID := map[string][]byte{}
	var ids []string
	for _, l := range lines {
		id := caseID(l)
		byID[id] = l
		ids = append(ids, id)
	}
	slices.Sort(ids)
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		id := ids[i%len(ids)]
		line := bytes.Replace(byID[id], []byte(`"`+id+`"`), fmt.Appendf(nil, `"G%07d"`, i), 1)
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func caseID(line []byte) string {
	var c struct {
		CaseID string `json:"case_id"`
	}
	json.Unmarshal(line, &c)
	return c.CaseID
}
