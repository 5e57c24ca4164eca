package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runlogData is the hand-written logs of internal/runlog.
const runlogData = "../../internal/runlog/testdata"

// listing describes every entry of a folder: its kind and, for a file,
// the SHA-256 of its bytes; a failed import must leave it unchanged.
func listing(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			out[rel] = "link to " + target
		case d.IsDir():
			out[rel] = "folder"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] = hex.EncodeToString(sum[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyTree copies the data folder src to a new temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "data")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// emptyData is a new data folder with nothing in it.
func emptyData(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// minimalBatch is an Anthropic batch answering the cases of
// examples/minimal, in another order than the suite's, one expired.
const minimalBatch = `{"custom_id":"home-3","result":{"type":"succeeded","message":{"model":"claude-x","content":[{"type":"text","text":"I cannot unlock it."}],"usage":{"input_tokens":10,"output_tokens":5}}}}
{"custom_id":"home-1","result":{"type":"succeeded","message":{"model":"claude-x","content":[{"type":"tool_use","id":"t1","name":"set_light","input":{"room":"hallway","on":true}}],"usage":{"input_tokens":12,"output_tokens":7}}}}
{"custom_id":"home-2","result":{"type":"expired"}}
`

func TestImportWritesSnapshotInSuiteOrder(t *testing.T) {
	data := copyTree(t, "../../examples/minimal")
	log := writeFile(t, filepath.Join(t.TempDir(), "msgbatch_01.jsonl"), minimalBatch)
	code, stdout, stderr := runCmd(t, "import", "anthropic-batch", log, "--data", data, "--price-in", "3", "--price-out", "15")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	// Suite order (home-1, then home-3); the expired request has no line;
	// (12 × 3 + 7 × 15) / 10⁶ and (10 × 3 + 5 × 15) / 10⁶.
	want := `{"case_id": "home-1", "tool_calls": [{"name": "set_light", "arguments": {"room": "hallway", "on": true}}], "latency_ms": null, "cost_usd": 0.000141}
{"case_id": "home-3", "tool_calls": [], "latency_ms": null, "cost_usd": 0.000105}
`
	if got := readFile(t, filepath.Join(data, "outputs", "msgbatch_01.jsonl")); got != want {
		t.Errorf("outputs/msgbatch_01.jsonl =\n%s\nwant\n%s", got, want)
	}
	if got, want := readFile(t, filepath.Join(data, "outputs", "msgbatch_01.meta.json")), "{\n  \"model\": \"claude-x\"\n}\n"; got != want {
		t.Errorf("meta.json = %q, want %q", got, want)
	}
	for _, s := range []string{
		"wrote " + filepath.Join(data, "outputs", "msgbatch_01.jsonl") + ": 2 lines from 3 records of " + log + ", and msgbatch_01.meta.json",
		"1 record failed and got no line; its case is judged missing_output:",
		`"home-2": expired: the batch ended before the request was processed`,
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
}

func TestImportRefusesAndWritesNothing(t *testing.T) {
	support := filepath.Join(runlogData, "inspect-support.json")
	promptfoo := filepath.Join(runlogData, "promptfoo-agent.json")
	tests := []struct {
		name  string
		setup func(t *testing.T, data string) []string // the arguments after "import"
		code  int
		want  string
	}{
		{"an id not in the suite", func(t *testing.T, data string) []string {
			log := writeFile(t, filepath.Join(t.TempDir(), "b.jsonl"), minimalBatch+`{"custom_id":"home-9","result":{"type":"canceled"}}`+"\n")
			return []string{"anthropic-batch", log, "--data", data}
		}, exitFail, `b.jsonl: the run answers a case whose id is not in the suite: "home-9"`},
		{"a label that exists", func(t *testing.T, data string) []string {
			return []string{"inspect", support, "--data", data, "--label", "run-1"}
		}, exitFail, `outputs/run-1.jsonl: snapshot "run-1" exists: choose another --label, or give --force to replace it`},
		{"a label equal but for case", func(t *testing.T, data string) []string {
			return []string{"inspect", support, "--data", data, "--label", "RUN-1", "--force"}
		}, exitFail, "outputs/run-1.jsonl: differs from RUN-1.jsonl only in case"},
		{"a truncated log", func(t *testing.T, data string) []string {
			b, _ := os.ReadFile(promptfoo)
			return []string{"promptfoo", writeFile(t, filepath.Join(t.TempDir(), "cut.json"), string(b[:len(b)/2])), "--data", data}
		}, exitFail, "cut.json:52: results.results[3].testIdx: the file ends in the middle of a JSON value"},
		{"a truncated .eval", func(t *testing.T, data string) []string {
			b, _ := os.ReadFile(filepath.Join(importedExample, "runs", "support-agent.eval"))
			return []string{"inspect", writeFile(t, filepath.Join(t.TempDir(), "cut.eval"), string(b[:len(b)-100])), "--data", data}
		}, exitFail, "cut.eval: not a complete zip archive"},
		{"a truncated batch file", func(t *testing.T, data string) []string {
			return []string{"anthropic-batch", writeFile(t, filepath.Join(t.TempDir(), "cut.jsonl"), minimalBatch[:len(minimalBatch)-20]), "--data", data}
		}, exitFail, "cut.jsonl:3: result: the file ends in the middle of a JSON value"},
		{"a log of another format", func(t *testing.T, data string) []string {
			return []string{"openai-batch", promptfoo, "--data", data}
		}, exitFail, "this looks like a promptfoo export, not an OpenAI Batch API output file; try `releasegate import promptfoo " + promptfoo + "`"},
		{"--label with several providers", func(t *testing.T, data string) []string {
			os.Remove(filepath.Join(data, "cases.jsonl"))
			return []string{"promptfoo", promptfoo, "--data", data, "--label", "one"}
		}, exitUsage, `holds the answers of 2 providers ("desk-claude", "openai:responses:gpt-5-mini"), one snapshot each`},
		{"a link where the snapshot goes", func(t *testing.T, data string) []string {
			target := writeFile(t, filepath.Join(t.TempDir(), "elsewhere.jsonl"), "keep me\n")
			if err := os.Symlink(target, filepath.Join(data, "outputs", "linked.jsonl")); err != nil {
				t.Skip(err)
			}
			return []string{"inspect", support, "--data", data, "--label", "linked", "--force"}
		}, exitFail, "outputs/linked.jsonl: not a regular file"},
		{"a meta.json the run cannot replace", func(t *testing.T, data string) []string {
			writeFile(t, filepath.Join(data, "outputs", "batch.meta.json"), `{"model": "old"}`)
			writeFile(t, filepath.Join(data, "outputs", "batch.jsonl"), "")
			log := writeFile(t, filepath.Join(t.TempDir(), "batch.jsonl"), `{"custom_id":"home-1","result":{"type":"expired"}}`+"\n")
			return []string{"anthropic-batch", log, "--data", data, "--force"}
		}, exitFail, "outputs/batch.jsonl: was not written by releasegate import, or was changed since, so --force does not replace it"},
		{"a suite that is bad input", func(t *testing.T, data string) []string {
			writeFile(t, filepath.Join(data, "cases.jsonl"), "{not json\n")
			return []string{"inspect", support, "--data", data}
		}, exitFail, "cases.jsonl:1:"},
		{"a log of another suite", func(t *testing.T, data string) []string {
			return []string{"inspect", support, "--data", data, "--label", "new"}
		}, exitFail, `the run answers 3 cases whose ids are not in the suite: "a-1", "7", "b-2"`},
		{"a promptfoo export without ids", func(t *testing.T, data string) []string {
			log := writeFile(t, filepath.Join(t.TempDir(), "noids.json"), `{"evalId": "e", "results": {"version": 3, "results": [{"provider": {"id": "p"}, "response": {"output": "x"}}]}}`)
			return []string{"promptfoo", log, "--data", data}
		}, exitFail, "noids.json:1: results.results[0]: 1 of the 1 results have no case id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := copyTree(t, "../../examples/minimal")
			args := tt.setup(t, data)
			before := listing(t, data)
			code, _, stderr := runCmd(t, append([]string{"import"}, args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and a message holding\n%s", code, stderr, tt.code, tt.want)
			}
			if after := listing(t, data); !mapsEqual(before, after) {
				t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestImportWithoutADataFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	code, _, stderr := runCmd(t, "import", "inspect", filepath.Join(runlogData, "inspect-support.json"), "--data", missing)
	if code != exitFail || !strings.Contains(stderr, missing+": not a data folder") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("import made %s", missing)
	}
}

func TestImportForceReplacesOnlyTheSnapshot(t *testing.T) {
	data := copyTree(t, "../../examples/minimal")
	log := writeFile(t, filepath.Join(t.TempDir(), "run-1.jsonl"), minimalBatch)
	if code, _, stderr := runCmd(t, "import", "anthropic-batch", log, "--data", data, "--label", "again"); code != exitOK {
		t.Fatalf("first import: exit %d; stderr: %s", code, stderr)
	}
	// An imported snapshot whose meta.json a person then edited is no
	// longer import's to replace; put it back as import wrote it.
	meta := filepath.Join(data, "outputs", "again.meta.json")
	written := readFile(t, meta)
	writeFile(t, meta, `{"model": "edited by hand"}`)
	before := listing(t, data)
	code, _, stderr := runCmd(t, "import", "anthropic-batch", log, "--data", data, "--label", "again", "--force")
	if code != exitFail || !strings.Contains(stderr, "again.meta.json: was not written by releasegate import, or was changed since") {
		t.Errorf("--force over an edited meta.json: exit %d, stderr %s", code, stderr)
	}
	if after := listing(t, data); !mapsEqual(before, after) {
		t.Errorf("a refused --force changed the folder:\nbefore %v\nafter  %v", before, after)
	}
	writeFile(t, meta, written)

	before = listing(t, data)
	code, stdout, stderr := runCmd(t, "import", "anthropic-batch", log, "--data", data, "--label", "again", "--force")
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if !strings.Contains(stdout, "replaced "+filepath.Join(data, "outputs", "again.jsonl")) {
		t.Errorf("stdout does not say the snapshot was replaced:\n%s", stdout)
	}
	after := listing(t, data)
	for name, sum := range before {
		if after[name] != sum && !strings.HasPrefix(name, filepath.Join("outputs", "again.")) && name != filepath.Join("outputs", importRecord) {
			t.Errorf("%s changed", name)
		}
	}
	if len(after) != len(before) {
		t.Errorf("files before %v, after %v", before, after)
	}

	// A snapshot a person wrote is never replaced, --force or not.
	before = listing(t, data)
	code, _, stderr = runCmd(t, "import", "anthropic-batch", log, "--data", data, "--label", "run-1", "--force")
	if code != exitFail || !strings.Contains(stderr, "run-1.jsonl: was not written by releasegate import") {
		t.Errorf("--force over a hand-written snapshot: exit %d, stderr %s", code, stderr)
	}
	if after := listing(t, data); !mapsEqual(before, after) {
		t.Errorf("the data folder changed:\nbefore %v\nafter  %v", before, after)
	}
}

func TestImportSameLogSameBytes(t *testing.T) {
	var first map[string]string
	for range 2 {
		data := emptyData(t)
		code, _, stderr := runCmd(t, "import", "promptfoo", filepath.Join(runlogData, "promptfoo-agent.json"), "--data", data, "--price-in", "1", "--price-out", "10")
		if code != exitOK {
			t.Fatalf("exit %d; stderr: %s", code, stderr)
		}
		got := listing(t, data)
		if first == nil {
			first = got
			// One snapshot per provider, named after its label, else its id.
			var names []string
			for name := range got {
				names = append(names, name)
			}
			slices.Sort(names)
			want := []string{".", "outputs", "outputs/" + importRecord, "outputs/desk-claude.jsonl", "outputs/desk-claude.meta.json",
				"outputs/openai-responses-gpt-5-mini.jsonl", "outputs/openai-responses-gpt-5-mini.meta.json"}
			if !slices.Equal(names, want) {
				t.Fatalf("files %q, want %q", names, want)
			}
			continue
		}
		if !mapsEqual(first, got) {
			t.Errorf("two imports of one log differ: %v and %v", first, got)
		}
	}
}

func TestImportUsage(t *testing.T) {
	log := filepath.Join(runlogData, "inspect-support.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "give the format and the file"},
		{[]string{"import", "inspect"}, "give the format and the file"},
		{[]string{"import", "inspect", log, "extra"}, `unexpected argument "extra"`},
		{[]string{"import", "langsmith", log}, `unknown format "langsmith": use inspect, promptfoo, openai-batch or anthropic-batch`},
		{[]string{"import", "inspect", log, "--price-in", "1"}, "give both --price-in and --price-out, or neither"},
		{[]string{"import", "inspect", log, "--price-in", "1", "--price-out", "-2"}, `--price-out is "-2"`},
		{[]string{"import", "inspect", log, "--price-in", "$3", "--price-out", "2"}, `--price-in is "$3"`},
		{[]string{"import", "inspect", log, "--label", "../x"}, `label "../x" is not a safe name`},
		{[]string{"import", "--bogus", "inspect", log}, "flag provided but not defined: -bogus"},
	}
	for _, tt := range tests {
		code, _, stderr := runCmd(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestImportFlagsAnywhere(t *testing.T) {
	data := emptyData(t)
	code, _, stderr := runCmd(t, "import", "--data", data, "inspect", "--label", "support", filepath.Join(runlogData, "inspect-support.json"))
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "outputs", "support.jsonl")); err != nil {
		t.Error(err)
	}
}

func TestImportProgressLine(t *testing.T) {
	var stderr bytes.Buffer
	o := importFlags{file: "big.json", stderr: &stderr, progressMinimumSize: 10}
	add := o.newProgress(200 << 20)
	for range 4 {
		add(50 << 20)
	}
	add(-1)
	got := stderr.String()
	for _, want := range []string{"\r\x1b[Kimporting big.json: 50 of 200 MiB (25%)", "150 of 200 MiB (75%)", "\r\x1b[K"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "(100%)") {
		t.Errorf("progress %q shows 100%% before the end", got)
	}
	stderr.Reset()
	small := importFlags{file: "small.json", stderr: &stderr, progressMinimumSize: importProgressBytes}
	small.newProgress(1 << 20)(1 << 20)
	if stderr.Len() != 0 {
		t.Errorf("a small log drew progress: %q", stderr.String())
	}
}

// TestImportRealLogs imports each public log of ../shared/realdata/import
// as its MANIFEST.json says, into a folder of its own.
func TestImportRealLogs(t *testing.T) {
	dir := "../../../shared/realdata/import"
	manifest, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Skip("../shared/realdata/import is absent")
	}
	var entries []struct {
		File, Format, Label, Expect string
		Price                       []json.Number
	}
	if err := json.Unmarshal(manifest, &entries); err != nil {
		t.Fatal(err)
	}
	// The snapshots each import writes; promptfoo's are named after the
	// providers.
	labels := map[string][]string{
		"promptfoo-sample-export-ids.json": {"openai-gpt-5-mini", "openai-gpt-5"},
		"promptfoo-synthetic-tools.json":   {"openai-gpt-4.1-nano", "agent-a"},
	}
	for _, e := range entries {
		t.Run(e.File, func(t *testing.T) {
			data := emptyData(t)
			args := []string{"import", e.Format, filepath.Join(dir, e.File), "--data", data}
			if e.Label != "" {
				args = append(args, "--label", e.Label)
			}
			if len(e.Price) == 2 {
				args = append(args, "--price-in", e.Price[0].String(), "--price-out", e.Price[1].String())
			}
			code, _, stderr := runCmd(t, args...)
			if e.Expect == "refuse" {
				if code != exitFail || !strings.Contains(stderr, "have no case id") {
					t.Errorf("exit %d, stderr %q; want a refusal", code, stderr)
				}
				return
			}
			if code != exitOK {
				t.Fatalf("exit %d; stderr: %s", code, stderr)
			}
			want := labels[e.File]
			if want == nil {
				want = []string{e.Label}
			}
			for _, label := range want {
				lines := readFile(t, filepath.Join(data, "outputs", label+".jsonl"))
				meta := readFile(t, filepath.Join(data, "outputs", label+".meta.json"))
				if lines == "" || !strings.HasPrefix(lines, `{"case_id": `) || !strings.Contains(meta, `"model"`) {
					t.Errorf("%s: lines %q, meta %q", label, lines, meta)
				}
			}
		})
	}
}

// importedExample is the example data folder whose snapshots were
// imported from run logs.
const importedExample = "../../examples/imported"

// readmeImports returns the import commands of the example's README, as
// arguments after "releasegate".
func readmeImports(t *testing.T) [][]string {
	t.Helper()
	var cmds [][]string
	for _, line := range strings.Split(readFile(t, filepath.Join(importedExample, "README.md")), "\n") {
		if fields := strings.Fields(line); len(fields) > 2 && fields[0] == "releasegate" && fields[1] == "import" {
			cmds = append(cmds, fields[1:])
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("the README gives %d import commands, want the 2 that made the snapshots", len(cmds))
	}
	return cmds
}

// TestImportedExampleIsReproducible runs the README's import commands
// into a copy of the example without its snapshots: they must write the
// committed snapshots byte for byte.
func TestImportedExampleIsReproducible(t *testing.T) {
	data := copyTree(t, importedExample)
	if err := os.RemoveAll(filepath.Join(data, "outputs")); err != nil {
		t.Fatal(err)
	}
	for _, args := range readmeImports(t) {
		for i, a := range args {
			switch {
			case a == "examples/imported":
				args[i] = data
			case strings.HasPrefix(a, "examples/imported/"):
				args[i] = filepath.Join(importedExample, strings.TrimPrefix(a, "examples/imported/"))
			}
		}
		code, _, stderr := runCmd(t, args...)
		if code != exitOK {
			t.Fatalf("releasegate %s: exit %d; stderr: %s", strings.Join(args, " "), code, stderr)
		}
	}
	want := listing(t, filepath.Join(importedExample, "outputs"))
	got := listing(t, filepath.Join(data, "outputs"))
	// The record of what import wrote is not part of the example.
	delete(got, importRecord)
	if !mapsEqual(got, want) {
		t.Errorf("the README's commands write\n%v\nthe committed snapshots are\n%v", got, want)
	}
}

func TestImportedExampleBuilds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	code, stdout, stderr := runCmd(t, "build", "--data", importedExample, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	// The README's outcomes, in label order.
	rest := stdout
	for _, want := range []string{"claude-haiku-batch", "BLOCK", "support-agent-v1", "PASS"} {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("stdout lacks %q in order:\n%s", want, stdout)
		}
		rest = rest[i+len(want):]
	}
	for _, f := range []string{"index.html", "results/support-agent-v1.json", "results/claude-haiku-batch.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
