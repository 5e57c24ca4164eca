package runlog

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// realDataDir is the folder of public run logs beside the repository
// (../shared/realdata/import from its root), or "" when it is absent, as
// on a user's clone.
func realDataDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	real := filepath.Join(dir, "..", "shared", "realdata", "import")
	if _, err := os.Stat(real); err != nil {
		return ""
	}
	return real
}

// openSource opens a log file as a Source.
func openSource(t testing.TB, path string) Source {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return Source{Name: filepath.Base(path), Data: f, Size: info.Size()}
}

// wantSnapshot is what one snapshot of an import must be.
type wantSnapshot struct {
	provider string
	trials   int
	meta     Meta
	lines    []string
	failed   []Failure
}

// checkSnapshots compares an import with what it must give.
func checkSnapshots(t *testing.T, res *Result, want []wantSnapshot) {
	t.Helper()
	if len(res.Snapshots) != len(want) {
		t.Fatalf("%d snapshots, want %d", len(res.Snapshots), len(want))
	}
	for i, s := range res.Snapshots {
		w := want[i]
		var buf bytes.Buffer
		if err := s.WriteLines(&buf); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if buf.Len() == 0 {
			got = nil
		}
		if !slices.Equal(got, w.lines) {
			t.Errorf("snapshot %d (%q): lines\n%s\nwant\n%s", i, s.Provider, strings.Join(got, "\n"), strings.Join(w.lines, "\n"))
		}
		if s.Provider != w.provider || s.Trials != w.trials || s.Meta != w.meta {
			t.Errorf("snapshot %d: provider %q, trials %d, meta %+v; want %q, %d, %+v", i, s.Provider, s.Trials, s.Meta, w.provider, w.trials, w.meta)
		}
		if !slices.Equal(s.Failed, w.failed) {
			t.Errorf("snapshot %d: failed %+v, want %+v", i, s.Failed, w.failed)
		}
	}
}

func decimalOf(t testing.TB, lit string) *Decimal {
	t.Helper()
	d, err := ParseDecimal(lit)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

// realLogs are the public logs of ../shared/realdata/import (see its
// SOURCES.md) and what each imports to. Every line was checked by hand
// against its file: the sample's or request's id, its epoch, the calls of
// the assistant's messages (or tool_calls, function_call items, tool_use
// blocks), total_time × 1000, and the cost the run records or the price
// of its tokens.
var realLogs = []struct {
	file      string
	format    Format
	price     [2]string // USD per million input and output tokens
	err       string    // the import is refused with this
	snapshots []wantSnapshot
}{
	{file: "inspect-browser.json", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"2025-05-12T20:27:36-04:00", "openai/gpt-4o-mini", "e9a9d7161", "browser"},
			lines: []string{
				`{"case_id": "1", "tool_calls": [{"name": "web_browser_go", "arguments": {"url": "https://www.aisi.gov.uk/"}}, {"name": "web_browser_click", "arguments": {"element_id": 151}}, {"name": "web_browser_click", "arguments": {"element_id": 884}}, {"name": "web_browser_click", "arguments": {"element_id": 903}}], "latency_ms": 18517, "cost_usd": null}`,
			},
		}},
	},
	{file: "inspect-dedup.eval", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"2025-10-06T10:15:43+00:00", "hardcoded/hardcoded", "c8ef316", "inspect_test_utils/guess_number"},
			lines: []string{
				`{"case_id": "0", "tool_calls": [{"name": "bash", "arguments": {"cmd": "ls"}}, {"name": "bash", "arguments": {"cmd": "ls"}}, {"name": "bash", "arguments": {"cmd": "ls"}}, {"name": "bash", "arguments": {"cmd": "ls"}}, {"name": "bash", "arguments": {"cmd": "ls"}}], "latency_ms": 457, "cost_usd": null}`,
			},
		}},
	},
	{file: "inspect-streaming.eval", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 2,
			meta: Meta{"2024-11-05T20:04:20+00:00", "azureai/Meta-Llama-3-1-405B-Instruct-jqf", "33c76a75", "popularity"},
			lines: []string{
				`{"case_id": "1", "trial": 1, "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "1", "trial": 2, "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "2", "trial": 1, "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "2", "trial": 2, "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
			},
		}},
	},
	{file: "inspect-set2-claude.eval", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 5,
			meta: Meta{"2025-09-15T15:04:34-04:00", "anthropic/claude-sonnet-4-20250514", "02fdf720f", "popularity"},
			lines: []string{
				`{"case_id": "1", "trial": 1, "tool_calls": [], "latency_ms": 2936, "cost_usd": null}`,
				`{"case_id": "1", "trial": 2, "tool_calls": [], "latency_ms": 1949, "cost_usd": null}`,
				`{"case_id": "1", "trial": 3, "tool_calls": [], "latency_ms": 1529, "cost_usd": null}`,
				`{"case_id": "1", "trial": 4, "tool_calls": [], "latency_ms": 2388, "cost_usd": null}`,
				`{"case_id": "1", "trial": 5, "tool_calls": [], "latency_ms": 1360, "cost_usd": null}`,
				`{"case_id": "2", "trial": 1, "tool_calls": [], "latency_ms": 2996, "cost_usd": null}`,
				`{"case_id": "2", "trial": 2, "tool_calls": [], "latency_ms": 1898, "cost_usd": null}`,
				`{"case_id": "2", "trial": 3, "tool_calls": [], "latency_ms": 1551, "cost_usd": null}`,
				`{"case_id": "2", "trial": 4, "tool_calls": [], "latency_ms": 1454, "cost_usd": null}`,
				`{"case_id": "2", "trial": 5, "tool_calls": [], "latency_ms": 2517, "cost_usd": null}`,
				`{"case_id": "3", "trial": 1, "tool_calls": [], "latency_ms": 3993, "cost_usd": null}`,
				`{"case_id": "3", "trial": 2, "tool_calls": [], "latency_ms": 1860, "cost_usd": null}`,
				`{"case_id": "3", "trial": 3, "tool_calls": [], "latency_ms": 1610, "cost_usd": null}`,
				`{"case_id": "3", "trial": 4, "tool_calls": [], "latency_ms": 1566, "cost_usd": null}`,
				`{"case_id": "3", "trial": 5, "tool_calls": [], "latency_ms": 1456, "cost_usd": null}`,
				`{"case_id": "4", "trial": 1, "tool_calls": [], "latency_ms": 3435, "cost_usd": null}`,
				`{"case_id": "4", "trial": 2, "tool_calls": [], "latency_ms": 1917, "cost_usd": null}`,
				`{"case_id": "4", "trial": 3, "tool_calls": [], "latency_ms": 1822, "cost_usd": null}`,
				`{"case_id": "4", "trial": 4, "tool_calls": [], "latency_ms": 1442, "cost_usd": null}`,
				`{"case_id": "4", "trial": 5, "tool_calls": [], "latency_ms": 1936, "cost_usd": null}`,
				`{"case_id": "5", "trial": 1, "tool_calls": [], "latency_ms": 2184, "cost_usd": null}`,
				`{"case_id": "5", "trial": 2, "tool_calls": [], "latency_ms": 1620, "cost_usd": null}`,
				`{"case_id": "5", "trial": 3, "tool_calls": [], "latency_ms": 1431, "cost_usd": null}`,
				`{"case_id": "5", "trial": 4, "tool_calls": [], "latency_ms": 1719, "cost_usd": null}`,
				`{"case_id": "5", "trial": 5, "tool_calls": [], "latency_ms": 2232, "cost_usd": null}`,
				`{"case_id": "6", "trial": 1, "tool_calls": [], "latency_ms": 3143, "cost_usd": null}`,
				`{"case_id": "6", "trial": 2, "tool_calls": [], "latency_ms": 1973, "cost_usd": null}`,
				`{"case_id": "6", "trial": 3, "tool_calls": [], "latency_ms": 2317, "cost_usd": null}`,
				`{"case_id": "6", "trial": 4, "tool_calls": [], "latency_ms": 1517, "cost_usd": null}`,
				`{"case_id": "6", "trial": 5, "tool_calls": [], "latency_ms": 1345, "cost_usd": null}`,
				`{"case_id": "7", "trial": 1, "tool_calls": [], "latency_ms": 2964, "cost_usd": null}`,
				`{"case_id": "7", "trial": 2, "tool_calls": [], "latency_ms": 2079, "cost_usd": null}`,
				`{"case_id": "7", "trial": 3, "tool_calls": [], "latency_ms": 1902, "cost_usd": null}`,
				`{"case_id": "7", "trial": 4, "tool_calls": [], "latency_ms": 1230, "cost_usd": null}`,
				`{"case_id": "7", "trial": 5, "tool_calls": [], "latency_ms": 1806, "cost_usd": null}`,
				`{"case_id": "8", "trial": 1, "tool_calls": [], "latency_ms": 3019, "cost_usd": null}`,
				`{"case_id": "8", "trial": 2, "tool_calls": [], "latency_ms": 2346, "cost_usd": null}`,
				`{"case_id": "8", "trial": 3, "tool_calls": [], "latency_ms": 2794, "cost_usd": null}`,
				`{"case_id": "8", "trial": 4, "tool_calls": [], "latency_ms": 1724, "cost_usd": null}`,
				`{"case_id": "8", "trial": 5, "tool_calls": [], "latency_ms": 2303, "cost_usd": null}`,
				`{"case_id": "9", "trial": 1, "tool_calls": [], "latency_ms": 2127, "cost_usd": null}`,
				`{"case_id": "9", "trial": 2, "tool_calls": [], "latency_ms": 1253, "cost_usd": null}`,
				`{"case_id": "9", "trial": 3, "tool_calls": [], "latency_ms": 1526, "cost_usd": null}`,
				`{"case_id": "9", "trial": 4, "tool_calls": [], "latency_ms": 1872, "cost_usd": null}`,
				`{"case_id": "9", "trial": 5, "tool_calls": [], "latency_ms": 1331, "cost_usd": null}`,
				`{"case_id": "10", "trial": 1, "tool_calls": [], "latency_ms": 2125, "cost_usd": null}`,
				`{"case_id": "10", "trial": 2, "tool_calls": [], "latency_ms": 2452, "cost_usd": null}`,
				`{"case_id": "10", "trial": 3, "tool_calls": [], "latency_ms": 1669, "cost_usd": null}`,
				`{"case_id": "10", "trial": 4, "tool_calls": [], "latency_ms": 2638, "cost_usd": null}`,
				`{"case_id": "10", "trial": 5, "tool_calls": [], "latency_ms": 1194, "cost_usd": null}`,
			},
		}},
	},
	{file: "inspect-retry-zstd.eval", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"2026-05-06T18:00:11+00:00", "mockllm/fake", "793cb8f60", "task"},
			lines: []string{
				`{"case_id": "1", "tool_calls": [], "latency_ms": 21, "cost_usd": null}`,
			},
		}},
	},
	{file: "inspect-synthetic-epochs.json", format: Inspect,
		snapshots: []wantSnapshot{{
			provider: "", trials: 2,
			meta: Meta{"2026-02-03T09:15:00+01:00", "openai/gpt-4.1-mini", "a1b2c3d4e", "support_agent"},
			lines: []string{
				`{"case_id": "refund-17", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-17"}}, {"name": "get_policy", "arguments": {"section": "refunds", "lang": null}}, {"name": "issue_refund", "arguments": {"order_id": "A-17", "amount": 12.5, "items": [{"sku": "MUG-1", "qty": 2}], "notify": true}}], "latency_ms": 7250, "cost_usd": 0.00065}`,
				`{"case_id": "refund-17", "trial": 2, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-17"}}], "latency_ms": 3500, "cost_usd": 0.0003}`,
				`{"case_id": "42", "trial": 1, "tool_calls": [], "latency_ms": 1000, "cost_usd": 0.0001}`,
				`{"case_id": "ünïcode case ✓", "trial": 1, "tool_calls": [{"name": "search_kb", "arguments": {"query": "café ✓", "limit": 5}}], "latency_ms": null, "cost_usd": 0.0002}`,
				`{"case_id": "ünïcode case ✓", "trial": 2, "tool_calls": [{"name": "list_collections", "arguments": {}}], "latency_ms": 2000, "cost_usd": null}`,
			},
			failed: []Failure{
				{"42", 2, "RateLimitError('Error code: 429 - rate limit reached')"},
			},
		}},
	},
	{file: "promptfoo-sample-export-ids.json", format: Promptfoo,
		snapshots: []wantSnapshot{{
			provider: "openai:gpt-5-mini", trials: 0,
			meta: Meta{"2025-10-01T20:08:11.168Z", "openai:gpt-5-mini", "", "Comparing OpenAI flagship and mini models performance on riddles"},
			lines: []string{
				`{"case_id": "Echo riddle", "tool_calls": [], "latency_ms": 5794, "cost_usd": 0.00049925}`,
				`{"case_id": "Boat riddle", "tool_calls": [], "latency_ms": 4669, "cost_usd": 0.00032425}`,
			},
		}, {
			provider: "openai:gpt-5", trials: 0,
			meta: Meta{"2025-10-01T20:08:11.168Z", "openai:gpt-5", "", "Comparing OpenAI flagship and mini models performance on riddles"},
			lines: []string{
				`{"case_id": "Echo riddle", "tool_calls": [], "latency_ms": 6197, "cost_usd": 0.00208625}`,
				`{"case_id": "Boat riddle", "tool_calls": [], "latency_ms": 5027, "cost_usd": 0.0010712500000000002}`,
			},
		}},
	},
	{file: "promptfoo-synthetic-tools.json", format: Promptfoo,
		snapshots: []wantSnapshot{{
			provider: "openai:gpt-4.1-nano", trials: 2,
			meta: Meta{"2026-03-04T10:20:30.123Z", "openai:gpt-4.1-nano", "", "Synthetic: a tool-calling support agent on two providers, repeated twice"},
			lines: []string{
				`{"case_id": "ticket-001", "trial": 2, "tool_calls": [{"name": "issue_refund", "arguments": {"order_id": "A-17", "amount": 12.5}}], "latency_ms": 1500, "cost_usd": null}`,
				`{"case_id": "ticket-002", "trial": 1, "tool_calls": [], "latency_ms": 655, "cost_usd": null}`,
				`{"case_id": "ticket-002", "trial": 2, "tool_calls": [], "latency_ms": 640, "cost_usd": null}`,
				`{"case_id": "Escalate: angry customer", "trial": 1, "tool_calls": [{"name": "escalate", "arguments": {"reason": "caps lock", "priority": 1}}], "latency_ms": 1002, "cost_usd": null}`,
				`{"case_id": "Escalate: angry customer", "trial": 2, "tool_calls": [{"name": "close_ticket", "arguments": {"ticket": "T-3"}}], "latency_ms": 980, "cost_usd": null}`,
			},
			failed: []Failure{
				{"ticket-001", 1, "API error: 429 Too Many Requests"},
			},
		}, {
			provider: "agent-a", trials: 2,
			meta: Meta{"2026-03-04T10:20:30.123Z", "openai:gpt-4.1-mini", "", "Synthetic: a tool-calling support agent on two providers, repeated twice"},
			lines: []string{
				`{"case_id": "ticket-001", "trial": 1, "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-17"}}, {"name": "issue_refund", "arguments": {"order_id": "A-17", "amount": 12.5}}], "latency_ms": 1840, "cost_usd": 0.000412}`,
				`{"case_id": "ticket-001", "trial": 2, "tool_calls": [{"name": "issue_refund", "arguments": {"order_id": "A-17", "amount": 12.50, "items": ["MUG-1", "MUG-1"]}}], "latency_ms": 2011, "cost_usd": 0.000398}`,
				`{"case_id": "ticket-002", "trial": 1, "tool_calls": [], "latency_ms": 905, "cost_usd": 0.000151}`,
				`{"case_id": "ticket-002", "trial": 2, "tool_calls": [{"name": "lookup_order", "arguments": "{\"order_id\": \"A-18\""}], "latency_ms": 870, "cost_usd": 0.00019}`,
				`{"case_id": "Escalate: angry customer", "trial": 1, "tool_calls": [{"name": "escalate", "arguments": {"reason": "abusive", "priority": 2}}], "latency_ms": 1220, "cost_usd": 0.000233}`,
				`{"case_id": "Escalate: angry customer", "trial": 2, "tool_calls": [{"name": "list_queues", "arguments": {}}], "latency_ms": 1333, "cost_usd": 0.000205}`,
			},
		}},
	},
	{file: "promptfoo-sample-export.json", format: Promptfoo,
		err: "4 of the 4 results have no case id",
	},
	{file: "openai-batch-litellm.jsonl", format: OpenAIBatch,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"", "gpt-4o-mini-2024-07-18", "", ""},
			lines: []string{
				`{"case_id": "request-1", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "request-2", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
			},
		}},
	},
	{file: "openai-batch-chat-tools.jsonl", format: OpenAIBatch, price: [2]string{"1", "2"},
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"", "gpt-4.1-mini-2025-04-14", "", ""},
			lines: []string{
				`{"case_id": "case-001", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}, {"name": "get_time", "arguments": {"tz": "Europe/Paris"}}], "latency_ms": null, "cost_usd": 0.0002}`,
				`{"case_id": "case-002", "tool_calls": [{"name": "send_email", "arguments": {"to": ["a@example.org", "b@example.org"], "subject": "Hi", "body": "Line 1\nLine 2 ✓"}}], "latency_ms": null, "cost_usd": 0.00027}`,
				`{"case_id": "case-003", "tool_calls": [], "latency_ms": null, "cost_usd": 0.00012}`,
				`{"case_id": "case-006", "tool_calls": [{"name": "search", "arguments": "{\"query\": \"unterminated"}], "latency_ms": null, "cost_usd": 0.000126}`,
				`{"case_id": "case-007", "tool_calls": [{"name": "list_files", "arguments": {}}], "latency_ms": null, "cost_usd": 0.00014}`,
			},
			failed: []Failure{
				{"case-004", 0, "HTTP 400: string_above_max_length: Invalid 'messages[1].content': string too long."},
				{"case-005", 0, "batch_expired: This request could not be executed before the completion window expired."},
			},
		}},
	},
	{file: "openai-batch-responses.jsonl", format: OpenAIBatch,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"", "gpt-5-mini-2025-08-07", "", ""},
			lines: []string{
				`{"case_id": "r-1", "tool_calls": [{"name": "search_docs", "arguments": {"q": "refund policy", "k": 3}}, {"name": "open_doc", "arguments": {"doc_id": "D-9"}}], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "r-2", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "r-4", "tool_calls": [{"name": "create_ticket", "arguments": {"title": "Broken mug", "tags": ["refund", "damaged"], "priority": null}}], "latency_ms": null, "cost_usd": null}`,
			},
			failed: []Failure{
				{"r-3", 0, "HTTP 500: server_error: The server had an error while processing your request. Sorry about that!"},
			},
		}},
	},
	{file: "anthropic-batch-docs.jsonl", format: AnthropicBatch,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"", "claude-3-5-sonnet-20240620", "", ""},
			lines: []string{
				`{"case_id": "my-second-request", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "my-first-request", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
			},
		}},
	},
	{file: "anthropic-batch-tools.jsonl", format: AnthropicBatch,
		snapshots: []wantSnapshot{{
			provider: "", trials: 0,
			meta: Meta{"", "claude-sonnet-4-5-20250929", "", ""},
			lines: []string{
				`{"case_id": "a-1", "tool_calls": [{"name": "lookup_order", "arguments": {"order_id": "A-17"}}, {"name": "get_policy", "arguments": {"section": "refunds", "filters": {"region": "EU", "since": 2024}}}], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "a-2", "tool_calls": [], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "a-6", "tool_calls": [{"name": "record_answer", "arguments": {"answer": 42, "sources": ["https://example.org/a"], "confidence": 0.75}}], "latency_ms": null, "cost_usd": null}`,
				`{"case_id": "a-7", "tool_calls": [{"name": "noop", "arguments": {}}], "latency_ms": null, "cost_usd": null}`,
			},
			failed: []Failure{
				{"a-3", 0, "errored: invalid_request_error: max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"},
				{"a-4", 0, "expired: the batch ended before the request was processed"},
				{"a-5", 0, "canceled: the batch was canceled before the request was processed"},
			},
		}},
	},
}

func TestRealLogs(t *testing.T) {
	dir := realDataDir(t)
	if dir == "" {
		t.Skip("../shared/realdata/import is absent")
	}
	for _, tt := range realLogs {
		t.Run(tt.file, func(t *testing.T) {
			opts := Options{}
			if tt.price[0] != "" {
				opts.PriceIn, opts.PriceOut = decimalOf(t, tt.price[0]), decimalOf(t, tt.price[1])
			}
			src := openSource(t, filepath.Join(dir, tt.file))
			res, err := Import(tt.format, src, opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSnapshots(t, res, tt.snapshots)
			// The same log imports to the same bytes.
			again, err := Import(tt.format, src, opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Snapshots {
				var a, b bytes.Buffer
				res.Snapshots[i].WriteLines(&a)
				again.Snapshots[i].WriteLines(&b)
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("snapshot %d differs between two imports", i)
				}
			}
		})
	}
}
