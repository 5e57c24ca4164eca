package site

import (
	"time"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Provenance is where a snapshot came from, as its meta.json says.
type Provenance struct {
	Items []ProvenanceItem
	// Description is the snapshot's own words about itself.
	Description string
}

// ProvenanceItem is one named fact of a snapshot's provenance.
type ProvenanceItem struct {
	Name  string // "Model"
	Value string
	// DateTime is the machine-readable time of a recorded_at value.
	DateTime string
}

// provenance is nil for a snapshot without a meta.json or with an empty
// one.
func provenance(m *suite.Meta) *Provenance {
	if m == nil {
		return nil
	}
	p := &Provenance{Description: m.Description}
	if m.Model != "" {
		p.Items = append(p.Items, ProvenanceItem{Name: "Model", Value: m.Model})
	}
	if m.Commit != "" {
		p.Items = append(p.Items, ProvenanceItem{Name: "Commit", Value: m.Commit})
	}
	if m.RecordedAt != "" {
		p.Items = append(p.Items, ProvenanceItem{Name: "Recorded", Value: recordedText(m.RecordedAt), DateTime: m.RecordedAt})
	}
	if len(p.Items) == 0 && p.Description == "" {
		return nil
	}
	return p
}

// recordedText words an RFC 3339 time in UTC to the minute, the way the
// rest of the site writes times: "2026-11-24 08:00 UTC".
func recordedText(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s // the loader refuses such a value; show it as given
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
