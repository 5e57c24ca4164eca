package runlog

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/klauspost/compress/zstd"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// Each importer has a fuzz target: whatever the bytes, the import does not
// panic, gives the same result twice, writes only lines the snapshot
// format allows, and allocates in proportion to its input.

// fuzzSeeds adds the files of testdata/ (and, where they are, the public
// logs beside the repository) whose names start with prefix.
func fuzzSeeds(f *testing.F, prefix string, extra ...[]byte) {
	for _, dir := range []string{"testdata", realDataDir(f)} {
		if dir == "" {
			continue
		}
		names, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil {
				f.Add(b)
			}
		}
	}
	for _, b := range extra {
		f.Add(b)
	}
}

// checkImport is the property every importer keeps.
func checkImport(t *testing.T, format Format, data []byte, boundAllocs bool) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := Import(format, bytesSource("log", data), Options{})
	runtime.ReadMemStats(&after)
	if boundAllocs {
		if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 64*uint64(len(data))+16<<20 {
			t.Fatalf("importing %d bytes allocated %d bytes", len(data), allocated)
		}
	}
	again, err2 := Import(format, bytesSource("log", data), Options{})
	if (err == nil) != (err2 == nil) || err != nil && err.Error() != err2.Error() {
		t.Fatalf("two imports of the same bytes: %v, then %v", err, err2)
	}
	if err != nil {
		return
	}
	if len(res.Snapshots) != len(again.Snapshots) {
		t.Fatalf("%d snapshots, then %d", len(res.Snapshots), len(again.Snapshots))
	}
	for i, s := range res.Snapshots {
		a, b := linesOfSnapshot(t, s), linesOfSnapshot(t, again.Snapshots[i])
		if !bytes.Equal(a, b) {
			t.Fatalf("snapshot %d differs between two imports", i)
		}
		if s.Lines()+len(s.Failed) != s.Records {
			t.Fatalf("%d lines and %d failed of %d records", s.Lines(), len(s.Failed), s.Records)
		}
		checkLines(t, a, s.Trials)
	}
}

// checkLines checks what the evaluator needs of each line: an object
// starting with a case id the run may use, then the trial when the
// snapshot has trials, then tool calls each with a name and arguments
// that are an object or a string.
func checkLines(t *testing.T, lines []byte, trials int) {
	for _, line := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !bytes.HasSuffix(line, []byte("\n")) || !jsontext.Value(bytes.TrimSuffix(line, []byte("\n"))).IsValid() {
			t.Fatalf("not a JSON line: %q", line)
		}
		dec := jsontext.NewDecoder(bytes.NewReader(line))
		dec.ReadToken()
		var names []string
		for dec.PeekKind() == '"' {
			name, _ := dec.ReadToken()
			names = append(names, name.String())
			switch name.String() {
			case "case_id":
				id, _ := dec.ReadToken()
				if err := suite.ValidCaseID(id.String()); err != nil {
					t.Fatalf("%s: %v", line, err)
				}
			case "tool_calls":
				dec.ReadToken()
				for dec.PeekKind() == '{' {
					v, _ := dec.ReadValue()
					var call struct {
						Name      string         `json:"name"`
						Arguments jsontext.Value `json:"arguments"`
					}
					if err := json.Unmarshal(v, &call); err != nil || call.Name == "" || (call.Arguments.Kind() != '{' && call.Arguments.Kind() != '"') {
						t.Fatalf("a call that is not {name, arguments}: %s", v)
					}
				}
				dec.ReadToken()
			default:
				dec.SkipValue()
			}
		}
		want := "case_id tool_calls latency_ms cost_usd"
		if trials > 0 {
			want = "case_id trial tool_calls latency_ms cost_usd"
		}
		if got := strings.Join(names, " "); got != want {
			t.Fatalf("members %s, want %s: %s", got, want, line)
		}
	}
}

func FuzzInspectJSON(f *testing.F) {
	fuzzSeeds(f, "inspect-", []byte(inspectLog(`{"id": 1, "epoch": 2, "messages": [{"role": "assistant", "tool_calls": [{"function": "f", "arguments": "x"}]}]}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, []byte("PK")) {
			return // FuzzInspectEval's
		}
		checkImport(t, Inspect, data, true)
	})
}

func FuzzInspectEval(f *testing.F) {
	log, err := os.ReadFile(filepath.Join("testdata", "inspect-support.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(evalArchive(f, log, zstd.ZipMethodWinZip, true))
	f.Add(evalArchive(f, log, zip.Deflate, false))
	f.Add(evalArchive(f, []byte(inspectLog(`{"id": "x", "epoch": 1}`)), zip.Store, true))
	if dir := realDataDir(f); dir != "" {
		names, _ := filepath.Glob(filepath.Join(dir, "*.eval"))
		for _, name := range names {
			if b, err := os.ReadFile(name); err == nil && len(b) < 64<<10 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Compressed members may expand a great deal, so allocations are
		// not bounded by the archive's size.
		checkImport(t, Inspect, data, false)
	})
}

func FuzzPromptfoo(f *testing.F) {
	fuzzSeeds(f, "promptfoo-", []byte(promptfooExport(pfLine("a", "p", "x", `, "latencyMs": 3`), pfLine("a", "p", "x", `, "failureReason": 2`))),
		[]byte(pfLine("a", "p", "x", `, "latencyMs": 3`)+"\n"+pfLine("b", "q", "x", `, "cost": 0.5`)+"\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, Promptfoo, data, true) })
}

func FuzzOpenAIBatch(f *testing.F) {
	fuzzSeeds(f, "openai-batch", []byte(batchLine(`"a"`)+batchLine(`7`)))
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, OpenAIBatch, data, true) })
}

func FuzzAnthropicBatch(f *testing.F) {
	fuzzSeeds(f, "anthropic-batch", []byte(`{"custom_id":"a","result":{"type":"succeeded","message":{"model":"m","content":[{"type":"tool_use","name":"f","input":{}}]}}}`+"\n"))
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, AnthropicBatch, data, true) })
}
