package evaluator_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/judge"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// The τ²-bench check: its telecom tasks and the committed simulations of
// real models, turned into a data folder as a user would write it (the
// tasks' long bracketed ids, contains, no decisions, trials), judged by
// releasegate and compared, trial by trial, with the benchmark's own
// verdict on its action checks.
//
// How τ²-bench judges actions (src/tau2/evaluator/evaluator_action.py
// and Action.compare_with_tool_call in src/tau2/data_model/tasks.py, as
// the archive's runs were scored): every tool call of the conversation,
// the agent's and the simulated user's, is a candidate; each expected
// action passes when some call has its name and its compared arguments:
// the listed compare_args, or, when none are listed, every argument the
// call sends, each equal to the action's. A simulation that ended early
// (max_steps, too_many_errors, …) gets reward 0 and no action checks.
//
// In releasegate's terms an action is an expected call under contains;
// without compare_args its arguments are {"$exact": {k: {"$optional": v}}}
// (the call may send only the action's arguments, each equal), with an
// empty list {} (any arguments), with a list the listed members (each
// required and equal). A simulation that ended early gets no output line,
// as a failed run does when imported, so its case fails with
// missing_output.

// tau2Archive is the archive of τ²-bench data, from the module root.
const tau2Archive = "../shared/realdata/tau2-src.tar.xz"

type tau2File struct {
	Tasks       []tau2Task `json:"tasks"`
	Simulations []tau2Sim  `json:"simulations"`
}

type tau2Task struct {
	ID          string `json:"id"`
	Description *struct {
		Purpose string `json:"purpose"`
	} `json:"description"`
	Ticket             string `json:"ticket"`
	EvaluationCriteria *struct {
		Actions []tau2Action `json:"actions"`
	} `json:"evaluation_criteria"`
}

type tau2Action struct {
	Name        string         `json:"name"`
	Arguments   map[string]any `json:"arguments"`
	CompareArgs *[]string      `json:"compare_args"`
}

type tau2Sim struct {
	TaskID            string   `json:"task_id"`
	Trial             int      `json:"trial"`
	Duration          float64  `json:"duration"`
	AgentCost         *float64 `json:"agent_cost"`
	TerminationReason string   `json:"termination_reason"`
	RewardInfo        *struct {
		ActionChecks []struct {
			ActionMatch bool `json:"action_match"`
		} `json:"action_checks"`
	} `json:"reward_info"`
	Messages []struct {
		Role      string            `json:"role"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	} `json:"messages"`
}

// ended says whether the simulation ran to its end, and was scored.
func (s *tau2Sim) ended() bool {
	return s.TerminationReason == "agent_stop" || s.TerminationReason == "user_stop"
}

// benchmarkPasses is τ²-bench's verdict on the trial's actions.
func (s *tau2Sim) benchmarkPasses() bool {
	if !s.ended() || s.RewardInfo == nil {
		return false
	}
	for _, c := range s.RewardInfo.ActionChecks {
		if !c.ActionMatch {
			return false
		}
	}
	return true
}

// moduleRoot walks up from the working folder to the folder of go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// extractTau2 unpacks the archive into a temporary folder, skipping the
// test when the archive or an xz-capable tar is missing.
func extractTau2(t *testing.T) string {
	t.Helper()
	archive := filepath.Join(moduleRoot(t), filepath.FromSlash(tau2Archive))
	if _, err := os.Stat(archive); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("%s is absent", tau2Archive)
	}
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar command to unpack the archive")
	}
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xJf", archive, "-C", dir).CombinedOutput(); err != nil {
		t.Skipf("tar cannot unpack %s (no xz?): %v: %s", tau2Archive, err, out)
	}
	return filepath.Join(dir, "tau2")
}

// decodeNumbers decodes JSON keeping numbers as their literals.
func decodeNumbers(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// expectedArguments is what an action asks of a call's arguments.
func expectedArguments(a tau2Action) any {
	switch {
	case a.CompareArgs == nil:
		members := map[string]any{}
		for k, v := range a.Arguments {
			members[k] = map[string]any{"$optional": literal(v)}
		}
		return map[string]any{"$exact": members}
	default:
		out := map[string]any{}
		for _, k := range *a.CompareArgs {
			if v, ok := a.Arguments[k]; ok {
				out[k] = literal(v)
			}
		}
		return out
	}
}

// literal expects v exactly, as Python's == compares decoded JSON: nested
// objects may hold no other members.
func literal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		members := map[string]any{}
		for k, e := range x {
			members[k] = literal(e)
		}
		return map[string]any{"$exact": members}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = literal(e)
		}
		return out
	}
	return v
}

// tau2Run is one simulation file, as a snapshot.
type tau2Run struct {
	label string
	file  tau2File
}

// writeTau2Folder writes the data folder of the runs: the union of their
// tasks as cases, each run as a snapshot with trials.
func writeTau2Folder(t *testing.T, dir string, runs []tau2Run, mode suite.ToolMatch) {
	t.Helper()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	write("case.schema.json", []byte(`{"type": "object", "required": ["case_id", "title", "severity", "input", "expected"]}`))
	write("gate.json", []byte(`{"min_pass_rate": 0, "max_critical_failures": null, "max_p95_latency_ms": null, "max_avg_cost_usd": null}`))
	var cases []byte
	seen := map[string]bool{}
	for _, r := range runs {
		for _, task := range r.file.Tasks {
			if seen[task.ID] {
				continue
			}
			seen[task.ID] = true
			calls := []any{}
			if task.EvaluationCriteria != nil {
				for _, a := range task.EvaluationCriteria.Actions {
					calls = append(calls, map[string]any{"name": a.Name, "arguments": expectedArguments(a)})
				}
			}
			title := task.ID
			if task.Description != nil && task.Description.Purpose != "" {
				title = task.Description.Purpose
			}
			cases = append(cases, line(map[string]any{
				"case_id": task.ID, "title": title, "severity": "major",
				"input":    map[string]any{"ticket": task.Ticket},
				"expected": map[string]any{"tool_match": mode, "tool_calls": calls, "forbidden_tools": []string{}},
			})...)
		}
	}
	write("cases.jsonl", cases)
	for _, r := range runs {
		var out []byte
		for _, s := range r.file.Simulations {
			if !s.ended() {
				continue // an unscored run has no output, as a failed import
			}
			calls := []json.RawMessage{}
			for _, m := range s.Messages {
				if m.Role == "assistant" || m.Role == "user" {
					calls = append(calls, m.ToolCalls...)
				}
			}
			out = append(out, line(map[string]any{
				"case_id": s.TaskID, "trial": s.Trial + 1, "tool_calls": calls,
				"latency_ms": json.Number(fmt.Sprintf("%.0f", s.Duration*1000)), "cost_usd": s.AgentCost,
			})...)
		}
		write("outputs/"+r.label+".jsonl", out)
	}
}

// readTau2Runs reads every telecom simulation file of the archive.
func readTau2Runs(t *testing.T, root string) []tau2Run {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "telecom", "*.json"))
	if err != nil || len(files) == 0 {
		t.Skipf("the archive holds no telecom runs (%v)", err)
	}
	sort.Strings(files)
	var runs []tau2Run
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var file tau2File
		if err := decodeNumbers(b, &file); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(file.Simulations) == 0 {
			continue // a tasks file
		}
		runs = append(runs, tau2Run{label: strings.TrimSuffix(filepath.Base(f), ".json"), file: file})
	}
	return runs
}

// trialVerdict is releasegate's verdict on trial t of case i.
func trialVerdict(s *evaluator.Snapshot, i, t int) bool {
	for _, f := range s.Result.Cases[i].Failures {
		if f.Trial == t {
			return false
		}
	}
	return true
}

// repeatsAnAction reports whether the case expects the same call twice,
// which one call satisfies for τ²-bench but not for contains (each
// expected call pairs with a call of its own); with the repeats left out,
// the output must pass.
func repeatsAnAction(c *suite.Case, out *suite.Output) bool {
	var unique []suite.ExpectedCall
	for _, e := range c.Expected.ToolCalls {
		if !slices.ContainsFunc(unique, func(u suite.ExpectedCall) bool {
			return u.Name == e.Name && suite.DescribeValue(u.Arguments) == suite.DescribeValue(e.Arguments)
		}) {
			unique = append(unique, e)
		}
	}
	if len(unique) == len(c.Expected.ToolCalls) || out == nil {
		return false
	}
	fewer := *c
	fewer.Expected.ToolCalls = unique
	return judge.Case(&fewer, out, nil) == nil
}

func TestTau2TelecomAgreesWithTheBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("reads and judges the τ²-bench archive")
	}
	runs := readTau2Runs(t, extractTau2(t))
	data := filepath.Join(t.TempDir(), "data")
	writeTau2Folder(t, data, runs, suite.MatchContains)
	rel, err := evaluator.EvaluateDir(data, evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatal(err)
	}
	longest := 0
	for _, c := range rel.Suite.Cases {
		longest = max(longest, len([]rune(c.ID)))
		if c.Expected.JudgesDecision() || c.Expected.Mode() != suite.MatchContains {
			t.Fatalf("%s: converted with a decision or without contains", c.ID)
		}
	}
	byLabel := map[string]*evaluator.Snapshot{}
	for _, s := range rel.Snapshots {
		byLabel[s.Label()] = s
	}
	total, agree, repeated, unscored := 0, 0, 0, 0
	for _, r := range runs {
		s := byLabel[r.label]
		if s == nil || s.Trials() == 0 {
			t.Fatalf("snapshot %s missing or without trials", r.label)
		}
		for _, sim := range r.file.Simulations {
			i, ok := rel.Suite.CaseIndex(sim.TaskID)
			if !ok {
				t.Fatalf("%s: task %q is not a case", r.label, sim.TaskID)
			}
			total++
			if !sim.ended() {
				unscored++
			}
			ours, theirs := trialVerdict(s, i, sim.Trial+1), sim.benchmarkPasses()
			switch {
			case ours == theirs:
				agree++
			case !ours && theirs && repeatsAnAction(rel.Suite.Cases[i], s.TrialOutputs[sim.Trial][i]):
				repeated++
				t.Logf("%s %s trial %d: τ²-bench passes, releasegate fails: the task expects one action twice and the run makes it once", r.label, sim.TaskID, sim.Trial+1)
			default:
				t.Errorf("%s %s trial %d: releasegate says passed=%v, τ²-bench says %v: %+v", r.label, sim.TaskID, sim.Trial+1, ours, theirs, s.Result.Cases[i].Failures)
			}
		}
	}
	if total == 0 {
		t.Fatal("no trial was compared")
	}
	t.Logf("%d cases (longest id %d characters), %d snapshots, %d trials: %d agree (%.1f%%), %d differ because a task repeats an action, %d ended early (no output, and reward 0)",
		len(rel.Suite.Cases), longest, len(rel.Snapshots), total, agree, 100*float64(agree)/float64(total), repeated, unscored)

	// The other modes, on the same runs: how many verdicts contains
	// alone brings into agreement.
	for _, mode := range []suite.ToolMatch{suite.MatchSubsequence, suite.MatchAnyOrder} {
		differ := 0
		for _, r := range runs {
			s := byLabel[r.label]
			for _, sim := range r.file.Simulations {
				i, _ := rel.Suite.CaseIndex(sim.TaskID)
				c := *rel.Suite.Cases[i]
				c.Expected.ToolMatch = mode
				ours := false
				if out := s.TrialOutputs[sim.Trial][i]; out != nil {
					ours = judge.Case(&c, out, nil) == nil
				}
				if ours != sim.benchmarkPasses() {
					differ++
				}
			}
		}
		t.Logf("with %s instead: %d of %d trial verdicts differ from τ²-bench", mode, differ, total)
	}
}
