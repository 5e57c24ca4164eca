package site

import (
	"strings"
	"testing"
	"io/fs"
	"github.com/releasegate/releasegate"
)

func benchExec(b *testing.B, web fs.FS) {
	in := sampleInput(b)
	r, err := NewRenderer(web)
	if err != nil {
		b.Fatal(err)
	}
	v, _ := newView(in)
	p := v.drilldown(in.Release.Snapshots[1], 6)
	p.Header, _ = r.header(v, "drilldown", &p.Layout)
	c0 := cpuTime()
	for b.Loop() {
		if _, err := r.execute("drilldown", p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

func BenchmarkExpCurrent(b *testing.B) { benchExec(b, releasegate.Web()) }

func BenchmarkExpNoBadgeCalls(b *testing.B) {
	src, _ := fs.ReadFile(releasegate.Web(), "templates/drilldown.html")
	s := strings.ReplaceAll(string(src), `{{template "badge" .Verdict}}`, `{{.Verdict.Text}}`)
	s = strings.ReplaceAll(s, `{{template "badge" .DecisionVerdict}}`, `{{.DecisionVerdict.Text}}`)
	benchExec(b, webWith(b, "templates/drilldown.html", s))
}

func BenchmarkExpEmpty(b *testing.B) {
	benchExec(b, webWith(b, "templates/drilldown.html", `{{define "content"}}{{end}}`))
}
