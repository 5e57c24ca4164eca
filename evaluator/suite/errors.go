package suite

import (
	"fmt"
	"strings"
)

// InputError is a problem with an input file, located precisely enough for
// an author to fix it, in one form everywhere:
//
//	data/cases.jsonl:7:31: expected.decision: unknown decision "aprove" — use approve, reject or escalate
//
// that is file:line:column: field: what is wrong — how to fix it, each
// part left out when it does not apply (docs/errors.md lists them all).
type InputError struct {
	File  string // path as given by the user
	Line  int    // 1-based; 0 when the problem concerns the whole file
	Col   int    // 1-based byte column in the line; 0 when not known
	Field string // dotted path of the offending field, or ""
	Msg   string
	// Fix says how to fix the problem when Msg does not already.
	Fix string
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Msg)
	if e.Fix != "" {
		b.WriteString(" — " + e.Fix)
	}
	return b.String()
}

// MaxProblems is how many problems of one run are reported in full; the
// rest are counted.
const MaxProblems = 20

// InputErrors are the problems found in one run, in file and line order:
// at most MaxProblems in full, and the number of the others.
type InputErrors struct {
	Problems []*InputError
	// More counts the problems found beyond Problems.
	More int
	// Uncounted is set when counting stopped early: there may be more.
	Uncounted bool
}

// Error lists the problems one a line, then how many more there are.
func (e *InputErrors) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	for _, p := range e.Problems {
		lines = append(lines, p.Error())
	}
	switch {
	case e.Uncounted:
		lines = append(lines, fmt.Sprintf("… and %d or more further problems (fix these and run again)", e.More))
	case e.More == 1:
		lines = append(lines, "… and 1 more problem")
	case e.More > 1:
		lines = append(lines, fmt.Sprintf("… and %d more problems", e.More))
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find the first problem.
func (e *InputErrors) Unwrap() []error {
	out := make([]error, len(e.Problems))
	for i, p := range e.Problems {
		out[i] = p
	}
	return out
}

// Problems returns err's input problems: several for InputErrors, one for
// an InputError, none for any other error.
func Problems(err error) []*InputError {
	switch e := err.(type) {
	case *InputErrors:
		return e.Problems
	case *InputError:
		return []*InputError{e}
	}
	return nil
}
