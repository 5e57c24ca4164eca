package evaluator

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"golang.org/x/net/html"
)

// hostileTool is a tool name an agent could send: it would end a table
// cell, open code, break the row and inject HTML if written as it is.
const hostileTool = "pay|out `x` *now*\n<script>alert(1)</script> [a](b) \\|"

// hostileRelease evaluates a copy of the sample where candidate-v3 answers
// ER-004, a no_op case, with a call to hostileTool.
func hostileRelease(t *testing.T) *Release {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sampleDir)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "outputs", "candidate-v3.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := `{"case_id": "ER-004", "decision": "no_op", "tool_calls": [], `
	hostile := `{"case_id": "ER-004", "decision": "no_op", "tool_calls": [{"name": "pay|out ` + "`x`" + ` *now*\n<script>alert(1)</script> [a](b) \\|", "arguments": {}}], `
	if !bytes.Contains(data, []byte(old)) {
		t.Fatal("the sample's ER-004 output of candidate-v3 changed; update this test")
	}
	if err := os.WriteFile(path, bytes.Replace(data, []byte(old), []byte(hostile), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := EvaluateDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestReportEscapesAgentText renders RELEASE_REPORT.md as GitHub does
// (GFM tables) and checks that a hostile tool name stays literal text in
// its own cell of its own row.
func TestReportEscapesAgentText(t *testing.T) {
	report := hostileRelease(t).Report()
	wantDetail := "no_op expects no tool call, got 1: " + strings.ReplaceAll(hostileTool, "\n", " ")

	var rendered bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert(report, &rendered); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&rendered)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	var scripts int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "script" {
			scripts++
		}
		if n.Type == html.ElementNode && n.Data == "tr" {
			var cells []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.Data == "td" || c.Data == "th") {
					cells = append(cells, textOf(c))
				}
			}
			rows = append(rows, cells)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts > 0 {
		t.Errorf("the rendered report holds %d script elements", scripts)
	}
	var details []string
	for _, cells := range rows {
		if len(cells) == 4 && cells[0] == "ER-004" && cells[2] == "tool_call" {
			details = append(details, cells[3])
		}
		if strings.Contains(strings.Join(cells, "|"), "alert") && (len(cells) != 4 || cells[0] != "ER-004") {
			t.Errorf("the tool name broke a table row: %q", cells)
		}
	}
	if !slices.Contains(details, wantDetail) {
		t.Errorf("ER-004's tool_call details read %q, want one reading %q; the report:\n%s", details, wantDetail, report)
	}
}

// textOf is the text inside n, as a reader sees it.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}
