package ciout

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/markdown"
)

// A suite of real ids without decisions (docs/real-data.md): the JUnit
// report names each case by its id exactly, and the step summary and
// RELEASE_REPORT.md keep one table row per failure however the id is
// written, with no word of a decision that is not judged.
func TestRealIDsInReports(t *testing.T) {
	ids := []string{
		"[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_disabled_on[PERSONA:Easy]",
		"a  *b* `c` <d>",
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "outputs"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "case.schema.json"), `{"type": "object"}`)
	writeFile(t, filepath.Join(dir, "gate.json"), `{"min_pass_rate": 1, "max_critical_failures": 0, "max_p95_latency_ms": null, "max_avg_cost_usd": null}`)
	var cases, outs strings.Builder
	for _, id := range ids {
		q := strings.ReplaceAll(id, `"`, `\"`)
		cases.WriteString(`{"case_id": "` + q + `", "title": "t", "severity": "critical", "input": {}, "expected": {"tool_match": "contains", "tool_calls": [{"name": "toggle_data", "arguments": {}}], "forbidden_tools": []}}` + "\n")
		outs.WriteString(`{"case_id": "` + q + `", "tool_calls": [{"function": "check_status_bar", "arguments": {}}], "latency_ms": 5, "cost_usd": null}` + "\n")
	}
	writeFile(t, filepath.Join(dir, "cases.jsonl"), cases.String())
	writeFile(t, filepath.Join(dir, "outputs", "run-1.jsonl"), outs.String())
	rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, JUnit(rel))
	for i, c := range doc.Suites[0].Cases {
		if c.Name != ids[i]+": t" || len(c.Failures) != 1 {
			t.Errorf("testcase %d: name %q, %d failures", i, c.Name, len(c.Failures))
		}
	}
	validateXSD(t, JUnit(rel))
	for name, md := range map[string]string{"summary": string(Summary(rel)), "RELEASE_REPORT.md": string(rel.Report())} {
		if strings.Contains(md, "decision") && strings.Contains(md, "expected ,") {
			t.Errorf("%s words an empty decision:\n%s", name, md)
		}
		for _, id := range ids {
			rows := 0
			for _, line := range strings.Split(md, "\n") {
				if strings.Contains(line, markdown.Cell(id)) && strings.Contains(line, "tool_call") {
					rows++
					// case, severity, code, detail: five borders.
					if borders := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); borders != 5 {
						t.Errorf("%s: row %q has %d cell borders, want 5", name, line, borders)
					}
				}
			}
			if rows != 1 {
				t.Errorf("%s: %d rows name %q, want 1:\n%s", name, rows, id, md)
			}
		}
	}
}
