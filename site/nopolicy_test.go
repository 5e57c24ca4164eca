package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noPolicyData copies the sample into a temporary data folder without
// POLICY.md, emptying every case's expected citations so that it stays
// valid input (docs/data-format.md, "Optional documents"). The outputs keep their citations.
func noPolicyData(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	copyDir(t, sampleData, data)
	if err := os.Remove(filepath.Join(data, "POLICY.md")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "cases.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var c map[string]any
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		c["expected"].(map[string]any)["citations"] = []any{}
		enc, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(enc)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCitationsWithoutPolicy checks that without POLICY.md a cited id is
// shown as not checked, says why, and links no policy page; with the
// sample's policy the same id is a linked current rule.
func TestCitationsWithoutPolicy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	if _, err := Build(noPolicyData(t), out, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "policy.html")); !os.IsNotExist(err) {
		t.Fatalf("policy.html exists without POLICY.md (stat: %v)", err)
	}
	const page = "snapshots/candidate-v3/ER-001.html"
	section := func(dir string) []string {
		doc := parsePage(t, dir, page)
		var texts []string
		for _, li := range findAll(doc, within(sel("section", hasAttr("aria-labelledby", "citations")), sel("li", class("citation")))) {
			texts = append(texts, attr(li, "class")+"|"+textOf(li))
			for _, a := range findAll(li, sel("a")) {
				texts = append(texts, "link|"+attr(a, "href"))
			}
		}
		return texts
	}

	got := section(out)
	if len(got) == 0 {
		t.Fatalf("%s lists no citations", page)
	}
	for _, row := range got {
		if strings.HasPrefix(row, "link|") {
			t.Errorf("a citation links %q though there is no policy page", strings.TrimPrefix(row, "link|"))
			continue
		}
		if !strings.HasPrefix(row, "citation citation-unchecked|") ||
			!strings.Contains(row, "not checked: the data folder has no POLICY.md") ||
			strings.Contains(row, "not a rule of the current policy") {
			t.Errorf("citation row %q, want it marked not checked for lack of POLICY.md", row)
		}
	}

	// The same page of the sample, which has a policy: the rows are
	// checked and linked, so the test above is not passing by accident.
	withPolicy := strings.Join(section(builtSample(t)), "\n")
	if !strings.Contains(withPolicy, "citation citation-current|") || !strings.Contains(withPolicy, "link|../../policy.html#") || strings.Contains(withPolicy, "not checked") {
		t.Errorf("with POLICY.md the citations of %s are not linked current rules:\n%s", page, withPolicy)
	}
}
