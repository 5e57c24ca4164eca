package suite

import (
	"slices"
	"strings"
)

// Vocabulary is the set of decisions of a suite: the enum that
// case.schema.json gives expected.decision. An empty Vocabulary accepts
// any non-empty string.
type Vocabulary []Decision

// Allows reports whether d is a decision of the vocabulary.
func (v Vocabulary) Allows(d Decision) bool {
	if len(v) == 0 {
		return d != ""
	}
	return slices.Contains(v, d)
}

// String lists the decisions for messages: "approve, reject or no_op".
func (v Vocabulary) String() string {
	names := make([]string, len(v))
	for i, d := range v {
		names[i] = string(d)
	}
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
