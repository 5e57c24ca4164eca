package bundle

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"
)

// benchTree is the sample bundle's tree with the fake site plus the real
// vendored assets, which are most of a bundle's bytes.
func benchTree(b *testing.B) fstest.MapFS {
	b.Helper()
	tree := fstest.MapFS{}
	x, err := Extract(makeBundle(b, sampleData, time.Time{}), filepath.Join(b.TempDir(), "x"), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for rel := range x.Sums {
		if rel == ManifestName {
			continue
		}
		data, _ := os.ReadFile(filepath.Join(x.Dir, rel))
		tree[rel] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	assets := os.DirFS("../../assets")
	fs.WalkDir(assets, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(assets, p)
			tree["assets/"+p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
		return nil
	})
	return tree
}

func BenchmarkPack(b *testing.B) {
	tree := benchTree(b)
	var size int64
	for _, f := range tree {
		size += int64(len(f.Data))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		p, err := Pack(io.Discard, tree, PackOptions{Version: "ER-2026.10"})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(p.Bytes), "zip-bytes")
	}
}

func BenchmarkVerify(b *testing.B) {
	tree := benchTree(b)
	path := filepath.Join(b.TempDir(), "bench.zip")
	f, _ := os.Create(path)
	if _, err := Pack(f, tree, PackOptions{Version: "ER-2026.10"}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	tmp := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Verify(path, VerifyOptions{TempDir: tmp})
		if err != nil || !rep.Verified() {
			b.Fatalf("%v %v", rep, err)
		}
	}
}
