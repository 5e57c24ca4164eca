package site

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/evaluator/gensuite"
)

// renderFiles renders the site of in into memory.
func renderFiles(t *testing.T, in *Input) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if err := Render(in, func(path string, data []byte) error {
		files[path] = bytes.Clone(data)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCompactOutputsRenderTheSameSite: the site rendered from outputs and
// inputs kept as the places of their lines (what build, bundle and
// verify load) is the site rendered from them kept whole (what the live
// server loads), byte for byte, drilldowns and trial sections included,
// on single pages and grouped.
func TestCompactOutputsRenderTheSameSite(t *testing.T) {
	trials := filepath.Join(t.TempDir(), "trials")
	if err := gensuite.WriteTrials(sampleData, trials, 60, 3); err != nil {
		t.Fatal(err)
	}
	many := filepath.Join(t.TempDir(), "many")
	if err := gensuite.Write(sampleData, many, 250); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		data       string
		groupAbove int
	}{
		{sampleData, 0}, {"../examples/airline", 0}, {"../examples/imported", 0}, {"../examples/noise", 0},
		{trials, 0}, {trials, 50}, {many, 100},
	} {
		t.Run(filepath.Base(tc.data)+"/"+strings.Repeat("grouped", min(tc.groupAbove, 1)), func(t *testing.T) {
			compact, err := Load(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			defer compact.Release.Close()
			if !compact.Release.Snapshots[0].Outputs[0].Compact() || compact.Release.Suite.Cases[0].Input != nil {
				t.Fatal("Load kept the outputs or the inputs whole")
			}
			whole, err := LoadRemembering(tc.data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if whole.Release.Snapshots[0].Outputs[0].Compact() || whole.Release.Suite.Cases[0].Input == nil {
				t.Fatal("LoadRemembering kept the outputs or the inputs compact")
			}
			compact.GroupAbove, whole.GroupAbove = tc.groupAbove, tc.groupAbove
			a, b := renderFiles(t, compact), renderFiles(t, whole)
			if !slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b))) {
				t.Fatalf("%d files rendered compact, %d whole", len(a), len(b))
			}
			for path, data := range b {
				if !bytes.Equal(a[path], data) {
					t.Fatalf("%s differs when the outputs are kept compact", path)
				}
			}
		})
	}
}

// TestBuildFailsWhenAnInputFileChanges: an outputs file or the cases
// file written over between judging and rendering fails the rendering
// with the file and line named, rather than showing what was not judged.
func TestBuildFailsWhenAnInputFileChanges(t *testing.T) {
	for _, name := range []string{"outputs/candidate-v3.jsonl", "cases.jsonl"} {
		t.Run(name, func(t *testing.T) {
			data := copySample(t)
			in, err := Load(data)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Release.Close()
			path := filepath.Join(data, filepath.FromSlash(name))
			original, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Write(bytes.ToUpper(original[:40]))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				t.Fatal(err)
			}
			err = Render(in, func(string, []byte) error { return nil })
			if err == nil || !strings.Contains(err.Error(), filepath.Base(name)+":1: the line changed while the site was being made from it — run the command again") {
				t.Fatalf("rendering after %s changed: %v", name, err)
			}
		})
	}
}
