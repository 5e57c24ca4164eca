//go:build unix

package serve

import (
	"bytes"
	"compress/flate"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/site"
	"github.com/releasegate/releasegate/site/internal/render"
)

// BenchmarkFastPathPackedPages keeps every page of the sample's site the
// way a live server does (split: framed, cut around its steps, and kept
// compressed from packMin to packMax bytes) and reads each back, against
// keeping each page as its bytes. It reports the bytes held per page
// beside the time: the path buys memory with processor time. See "Fast
// paths" in docs/design.md.
//
//	go test ./site/serve -run '^$' -bench 'FastPathPackedPages' -benchmem -count 5
func BenchmarkFastPathPackedPages(b *testing.B) {
	in, err := site.Load(sampleData)
	if err != nil {
		b.Fatal(err)
	}
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		b.Fatal(err)
	}
	footer, err := r.Footer(in)
	if err != nil {
		b.Fatal(err)
	}
	type page struct {
		name string
		data []byte
	}
	var pages []page
	if err := r.RenderAll(in, func(name string, data []byte) error {
		pages = append(pages, page{name, bytes.Clone(data)})
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	packer, _ := flate.NewWriter(nil, flate.BestSpeed)
	for _, p := range pages {
		if !bytes.Equal(split(p.name, bytes.Clone(p.data), footer, r.StepsMarks(), packer).join(footer), p.data) {
			b.Fatalf("%s does not read back as it was made", p.name)
		}
	}
	for _, variant := range []struct {
		name string
		keep func(p page) (held int, read func() []byte)
	}{
		{"fast", func(p page) (int, func() []byte) {
			f := split(p.name, p.data, footer, r.StepsMarks(), packer)
			return len(f.lead) + len(f.steps) + len(f.head) + len(f.tail), func() []byte { return f.join(footer) }
		}},
		{"plain", func(p page) (int, func() []byte) {
			kept := bytes.Clone(p.data)
			return len(kept), func() []byte { return kept }
		}},
	} {
		b.Run(variant.name, func(b *testing.B) {
			b.ReportAllocs()
			held, packable, packableHeld := 0, 0, 0
			cpu := processorTime()
			for b.Loop() {
				held, packable, packableHeld = 0, 0, 0
				for _, p := range pages {
					n, read := variant.keep(p)
					held += n
					if len(p.data) >= packMin && len(p.data) <= packMax && strings.HasSuffix(p.name, ".html") {
						packable++
						packableHeld += n
					}
					if len(read()) != len(p.data) {
						b.Fatal("short page")
					}
				}
			}
			b.ReportMetric(float64(processorTime()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(held)/float64(len(pages)), "held-B/page")
			b.ReportMetric(float64(packableHeld)/float64(packable), "held-B/packable-page")
			b.ReportMetric(float64(packable), "packable-pages")
			b.ReportMetric(float64(len(pages)), "pages")
		})
	}
}

// processorTime is the processor time the process has used, user and
// system: on a shared machine it tells the work apart from waiting for a
// core, which wall time does not.
func processorTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
