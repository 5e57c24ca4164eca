package pages_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/pages"
)

// The release reports of the sample, every example and a generated suite
// are cut into blocks, and render in blocks as they do whole: first with
// nothing kept, then each with the blocks of the one before.
func TestReportsRenderInBlocksAsWhole(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "gate.json"))
	if err != nil {
		t.Fatal(err)
	}
	generated := filepath.Join(t.TempDir(), "generated")
	if err := gensuite.Write(filepath.Join("..", "..", "data"), generated, 300); err != nil {
		t.Fatal(err)
	}
	for i, gate := range dirs {
		dirs[i] = filepath.Dir(gate)
	}
	dirs = append(dirs, filepath.Join("..", "..", "data"), generated)
	kept := &pages.MarkdownBlocks{}
	for _, dir := range dirs {
		in, err := site.Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		report := in.Release.Report()
		if n, ok := pages.CutIntoBlocks(report); !ok || n < 5 {
			t.Errorf("%s: RELEASE_REPORT.md cut into %d blocks (ok %v); want it cut", dir, n, ok)
		}
		whole, err := pages.RenderMarkdown(report, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []*pages.MarkdownBlocks{{}, kept, kept} {
			got, err := pages.RenderMarkdownBlocks(report, k)
			if err != nil {
				t.Fatal(err)
			}
			if got != whole {
				t.Fatalf("%s: the report rendered in blocks differs from the whole", dir)
			}
		}
	}
}

// BenchmarkFastPathReportBlocks renders the release report of 10,000
// generated cases × 3 after an edit of one line, as a live server does:
// /fast with the blocks of the last rendering kept, /plain whole (see
// docs/design.md, Fast paths).
func BenchmarkFastPathReportBlocks(b *testing.B) {
	in := loadGenerated(b, 10000)
	report := in.Release.Report()
	edited := bytes.Replace(report, []byte("- pass `avg_cost_usd`"), []byte("- FAIL `avg_cost_usd`"), 1)
	if bytes.Equal(edited, report) {
		b.Fatal("the edit changes nothing")
	}
	versions := [][]byte{report, edited}
	b.Run("fast", func(b *testing.B) {
		kept := &pages.MarkdownBlocks{}
		for i := 0; b.Loop(); i++ {
			if _, err := pages.RenderMarkdownBlocks(versions[i%2], kept); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := pages.RenderMarkdown(versions[i%2], nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFastPathReportTables renders the release report of 10,000
// generated cases × 3 once, as a build does: /fast with its failure
// tables from their distinct cells, /plain whole by goldmark (see
// docs/design.md, Fast paths).
func BenchmarkFastPathReportTables(b *testing.B) {
	report := loadGenerated(b, 10000).Release.Report()
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if _, err := pages.RenderMarkdownBlocks(report, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if _, err := pages.RenderMarkdown(report, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
