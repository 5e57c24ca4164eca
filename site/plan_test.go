package site

import (
	"slices"
	"testing"

	"github.com/releasegate/releasegate/site/internal/render"
)

// TestPathsAreWhatRenderWrites: the file list a bundle checks against its
// limits before rendering is exactly what rendering then writes.
func TestPathsAreWhatRenderWrites(t *testing.T) {
	in := sampleInput(t)
	planned, err := render.Paths(in)
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	if err := Render(in, func(path string, _ []byte) error {
		written = append(written, path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(planned)
	slices.Sort(written)
	if !slices.Equal(planned, written) {
		t.Fatalf("Paths lists %d files, Render writes %d:\nplanned %v\nwritten %v", len(planned), len(written), planned, written)
	}
}
