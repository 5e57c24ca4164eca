package serve

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/releasegate/releasegate/internal/pagename"
)

// TestServeRenamesPagesOfIDsEqualIgnoringCase: a case whose id differs
// from another's only in case gives both hashed page names
// (docs/real-data.md, "Page names"), so adding one renames the other's
// pages while the server runs; the old address is gone, and every case
// is served at its new one.
func TestServeRenamesPagesOfIDsEqualIgnoringCase(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(filepath.Join(data, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := func(id string) string {
		return `{"case_id": "` + id + `", "title": "t", "severity": "minor", "input": {}, "expected": {"tool_match": "contains", "tool_calls": [], "forbidden_tools": []}}` + "\n"
	}
	writeFile(t, filepath.Join(data, "case.schema.json"), []byte(`{"type": "object"}`))
	writeFile(t, filepath.Join(data, "gate.json"), []byte(`{"min_pass_rate": 0, "max_critical_failures": null, "max_p95_latency_ms": null, "max_avg_cost_usd": null}`))
	writeFile(t, filepath.Join(data, "cases.jsonl"), []byte(line("ER-1")+line("[a]b|c")))
	writeFile(t, filepath.Join(data, "outputs", "run-1.jsonl"), []byte(`{"case_id": "ER-1", "tool_calls": [{"function": "look", "arguments": {}}], "latency_ms": 1, "cost_usd": null}`+"\n"))
	ts := startServer(t, serverOptions{data: data})
	for _, p := range []string{"/snapshots/run-1/ER-1.html", "/cases/ER-1.html", "/snapshots/run-1/" + pagename.Hashed("[a]b|c") + ".html"} {
		ts.page(p)
	}
	writeFile(t, filepath.Join(data, "cases.jsonl"), []byte(line("ER-1")+line("[a]b|c")+line("er-1")))
	renamed := "/snapshots/run-1/" + pagename.Hashed("ER-1") + ".html"
	eventually(t, 30*time.Second, "ER-1's page moves to "+renamed, func() bool {
		status, _ := ts.get(renamed)
		return status == http.StatusOK
	})
	for _, p := range []string{"/cases/" + pagename.Hashed("ER-1") + ".html", "/cases/" + pagename.Hashed("er-1") + ".html", "/snapshots/run-1/" + pagename.Hashed("er-1") + ".html", "/snapshots/run-1/" + pagename.Hashed("[a]b|c") + ".html"} {
		ts.page(p)
	}
	for _, p := range []string{"/snapshots/run-1/ER-1.html", "/cases/ER-1.html"} {
		if status, _ := ts.get(p); status != http.StatusNotFound {
			t.Errorf("GET %s: %d after the page moved", p, status)
		}
	}
}
