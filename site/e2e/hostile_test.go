//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator"
)

// payloads are the strings a hostile suite author puts wherever the
// data format allows free text. Each would run script or plant an element if a
// page pasted it unescaped: into HTML, into an inline script, into a link,
// or into a chart option where the chart library unwraps __f__…__f__ into a
// live JavaScript function.
var payloads = []string{
	`<script>alert(1)</script>`,
	`</script><script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`[x](javascript:alert(1))`,
	`__f__alert(1)__f__`,
}

// hostileMarkdown is appended to POLICY.md and HANDOFF.md: prose, raw HTML,
// a javascript: link and a rule heading, all carrying the payloads. The
// rule keeps the policy's version so the policy stays valid.
var hostileMarkdown = `

## Notes ` + payloads[0] + `

Prose with ` + strings.Join(payloads, " and ") + `.

<script>alert(1)</script>

<img src=x onerror=alert(1)>

<a href="javascript:alert(1)">raw link</a>

### ER-2026.10 §9.9 Hostile rule ` + payloads[2] + ` ` + payloads[4] + `

See [the rule](javascript:alert(1)) and ` + "`" + payloads[1] + "`" + `.
`

// writeHostileData copies the data folder src to dst and plants the
// payloads in every free-text place: case titles, inputs (keys and
// values), expected arguments and forbidden tools, output arguments, tool
// names and citations, and the Markdown documents. The result still obeys
// the data format, so the site must build from it.
func writeHostileData(src, dst string) error {
	if err := os.MkdirAll(filepath.Join(dst, "outputs"), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"case.schema.json", "gate.json"} {
		if err := copyFile(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return err
		}
	}
	for _, name := range []string{"POLICY.md", "HANDOFF.md"} {
		text, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, name), append(text, hostileMarkdown...), 0o644); err != nil {
			return err
		}
	}
	if err := rewriteJSONL(filepath.Join(src, "cases.jsonl"), filepath.Join(dst, "cases.jsonl"), poisonCase); err != nil {
		return err
	}
	outputs, err := filepath.Glob(filepath.Join(src, "outputs", "*.jsonl"))
	if err != nil {
		return err
	}
	for _, f := range outputs {
		if err := rewriteJSONL(f, filepath.Join(dst, "outputs", filepath.Base(f)), poisonOutput); err != nil {
			return err
		}
	}
	return nil
}

// poisonCase plants payloads in case number i (from 0).
func poisonCase(i int, c map[string]any) {
	p := payloads[i%len(payloads)]
	if i < 2*len(payloads) {
		// A title that is exactly a payload is what unwraps __f__…__f__.
		c["title"] = p
	} else {
		c["title"] = fmt.Sprint(c["title"], " ", strings.Join(payloads, " "))
	}
	if in, ok := c["input"].(map[string]any); ok {
		in["note"] = strings.Join(payloads, " ")
		in[payloads[2]] = payloads[4]
	}
	exp := c["expected"].(map[string]any)
	if calls, _ := exp["tool_calls"].([]any); len(calls) == 1 {
		args := calls[0].(map[string]any)["arguments"].(map[string]any)
		args["memo"] = p
		args[payloads[0]] = payloads[1]
	}
	forbidden, _ := exp["forbidden_tools"].([]any)
	exp["forbidden_tools"] = append(forbidden, payloads[3])
}

// poisonOutput plants payloads in output number i (from 0). The arguments
// differ from the expected ones and the citations are no rules, so the
// failure details carry payloads too.
func poisonOutput(i int, o map[string]any) {
	o["citations"] = append(o["citations"].([]any), payloads[(i+1)%len(payloads)])
	calls, _ := o["tool_calls"].([]any)
	if len(calls) == 0 {
		return
	}
	call := calls[0].(map[string]any)
	args, _ := call["arguments"].(map[string]any)
	if args == nil {
		args = map[string]any{}
		call["arguments"] = args
	}
	args["memo"] = payloads[(i+2)%len(payloads)]
	if i%4 == 3 {
		call["name"] = payloads[i%len(payloads)]
	}
}

// rewriteJSONL copies a JSON Lines file, passing each object through edit.
// Numbers keep their text, so amounts and latencies stay exact.
func rewriteJSONL(src, dst string, edit func(i int, v map[string]any)) error {
	in, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(nil, len(in)+1)
	i := 0
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s:%d: %w", src, line, err)
		}
		edit(i, v)
		i++
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", src, line, err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return os.WriteFile(dst, out.Bytes(), 0o644)
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}

// TestHostileDataIsValid guards the injection test itself: the planted
// data must still pass the loader, or the hostile site is never built and
// nothing is tested. It needs no browser.
func TestHostileDataIsValid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := writeHostileData(sampleData, dir); err != nil {
		t.Fatal(err)
	}
	rel, err := evaluator.EvaluateDir(dir, evaluator.Options{KeepOutputs: true})
	if err != nil {
		t.Fatalf("the hostile data no longer loads: %v", err)
	}
	titles := 0
	for _, c := range rel.Suite.Cases {
		if slices.Contains(payloads, c.Title) {
			titles++
		}
	}
	if titles == 0 {
		t.Error("no case title is a bare payload")
	}
	if len(rel.Snapshots) == 0 {
		t.Error("no snapshots in the hostile data")
	}
	policy, err := os.ReadFile(filepath.Join(dir, "POLICY.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range payloads {
		if !strings.Contains(string(policy), p) {
			t.Errorf("POLICY.md lacks the payload %q", p)
		}
	}
}
