package suite

// Meta describes where a snapshot came from, as its optional
// outputs/<label>.meta.json says. Every member is optional.
type Meta struct {
	RecordedAt  string `json:"recorded_at,omitempty"` // RFC 3339
	Model       string `json:"model,omitempty"`
	Commit      string `json:"commit,omitempty"`
	Description string `json:"description,omitempty"`
}
