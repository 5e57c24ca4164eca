package pages

import (
	"encoding/json"
)

// RowTrials is a case's trials for the table's trial strip, one string
// per trial: "" passed, "-" no output, else its failure codes.
type RowTrials []string

// NoOutputTrial marks a trial without output in a rowTrials.
const NoOutputTrial = "-"

// newRowTrials reads a case's trials off its strip.
func newRowTrials(s *TrialStrip) RowTrials {
	out := make(RowTrials, len(s.Marks))
	for i, m := range s.Marks {
		switch {
		case m.Missing:
			out[i] = NoOutputTrial
		case !m.Passed:
			out[i] = m.Codes
		}
	}
	return out
}

// Decimal is an exact decimal literal, written into the data as a JSON
// string, or null when empty (nothing measured): the script writes it
// into the row as it stands, as the page does, and parses it to sort.
type Decimal string

func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(d))
}
