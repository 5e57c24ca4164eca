package suite

import "fmt"

// InputError is a problem with an input file, located precisely enough for
// an author to fix it: "data/cases.jsonl:7: expected.decision: …".
type InputError struct {
	File  string // path as given by the user
	Line  int    // 1-based; 0 when the problem concerns the whole file
	Field string // dotted path of the offending field, or ""
	Msg   string
}

func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}
