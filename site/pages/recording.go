package pages

import (
	"time"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Recording is where a snapshot came from, as its meta.json says.
type Recording struct {
	Items []RecordingItem
	// Description is the snapshot's own words about itself.
	Description string
}

// RecordingItem is one named fact of how a snapshot was recorded.
type RecordingItem struct {
	Name  string // "Model"
	Value string
	// DateTime is the machine-readable time of a recorded_at value.
	DateTime string
}

// recording is nil for a snapshot without a meta.json or with an empty
// one.
func recording(m *suite.Meta) *Recording {
	if m == nil {
		return nil
	}
	p := &Recording{Description: m.Description}
	if m.Model != "" {
		p.Items = append(p.Items, RecordingItem{Name: "Model", Value: m.Model})
	}
	if m.Commit != "" {
		p.Items = append(p.Items, RecordingItem{Name: "Commit", Value: m.Commit})
	}
	if m.RecordedAt != "" {
		p.Items = append(p.Items, RecordingItem{Name: "Recorded", Value: recordedText(m.RecordedAt), DateTime: m.RecordedAt})
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
