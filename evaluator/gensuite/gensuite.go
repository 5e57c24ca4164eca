// Package gensuite writes large synthetic data folders for benchmarks and
// load tests: the policy, schema, thresholds and handoff of a sample
// folder, and its cases and outputs repeated under fresh ids, so every
// snapshot keeps the sample's mix of passing and failing cases at any
// size. Latencies vary from copy to copy so that percentiles and charts
// have something to show.
package gensuite

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Write fills dir with a suite of n cases generated from the sample data
// folder src and, for each snapshot of src, an outputs file answering
// every case.
func Write(src, dir string, n int) error {
	if err := os.MkdirAll(filepath.Join(dir, "outputs"), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"POLICY.md", "case.schema.json", "gate.json", "HANDOFF.md"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	err := repeat(filepath.Join(src, "cases.jsonl"), filepath.Join(dir, "cases.jsonl"), n, func(i int, c map[string]any) {
		c["title"] = fmt.Sprintf("%v (copy %d)", c["title"], i/12+1)
	})
	if err != nil {
		return err
	}
	snaps, err := filepath.Glob(filepath.Join(src, "outputs", "*.jsonl"))
	if err != nil {
		return err
	}
	for _, s := range snaps {
		err := repeat(s, filepath.Join(dir, "outputs", filepath.Base(s)), n, func(i int, o map[string]any) {
			if lat, err := strconv.ParseFloat(fmt.Sprint(o["latency_ms"]), 64); err == nil {
				o["latency_ms"] = int(lat) + (i*37)%400
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ID is the case id of generated case i (from 0).
func ID(i int) string { return fmt.Sprintf("GEN-%06d", i+1) }

// repeat writes n lines cycling through the objects of src in case id
// order, giving line i the id ID(i) and letting edit change it. Cases and
// outputs pair up because both are cycled in the same id order.
func repeat(src, dst string, n int, edit func(i int, v map[string]any)) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var objects []map[string]any
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %v", src, err)
		}
		objects = append(objects, v)
	}
	if len(objects) == 0 {
		return fmt.Errorf("%s: no lines to repeat", src)
	}
	slices.SortFunc(objects, func(a, b map[string]any) int {
		return cmp.Compare(fmt.Sprint(a["case_id"]), fmt.Sprint(b["case_id"]))
	})
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		v := make(map[string]any, len(objects[i%len(objects)]))
		for k, x := range objects[i%len(objects)] {
			v[k] = x
		}
		v["case_id"] = ID(i)
		edit(i, v)
		line, err := json.Marshal(v)
		if err != nil {
			f.Close()
			return err
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteTrials is Write for agents run k times: each snapshot of src
// becomes k trials of n cases, and the suite and outputs use the docs/data-format.md, "Real agents"
// extensions a real suite does. Expected arguments carry matchers ($text
// on a third of the cases, $any on another third, an $optional member on
// every fifth), output calls come in the four wire formats in turn, with
// the OpenAI ones sending their arguments as JSON strings, every
// fiftieth output has no latency and cost measured, and each trial is a
// little slower than the one before.
func WriteTrials(src, dir string, n, k int) error {
	if err := Write(src, dir, 0); err != nil {
		return err
	}
	if err := repeat(filepath.Join(src, "cases.jsonl"), filepath.Join(dir, "cases.jsonl"), n, withMatchers); err != nil {
		return err
	}
	snaps, err := filepath.Glob(filepath.Join(src, "outputs", "*.jsonl"))
	if err != nil {
		return err
	}
	for _, s := range snaps {
		if err := writeTrialSnapshot(s, dir, n, k); err != nil {
			return err
		}
	}
	return nil
}

// WriteTrialsByCase is WriteTrials with each snapshot's lines in the
// order import writes them: each case's trials one after another, trial
// 1 first, case by case in suite order.
func WriteTrialsByCase(src, dir string, n, k int) error {
	if err := WriteTrials(src, dir, n, k); err != nil {
		return err
	}
	return reorder(dir, func(lines [][]byte) [][]byte {
		byCase := make([][]byte, 0, n*k)
		for i := range n {
			for t := range k {
				byCase = append(byCase, lines[t*n+i])
			}
		}
		return byCase
	})
}

// Shuffle puts the lines of every snapshot of the data folder dir in a
// random order, the same for the same seed, as an agent run in parallel
// writes them: each line as its case finishes.
func Shuffle(dir string, seed uint64) error {
	return reorder(dir, func(lines [][]byte) [][]byte {
		r := rand.New(rand.NewPCG(seed, uint64(len(lines))))
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		return lines
	})
}

// reorder rewrites every snapshot of the data folder dir with its lines,
// each ending with a line end, in the order order gives them.
func reorder(dir string, order func(lines [][]byte) [][]byte) error {
	snaps, err := filepath.Glob(filepath.Join(dir, "outputs", "*.jsonl"))
	if err != nil {
		return err
	}
	for _, s := range snaps {
		b, err := os.ReadFile(s)
		if err != nil {
			return err
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			b = append(b, '\n')
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		lines = lines[:len(lines)-1] // the empty string after the last line end
		if err := os.WriteFile(s, bytes.Join(order(lines), nil), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// withMatchers makes copy i of case c: its title numbered, and matchers
// in its expected arguments.
func withMatchers(i int, c map[string]any) {
	c["title"] = fmt.Sprintf("%v (copy %d)", c["title"], i/12+1)
	exp := cloneMap(c["expected"].(map[string]any))
	calls := []any{}
	for _, call := range exp["tool_calls"].([]any) {
		call := cloneMap(call.(map[string]any))
		call["arguments"] = matcherArguments(i, call["arguments"].(map[string]any))
		calls = append(calls, call)
	}
	exp["tool_calls"] = calls
	c["expected"] = exp
}

// matcherArguments are the expected arguments of copy i with matchers: the
// first string argument (by name) as $text on a third of the copies and as
// $any on another third, and an $optional member on every fifth.
func matcherArguments(i int, expected map[string]any) map[string]any {
	args := cloneMap(expected)
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if s, ok := args[name].(string); ok {
			switch i % 3 {
			case 1:
				args[name] = map[string]any{"$text": s}
			case 2:
				args[name] = map[string]any{"$any": []any{"another value", s}}
			}
			break
		}
	}
	if i%5 == 0 {
		args["memo_ref"] = map[string]any{"$optional": map[string]any{"$text": "as agreed"}}
	}
	return args
}

// writeTrialSnapshot writes the snapshot s of the source as k trials of n
// outputs, one trial after the other, through a temporary file beside it.
func writeTrialSnapshot(s, dir string, n, k int) error {
	tmp := filepath.Join(dir, "outputs", "."+filepath.Base(s)+".trial")
	out, err := os.Create(filepath.Join(dir, "outputs", filepath.Base(s)))
	if err != nil {
		return err
	}
	for t := 1; t <= k; t++ {
		err := repeat(s, tmp, n, func(i int, o map[string]any) { trialOutput(i, t, o) })
		if err == nil {
			err = appendFile(out, tmp)
		}
		if err != nil {
			out.Close()
			return err
		}
	}
	os.Remove(tmp)
	return out.Close()
}

// trialOutput makes output o of copy i into its answer in trial t: a little
// slower each trial, unmeasured on every fiftieth, and its calls in the
// four wire formats in turn.
func trialOutput(i, t int, o map[string]any) {
	o["trial"] = t
	if lat, err := strconv.ParseFloat(fmt.Sprint(o["latency_ms"]), 64); err == nil {
		o["latency_ms"] = int(lat) + (i*37)%400 + 10*t
	}
	if i%50 == 0 {
		o["latency_ms"], o["cost_usd"] = nil, nil
	}
	var calls []any
	for j, call := range o["tool_calls"].([]any) {
		calls = append(calls, wireCall(call.(map[string]any), i, j, t))
	}
	o["tool_calls"] = append([]any{}, calls...)
}

// wireCall is call j of output i in trial t in one of the four wire
// formats, chosen in turn: as written, OpenAI's Chat Completions and
// Responses (arguments as JSON strings), and Anthropic's tool_use.
func wireCall(call map[string]any, i, j, t int) any {
	args, _ := json.Marshal(call["arguments"])
	switch (i + j + t) % 4 {
	case 1:
		return map[string]any{"type": "function", "id": fmt.Sprintf("call_%d", i),
			"function": map[string]any{"name": call["name"], "arguments": string(args)}}
	case 2:
		return map[string]any{"type": "function_call", "call_id": fmt.Sprintf("fc_%d", i),
			"name": call["name"], "arguments": string(args)}
	case 3:
		return map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", i),
			"name": call["name"], "input": call["arguments"]}
	}
	return call
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	maps.Copy(out, m)
	return out
}

// appendFile copies the file at path to the end of w.
func appendFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
