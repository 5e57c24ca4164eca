package examples

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/internal/goldentest"
)

// examples/noise is generated: TestNoiseExampleIsGenerated writes it
// under -update and otherwise checks that the committed files are what
// the generator makes. Only README.md is written by hand.

// noiseQueues are the help desk's queues and the tickets routed to each.
var noiseQueues = []struct {
	queue   string
	tickets []string
}{
	{"billing", []string{
		"Charged twice for the March invoice", "Refund for a cancelled subscription", "Update the card on file",
		"VAT number missing on an invoice", "Invoice sent to an old address", "Upgrade the plan mid-cycle",
		"Discount code not applied", "When does the annual plan renew?", "Receipt needed for an expense claim",
		"Prices shown in USD instead of EUR", "Trial turned into a paid plan without notice", "Split an invoice between two departments",
		"Pay by bank transfer instead of card", "Overdue notice after paying", "Change the billing contact",
		"Tax exemption certificate to file", "Credit for last week's outage", "Downgrade at the end of the term",
		"Purchase order number on every invoice", "A closed account is still billed",
	}},
	{"access", []string{
		"Password reset link expired", "Locked out after too many attempts", "Account for a new starter",
		"Lost the phone used for two-factor sign-in", "Remove a leaver's access", "Permission on a shared mailbox",
		"Single sign-on loops back to the login page", "Admin rights for a contractor", "Cannot see a team folder",
		"Username to change after a name change", "Reset the recovery email", "Guest access for a partner",
		"New role as team lead", "API token revoked by mistake", "Sign-in from abroad blocked",
		"Two accounts merged by error", "Read-only access to the reports", "Temporary access for an audit",
		"Rotate a service account key", "Single sign-on for a new tool",
	}},
	{"hardware", []string{
		"Laptop screen flickers", "Docking station does not charge", "Keyboard keys stick",
		"Replace a cracked phone", "Headset microphone too quiet", "Monitor for a new desk",
		"Laptop battery is swelling", "Mouse double-clicks on its own", "Webcam shows a black picture",
		"Printer jams on every page", "Laptop fan is loud", "USB-C port is loose",
		"A second monitor", "Tablet will not turn on", "Desk phone shows nothing",
		"Trackpad does not respond", "Laptop too slow to edit video", "Coffee spilled on a keyboard",
		"Meeting room projector flickers", "Return a loaned laptop",
	}},
	{"network", []string{
		"Wi-Fi drops every hour", "VPN will not connect from home", "Wi-Fi is slow on the third floor",
		"Cannot reach the intranet over VPN", "Laptop forgets the office Wi-Fi", "Video calls freeze on Wi-Fi",
		"VPN disconnects during uploads", "Phone cannot join the Wi-Fi", "Printer not found over Wi-Fi",
		"VPN asks for a certificate", "Wi-Fi sign-in page never appears", "VPN is slow in the evenings",
		"Wall socket in room 12 is dead", "Remote office link is down", "Packet loss to the data centre",
		"The proxy asks for a password", "A network for the new site", "Email attachments time out",
		"High latency to the cloud region", "Network drive disconnects",
	}},
}

// noiseFlaky are the tickets the agent gets right only some of the
// time, by position (queue, ticket), with the chance a trial passes. A
// case passes when half its trials do (min_trial_pass_rate 0.5). Every
// other ticket is stable: every trial passes.
var noiseFlaky = map[[2]int]float64{
	// Could be read either way: half the trials pass.
	{0, 7}: 0.5, {0, 11}: 0.5, {1, 6}: 0.5, {1, 15}: 0.5, {2, 8}: 0.5,
	{2, 16}: 0.5, {3, 8}: 0.5, {3, 12}: 0.5, {3, 17}: 0.5, {1, 19}: 0.5,
	// Usually right.
	{0, 2}: 0.75, {1, 3}: 0.75, {2, 12}: 0.75, {3, 4}: 0.75,
	// Usually wrong.
	{0, 19}: 0.1, {1, 9}: 0.1, {2, 17}: 0.1, {3, 13}: 0.1, {0, 15}: 0.1, {2, 5}: 0.1,
}

// noiseCritical are the tickets of severity critical: access that must
// not be given or kept wrongly. All are stable.
var noiseCritical = map[[2]int]bool{{1, 1}: true, {1, 4}: true, {1, 7}: true, {1, 14}: true}

// noiseRuns are the snapshots: two runs of one build, then a new
// routing prompt that sends the first twelve network tickets (those about
// Wi-Fi and the VPN) to the hardware queue.
var noiseRuns = []struct {
	label, recordedAt, model, description string
	broken                                func(queue, ticket int) bool
}{
	{"run-a", "2026-05-04T09:00:00Z", "triage-2.3",
		"Release candidate, four trials per ticket. Named the baseline in gate.json.", nil},
	{"run-b", "2026-05-05T09:00:00Z", "triage-2.3",
		"The same build as run-a, run again the next morning: every difference from run-a is noise.", nil},
	{"run-c", "2026-05-06T09:00:00Z", "triage-2.4",
		"A new routing prompt. It sends tickets about Wi-Fi and the VPN to the hardware queue: a real regression.",
		func(q, i int) bool { return noiseQueues[q].queue == "network" && i < 12 }},
}

const noiseTrials = 4

// draw is a number in [0, 1) fixed by its key: the same key gives the
// same number on every machine and with every Go version.
func draw(key ...any) float64 {
	h := fnv.New64a()
	fmt.Fprint(h, key...)
	x := h.Sum64()
	// splitmix64's finaliser spreads FNV's nearby keys apart.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// jsonLine encodes v as one line of JSON with its keys in the given
// order.
func jsonLine(t *testing.T, kv ...any) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(kv[i])
		v, err := json.Marshal(kv[i+1])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(v)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// noiseFiles makes every generated file of examples/noise, by path.
func noiseFiles(t *testing.T) map[string][]byte {
	files := map[string][]byte{}
	files["gate.json"] = []byte(`{
  "min_pass_rate": 0.85,
  "max_critical_failures": 0,
  "max_p95_latency_ms": 3000,
  "max_avg_cost_usd": 0.01,
  "min_trial_pass_rate": 0.5,
  "confidence": 0.95,
  "require_evidence": true,
  "baseline": "run-a"
}
`)
	files["case.schema.json"] = []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "help desk triage case",
  "description": "One line of cases.jsonl: a ticket, and the queue a correct agent routes it to.",
  "type": "object",
  "required": ["case_id", "title", "severity", "input", "expected"],
  "properties": {
    "case_id": { "type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" },
    "title": { "type": "string", "minLength": 1 },
    "severity": { "enum": ["critical", "major", "minor"] },
    "input": { "type": "object", "required": ["ticket"] },
    "expected": {
      "type": "object",
      "required": ["decision", "tool_calls", "citations", "forbidden_tools"],
      "properties": {
        "decision": { "enum": ["route", "answer"] },
        "tool_calls": { "type": "array" },
        "citations": { "type": "array", "maxItems": 0 },
        "forbidden_tools": { "type": "array" }
      }
    }
  }
}
`)
	var cases bytes.Buffer
	type ticket struct {
		id, title string
		queue     int
		p         float64
	}
	var tickets []ticket
	for q, group := range noiseQueues {
		for i, title := range group.tickets {
			n := len(tickets) + 1
			id := fmt.Sprintf("TK-%03d", n)
			p, flaky := noiseFlaky[[2]int{q, i}]
			if !flaky {
				p = 1
			}
			severity := "major"
			switch {
			case noiseCritical[[2]int{q, i}]:
				severity = "critical"
			case n%3 == 0:
				severity = "minor"
			}
			tickets = append(tickets, ticket{id, title, q, p})
			cases.Write(jsonLine(t,
				"case_id", id, "title", title, "severity", severity,
				"input", map[string]any{"ticket": title},
				"expected", map[string]any{
					"decision":        "route",
					"tool_calls":      []any{map[string]any{"name": "route_ticket", "arguments": map[string]any{"ticket_id": id, "queue": group.queue}}},
					"citations":       []any{},
					"forbidden_tools": []any{"close_ticket"},
				}))
		}
	}
	files["cases.jsonl"] = cases.Bytes()
	for _, run := range noiseRuns {
		var out bytes.Buffer
		for trial := 1; trial <= noiseTrials; trial++ {
			for i, tk := range tickets {
				p := tk.p
				if run.broken != nil && run.broken(tk.queue, i-20*tk.queue) {
					p = 0
				}
				queue := noiseQueues[tk.queue].queue
				decision, calls := "route", []any{}
				if draw(run.label, tk.id, trial, "pass") >= p {
					// A wrong trial: the wrong queue, or an answer with no
					// routing at all.
					switch {
					case run.broken != nil && p == 0:
						queue = "hardware"
					case draw(run.label, tk.id, trial, "how") < 0.7:
						queue = noiseQueues[(tk.queue+1+int(draw(run.label, tk.id, trial, "queue")*3))%4].queue
					default:
						decision = "answer"
					}
				}
				if decision == "route" {
					calls = []any{map[string]any{"name": "route_ticket", "arguments": map[string]any{"ticket_id": tk.id, "queue": queue}}}
				}
				latency := 300 + int(draw(run.label, tk.id, trial, "latency")*1400)
				cost := fmt.Sprintf("0.00%d", 2+int(draw(run.label, tk.id, trial, "cost")*5))
				out.Write(jsonLine(t, "case_id", tk.id, "trial", trial, "decision", decision, "tool_calls", calls,
					"citations", []any{}, "latency_ms", latency, "cost_usd", json.Number(cost)))
			}
		}
		files["outputs/"+run.label+".jsonl"] = out.Bytes()
		files["outputs/"+run.label+".meta.json"] = jsonLine(t, "recorded_at", run.recordedAt, "model", run.model, "description", run.description)
	}
	return files
}

// TestNoiseExampleIsGenerated checks examples/noise against its
// generator; go test -update writes it.
func TestNoiseExampleIsGenerated(t *testing.T) {
	files := noiseFiles(t)
	for name, got := range files {
		goldentest.Check(t, filepath.Join("noise", filepath.FromSlash(name)), got)
	}
	// Nothing else in the folder but the hand-written README.
	var extra []string
	err := filepath.WalkDir("noise", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "noise"+string(filepath.Separator)))
		if _, ok := files[rel]; !ok && rel != "README.md" {
			extra = append(extra, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		t.Errorf("examples/noise holds files the generator does not make: %q", extra)
	}
}

// TestNoiseExampleOutcomes checks what examples/noise/README.md says
// against the results: the decisions and intervals of its table, the
// changes within noise between two runs of one build, and the
// significant regression of the third run.
func TestNoiseExampleOutcomes(t *testing.T) {
	rel, err := evaluator.EvaluateDir("noise", evaluator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("noise", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	level := rel.Suite.Gate.Confidence
	passRate, _ := decide.DefaultGates().Named(decide.GatePassRate)
	want := []struct {
		label    string
		decision decide.Decision
		outcome  decide.Outcome
		settle   int64
	}{
		{"run-a", decide.Review, decide.Inconclusive, 196},
		{"run-b", decide.Review, decide.Inconclusive, 3135},
		{"run-c", decide.Block, decide.Failed, 0},
	}
	for i, w := range want {
		s := rel.Snapshots[i]
		g, _ := s.Result.Gate(decide.GatePassRate)
		if s.Label() != w.label || s.Result.Decision != w.decision || g.Outcome() != w.outcome || g.Settle != w.settle {
			t.Errorf("%s: %s, pass rate %v, settle %d; want %s, %v, %d", s.Label(), s.Result.Decision, g.Outcome(), g.Settle, w.decision, w.outcome, w.settle)
		}
		row := fmt.Sprintf("| `%s` | %s | %s |", s.Label(), s.PassCount(), s.IntervalCell(passRate, level))
		if !bytes.Contains(readme, []byte(row)) {
			t.Errorf("the README's table lacks %q", row)
		}
	}
	// Two runs of one build: some verdicts flip, none for a reason.
	b := rel.Snapshots[1].Result.VersusPrevious
	if b.Significant || b.Regressions != 6 || b.Fixes != 3 || b.Label != "run-a" {
		t.Errorf("run-b against run-a: %+v", b)
	}
	for _, ch := range b.Cases {
		if ch.Evidence != decide.WithinNoise || ch.PValue == nil {
			t.Errorf("run-b: %s changed with evidence %v", ch.CaseID, ch.Evidence)
		}
	}
	// A real regression: significant as a whole, and case by case for
	// the tickets it broke, beside changes within noise.
	c := rel.Snapshots[2].Result
	significant, noise, untested := c.VersusPrevious.ByEvidence()
	if !c.VersusPrevious.Significant || c.VersusPrevious.Regressions != 13 || c.VersusPrevious.Fixes != 3 || significant != 10 || noise != 6 || untested != 0 {
		t.Errorf("run-c against run-b: %+v (%d significant, %d within noise)", c.VersusPrevious, significant, noise)
	}
	for _, ch := range c.VersusPrevious.Cases {
		broken := ch.CaseID >= "TK-061" && ch.CaseID <= "TK-072"
		if ch.Evidence == decide.SignificantChange && (!broken || ch.Change != decide.Regressed) {
			t.Errorf("run-c: %s is a significant change outside the broken tickets", ch.CaseID)
		}
	}
	g, _ := c.Gate(decide.GateNoRegression)
	if g.Passed || !c.VersusBaseline.Regressed() || c.VersusBaseline.Regressions != 14 || c.VersusBaseline.Fixes != 1 {
		t.Errorf("run-c against the baseline: %+v, gate passed %v", c.VersusBaseline, g.Passed)
	}
	for _, words := range []string{"p = 0.51", "p = 0.021", "p < 0.001", "Fisher p = 0.029", "About 196 tickets", "it would take 3,135"} {
		if !bytes.Contains(readme, []byte(words)) {
			t.Errorf("the README does not say %q", words)
		}
	}
	if got := decide.FormatP(b.P) + " " + decide.FormatP(c.VersusPrevious.P) + " " + decide.FormatP(c.VersusBaseline.P); got != "p = 0.51 p = 0.021 p < 0.001" {
		t.Errorf("p-values %s", got)
	}
}
