package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/site/pages"
	"golang.org/x/net/html"
)

func TestCallsFromOne(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"expected a call to reject_expense, got approve_expense", "expected a call to reject_expense, got approve_expense"},
		{"expected.tool_calls[0] lookup (output tool_calls[1]): amount: want 5, got 6", "expected call 1 lookup (output call 2): amount: want 5, got 6"},
		{"missing expected.tool_calls[2] refund", "missing expected call 3 refund"},
		{"extra tool_calls[9] search", "extra call 10 search"},
		{"expected.tool_calls[1] x is out of order (the output makes it as tool_calls[0])", "expected call 2 x is out of order (the output makes it as call 1)"},
		{"tool_calls[] and tool_calls[x]", "tool_calls[] and tool_calls[x]"},
	} {
		if got := pages.CallsFromOne(tc.in); got != tc.want {
			t.Errorf("callsFromOne(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMeasuredText(t *testing.T) {
	known := func(outputs int) pages.Coverage { return pages.Coverage{Outputs: outputs, Known: true} }
	for _, tc := range []struct {
		value    string
		c        pages.Coverage
		measured int
		want     string
	}{
		{"2,050 ms", known(12), 12, "2,050 ms"},
		{"2,050 ms", known(12), 3, "2,050 ms over 3 of 12 outputs"},
		{"USD 0.5", known(50), 1, "USD 0.5 over 1 of 50 outputs"},
		{"", known(12), 0, "n/a: no output recorded a latency"},
		{"", known(0), 0, "n/a: no outputs"},
		{"", pages.Coverage{}, 0, "n/a"},
		{"2,050 ms", pages.Coverage{}, 0, "2,050 ms"},
	} {
		if got := pages.MeasuredText(tc.value, tc.c, tc.measured, "latency"); got != tc.want {
			t.Errorf("measuredText(%q, %+v, %d) = %q, want %q", tc.value, tc.c, tc.measured, got, tc.want)
		}
	}
}

// TestPagesSayHowSure builds examples/noise and checks the words of the
// evidence: the interval in words, what would settle an inconclusive
// gate, whether each comparison could be chance, and the numbers one
// click deeper, all from the results files.
func TestPagesSayHowSure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build("../examples/noise", out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		page  string
		words []string
	}{
		{"index.html", []string{
			"59 of 80 cases passed; 95% sure the true pass rate is between 63.2% and 82.1%.",
			"Against run-b (the previous snapshot): 3 fixed and 13 regressed, which is unlikely to be chance.",
			"Against run-a (the baseline): 1 fixed and 14 regressed, which is unlikely to be chance.",
			"exact McNemar test p = 0.0212708, significant",
			"pass_rate_interval [0.63181, 0.821426]",
		}},
		{"snapshots/run-b.html", []string{
			"69 of 80 cases passed; 95% sure the true pass rate is between 77% and 92.1%.",
			"Not proven yet: about 3,135 cases at the same pass rate (3,055 more than now) would settle it.",
			"Against run-a (the previous snapshot and the baseline): 3 fixed and 6 regressed, which could be chance.",
			"exact McNemar test p = 0.507813, not significant",
		}},
	} {
		doc := parsePage(t, out, tc.page)
		ev := findAll(doc, sel("div", class("evidence")))
		if len(ev) != 1 {
			t.Fatalf("%s: %d evidence blocks, want 1", tc.page, len(ev))
		}
		text := strings.Join(strings.Fields(textOf(ev[0])), " ")
		for _, w := range tc.words {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the evidence lacks %q:\n%s", tc.page, w, text)
			}
		}
		// The numbers are one click deeper, folded by default.
		details := findAll(ev[0], sel("details", class("evidence-numbers")))
		if len(details) != 1 || isOpen(details[0]) {
			t.Errorf("%s: the numbers are not folded in one <details>", tc.page)
		}
		if s := textOf(findAll(ev[0], sel("p", class("evidence-rate")))[0]); strings.Contains(s, "McNemar") || strings.Contains(s, "p =") {
			t.Errorf("%s: the first sentence shows a test: %s", tc.page, s)
		}
	}
}

func isOpen(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "open" {
			return true
		}
	}
	return false
}

// TestRealDataWords: a case whose output is missing now is "no output",
// never "regressed"; a p95 and an average measured over some outputs say
// over how many; a cost no output recorded says so.
func TestRealDataWords(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	copyDir(t, "../data", data)
	path := filepath.Join(data, "outputs", "candidate-v3.jsonl")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, line := range strings.Split(strings.TrimSpace(string(src)), "\n") {
		if strings.Contains(line, `"case_id": "ER-001"`) {
			continue // ER-001 passes in candidate-v2 and has no output here
		}
		if i > 3 {
			line = regexp.MustCompile(`"latency_ms": [0-9.]+`).ReplaceAllString(line, `"latency_ms": null`)
		}
		line = regexp.MustCompile(`"cost_usd": [0-9.]+`).ReplaceAllString(line, `"cost_usd": null`)
		lines = append(lines, line)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(data, out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, out, "index.html")
	change := strings.Join(strings.Fields(textOf(findAll(doc, sel("article", class("change")))[0])), " ")
	if !strings.Contains(change, "No output nowER-001") {
		t.Errorf("ER-001 is not listed as no output:\n%s", change)
	}
	if strings.Contains(change, "RegressedER-001") {
		t.Errorf("ER-001 is listed as regressed:\n%s", change)
	}
	all := strings.Join(strings.Fields(textOf(doc)), " ")
	for _, w := range []string{"over 3 of 11 outputs", "n/a: no output recorded a cost"} {
		if !strings.Contains(all, w) {
			t.Errorf("the overview lacks %q", w)
		}
	}
	snap := strings.Join(strings.Fields(textOf(parsePage(t, out, "snapshots/candidate-v3.html"))), " ")
	for _, w := range []string{"over 3 of 11 outputs", "no output recorded a cost"} {
		if !strings.Contains(snap, w) {
			t.Errorf("the snapshot page lacks %q", w)
		}
	}
}

// FuzzCallsFromOne: whatever a detail says, the rewrite leaves no call
// counted from 0 and touches nothing else of a detail without one.
func FuzzCallsFromOne(f *testing.F) {
	for _, s := range []string{"expected.tool_calls[0] a (output tool_calls[12])", "tool_calls[", "tool_calls[99999999999999999999]", "x"} {
		f.Add(s)
	}
	left := regexp.MustCompile(`tool_calls\[[0-9]+\]`)
	f.Fuzz(func(t *testing.T, detail string) {
		got := pages.CallsFromOne(detail)
		if !strings.Contains(detail, "tool_calls[") && got != detail {
			t.Fatalf("%q became %q", detail, got)
		}
		for _, m := range left.FindAllString(got, -1) {
			if _, err := strconv.Atoi(m[len("tool_calls[") : len(m)-1]); err == nil && !strings.Contains(detail, m) {
				t.Fatalf("%q became %q, which counts %s", detail, got, m)
			}
		}
	})
}
