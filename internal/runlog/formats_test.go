package runlog

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// The logs of testdata/ are written by hand to the formats' published
// schemas, each to show what the importer makes of a field; the lines
// below are worked out from them by hand.

// importFile imports a file of testdata/.
func importFile(t *testing.T, format Format, name string, opts Options) *Result {
	t.Helper()
	res, err := Import(format, openSource(t, filepath.Join("testdata", name)), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// prices returns options that price tokens at in and out USD per million.
func prices(t testing.TB, in, out string) Options {
	return Options{PriceIn: decimalOf(t, in), PriceOut: decimalOf(t, out)}
}

var supportMeta = Meta{RecordedAt: "2026-03-01T10:00:00Z", Model: "openai/gpt-4.1", Commit: "0f1e2d3", Description: "support_desk"}

// inspect-support.json: two epochs; samples listed out of dataset order
// (b-2 epoch 2 before epoch 1); a numeric id; an attachment in a call's
// arguments; a call Inspect could not parse (arguments {}); a tool
// message naming a function (not a call); two models, one with a cost;
// total_time 12, 0.1, 1e-3 and null; a sample with an error.
var supportFailed = []Failure{{CaseID: "7", Trial: 2, Reason: "TimeoutError: the sandbox did not answer"}}

func TestInspectSupportLog(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		lines []string
	}{
		{"run order, no prices", Options{}, []string{
			// Without a suite, the dataset's order: b-2, 7, a-1.
			`{"case_id": "b-2", "trial": 1, "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
			`{"case_id": "b-2", "trial": 2, "tool_calls": [], "latency_ms": 750, "cost_usd": 0.00002}`,
			`{"case_id": "7", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": 7, "fields": ["status", "eta"], "note": "café ✓"}}], "latency_ms": 1, "cost_usd": null}`,
			`{"case_id": "a-1", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": 9}}, {"name": "attach_photo", "arguments": {"image": "data:image/png;base64,iVBORw0KGgo="}}, {"name": "issue_refund", "arguments": {}}], "latency_ms": 12000, "cost_usd": 0.0028}`,
			`{"case_id": "a-1", "trial": 2, "tool_calls": [], "latency_ms": 100, "cost_usd": null}`,
		}},
		{"suite order, priced", func() Options {
			o := prices(t, "2", "8")
			o.Suite = []string{"a-1", "zz", "7", "b-2"}
			return o
		}(), []string{
			// The log's own cost wins; (800 × 2 + 30 × 8) / 10⁶ and
			// (10 × 2 + 4 × 8) / 10⁶ price the others; sample 7 records
			// no tokens at all.
			`{"case_id": "a-1", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": 9}}, {"name": "attach_photo", "arguments": {"image": "data:image/png;base64,iVBORw0KGgo="}}, {"name": "issue_refund", "arguments": {}}], "latency_ms": 12000, "cost_usd": 0.0028}`,
			`{"case_id": "a-1", "trial": 2, "tool_calls": [], "latency_ms": 100, "cost_usd": 0.00184}`,
			`{"case_id": "7", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": 7, "fields": ["status", "eta"], "note": "café ✓"}}], "latency_ms": 1, "cost_usd": null}`,
			`{"case_id": "b-2", "trial": 1, "tool_calls": [], "latency_ms": null, "cost_usd": 0.000052}`,
			`{"case_id": "b-2", "trial": 2, "tool_calls": [], "latency_ms": 750, "cost_usd": 0.00002}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := importFile(t, Inspect, "inspect-support.json", tt.opts)
			checkSnapshots(t, res, []wantSnapshot{{trials: 2, meta: supportMeta, lines: tt.lines, failed: supportFailed}})
			if res.Records != 6 || res.Status != "" {
				t.Errorf("records %d, status %q; want 6, \"\"", res.Records, res.Status)
			}
		})
	}
}

// evalArchive writes an Inspect log as an .eval archive: header.json
// (the log without samples) and samples/<id>_epoch_<n>.json, each member
// compressed with method.
func evalArchive(t testing.TB, log []byte, method uint16, withHeader bool) []byte {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(log, &doc); err != nil {
		t.Fatal(err)
	}
	var samples []json.RawMessage
	if err := json.Unmarshal(doc["samples"], &samples); err != nil {
		t.Fatal(err)
	}
	delete(doc, "samples")
	header, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor())
	add := func(name string, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	for _, s := range samples {
		var key struct {
			ID    json.RawMessage `json:"id"`
			Epoch int             `json:"epoch"`
		}
		json.Unmarshal(s, &key)
		add(fmt.Sprintf("samples/%s_epoch_%d.json", bytes.Trim(key.ID, `"`), key.Epoch), s)
	}
	if withHeader {
		add("header.json", header)
	} else {
		add("_journal/start.json", header)
	}
	add("summaries.json", []byte("[]"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bytesSource is a Source over bytes in memory.
func bytesSource(name string, b []byte) Source {
	return Source{Name: name, Data: bytes.NewReader(b), Size: int64(len(b))}
}

// linesOfSnapshot returns what a snapshot writes.
func linesOfSnapshot(t testing.TB, s *Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteLines(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInspectEvalMatchesJSON(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("testdata", "inspect-support.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := linesOfSnapshot(t, importFile(t, Inspect, "inspect-support.json", Options{}).Snapshots[0])
	for _, tt := range []struct {
		name   string
		method uint16
		header bool
		status string
	}{
		{"zstd", zstd.ZipMethodWinZip, true, ""},
		{"deflate", zip.Deflate, true, ""},
		{"stored, unfinished", zip.Store, false, "started"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import(Inspect, bytesSource("support.eval", evalArchive(t, log, tt.method, tt.header)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Snapshots[0]
			if got := linesOfSnapshot(t, s); !bytes.Equal(got, want) {
				t.Errorf("the .eval imports to\n%s\nthe .json to\n%s", got, want)
			}
			if s.Meta != supportMeta || !slices.Equal(s.Failed, supportFailed) || s.Trials != 2 || res.Status != tt.status {
				t.Errorf("meta %+v, failed %+v, trials %d, status %q", s.Meta, s.Failed, s.Trials, res.Status)
			}
		})
	}
}

func TestPromptfooAgentExport(t *testing.T) {
	meta := func(model string) Meta {
		return Meta{RecordedAt: "2026-04-01T08:00:00.000Z", Model: model, Description: "Desk agent on two providers, --repeat 2"}
	}
	claude, gpt := "anthropic:messages:claude-sonnet-4-5", "openai:responses:gpt-5-mini"
	tests := []struct {
		name string
		opts Options
		want []wantSnapshot
	}{
		{"no prices", Options{}, []wantSnapshot{{
			provider: "desk-claude", trials: 2, meta: meta(claude),
			lines: []string{
				// tool_use blocks among text; the response's cost, as the
				// result has none; latency as recorded, 1200.5.
				`{"case_id": "T-1", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-1"}}, {"name": "refund", "arguments": {"order_id": "A-1", "amount": 9.90}}], "latency_ms": 1200.5, "cost_usd": 0.0005}`,
				// A message with content and calls; arguments that are
				// not JSON are kept as sent.
				`{"case_id": "T-1", "trial": 2, "tool_calls": [{"name": "refund", "arguments": "not json"}], "latency_ms": 1100, "cost_usd": null}`,
				// vars.case_id, a number; a failed assertion is not a
				// failed record.
				`{"case_id": "17", "trial": 1, "tool_calls": [], "latency_ms": 300, "cost_usd": 0.00001}`,
				// A list of objects that are not calls holds no calls.
				`{"case_id": "17", "trial": 2, "tool_calls": [], "latency_ms": 280, "cost_usd": null}`,
			},
		}, {
			provider: gpt, trials: 2, meta: meta(gpt),
			lines: []string{
				`{"case_id": "T-1", "trial": 1, "tool_calls": [{"name": "refund", "arguments": {"order_id": "A-1", "amount": 9.9}}], "latency_ms": 900, "cost_usd": null}`,
				// Inspect's call shape; no latencyMs.
				`{"case_id": "17", "trial": 2, "tool_calls": [{"name": "greet", "arguments": {"name": "you"}}], "latency_ms": null, "cost_usd": null}`,
			},
			failed: []Failure{
				{CaseID: "T-1", Trial: 2, Reason: "upstream 503: overloaded"},
				{CaseID: "17", Trial: 1, Reason: "Request timed out after 30000 ms"},
			},
		}}},
		{"priced", prices(t, "1", "10"), []wantSnapshot{{
			provider: "desk-claude", trials: 2, meta: meta(claude),
			lines: []string{
				`{"case_id": "T-1", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-1"}}, {"name": "refund", "arguments": {"order_id": "A-1", "amount": 9.90}}], "latency_ms": 1200.5, "cost_usd": 0.0005}`,
				`{"case_id": "T-1", "trial": 2, "tool_calls": [{"name": "refund", "arguments": "not json"}], "latency_ms": 1100, "cost_usd": null}`,
				`{"case_id": "17", "trial": 1, "tool_calls": [], "latency_ms": 300, "cost_usd": 0.00001}`,
				`{"case_id": "17", "trial": 2, "tool_calls": [], "latency_ms": 280, "cost_usd": null}`,
			},
		}, {
			provider: gpt, trials: 2, meta: meta(gpt),
			lines: []string{
				// (120 × 1 + 30 × 10) / 10⁶; a cached answer records no
				// prompt or completion count, so no price.
				`{"case_id": "T-1", "trial": 1, "tool_calls": [{"name": "refund", "arguments": {"order_id": "A-1", "amount": 9.9}}], "latency_ms": 900, "cost_usd": 0.00042}`,
				`{"case_id": "17", "trial": 2, "tool_calls": [{"name": "greet", "arguments": {"name": "you"}}], "latency_ms": null, "cost_usd": null}`,
			},
			failed: []Failure{
				{CaseID: "T-1", Trial: 2, Reason: "upstream 503: overloaded"},
				{CaseID: "17", Trial: 1, Reason: "Request timed out after 30000 ms"},
			},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSnapshots(t, importFile(t, Promptfoo, "promptfoo-agent.json", tt.opts), tt.want)
		})
	}
}

func TestOpenAIBatch(t *testing.T) {
	tests := []struct {
		name  string
		opts  Options
		lines []string
	}{
		{"no prices", Options{}, []string{
			// A custom tool's input is free text, kept as sent; the
			// number 1.50e2 keeps its literal.
			`{"case_id": "q-1", "tool_calls": [{"name": "book_seat", "arguments": {"seat": "12A", "price": 1.50e2}}, {"name": "run_sql", "arguments": "SELECT 1"}], "latency_ms": null, "cost_usd": null}`,
			`{"case_id": "q-2", "tool_calls": [{"name": "search", "arguments": {"q": [1, 2]}}], "latency_ms": null, "cost_usd": null}`,
		}},
		{"priced", prices(t, "2", "8"), []string{
			// (1000 × 2 + 250 × 8) / 10⁶, cached tokens not added.
			`{"case_id": "q-1", "tool_calls": [{"name": "book_seat", "arguments": {"seat": "12A", "price": 1.50e2}}, {"name": "run_sql", "arguments": "SELECT 1"}], "latency_ms": null, "cost_usd": 0.004}`,
			`{"case_id": "q-2", "tool_calls": [{"name": "search", "arguments": {"q": [1, 2]}}], "latency_ms": null, "cost_usd": 0.0016}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Two models answered, so meta.json names none.
			checkSnapshots(t, importFile(t, OpenAIBatch, "openai-batch.jsonl", tt.opts), []wantSnapshot{{
				lines: tt.lines,
				failed: []Failure{
					{CaseID: "q-3", Reason: "server_error: The model failed to respond."},
					{CaseID: "q-4", Reason: "HTTP 429: rate_limit_exceeded: Rate limit reached."},
					{CaseID: "q-5", Reason: "batch_cancelled: The batch was cancelled."},
				},
			}})
		})
	}
}

func TestAnthropicBatch(t *testing.T) {
	res := importFile(t, AnthropicBatch, "anthropic-batch.jsonl", prices(t, "1", "5"))
	checkSnapshots(t, res, []wantSnapshot{{
		meta: Meta{Model: "claude-haiku-4-5-20251001"},
		lines: []string{
			// (2000 × 1 + 300 × 5) / 10⁶: cache reads are not added.
			`{"case_id": "m-1", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo", "days": [1, 2]}}], "latency_ms": null, "cost_usd": 0.0035}`,
			`{"case_id": "m-3", "tool_calls": [], "latency_ms": null, "cost_usd": 0.000135}`,
		},
		failed: []Failure{
			{CaseID: "m-2", Reason: "errored: overloaded_error: Overloaded"},
			{CaseID: "m-4", Reason: "expired: the batch ended before the request was processed"},
		},
	}})
}

// TestPromptfooJSONLines: promptfoo eval -o results.jsonl writes one
// result a line; it imports to the same lines as the export, without the
// export's timestamp and description.
func TestPromptfooJSONLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "promptfoo-agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	var export struct {
		Results struct {
			Results []json.RawMessage `json:"results"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &export); err != nil {
		t.Fatal(err)
	}
	var jsonl bytes.Buffer
	for _, r := range export.Results.Results {
		var line bytes.Buffer
		json.Compact(&line, r)
		jsonl.Write(append(line.Bytes(), '\n'))
	}
	fromExport := importFile(t, Promptfoo, "promptfoo-agent.json", Options{})
	res, err := Import(Promptfoo, bytesSource("results.jsonl", jsonl.Bytes()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snapshots) != 2 {
		t.Fatalf("%d snapshots, want 2", len(res.Snapshots))
	}
	for i, s := range res.Snapshots {
		want := fromExport.Snapshots[i]
		if !bytes.Equal(linesOfSnapshot(t, s), linesOfSnapshot(t, want)) || s.Provider != want.Provider || !slices.Equal(s.Failed, want.Failed) {
			t.Errorf("snapshot %d differs from the export's", i)
		}
		if s.Meta != (Meta{Model: want.Meta.Model}) {
			t.Errorf("snapshot %d: meta %+v, want the model alone", i, s.Meta)
		}
	}
	// A result without a case id is named by its line.
	bad := append(jsonl.Bytes(), `{"provider": {"id": "p"}, "promptIdx": 0, "response": {"output": "x"}}`+"\n"...)
	_, err = Import(Promptfoo, bytesSource("results.jsonl", bad), Options{})
	if err == nil || !strings.Contains(err.Error(), "results.jsonl:9: 1 of the 9 results have no case id (line 9)") {
		t.Errorf("error %v, want one naming line 9", err)
	}
}
