package pages

import (
	"slices"
	"testing"
)

// The first rows of the case table: failing cases first, each group in
// suite order, cut at n.
func TestFailuresFirst(t *testing.T) {
	var rows []CaseRow
	for i, failing := range []bool{false, true, false, true, false} {
		r := CaseRow{ID: string(rune('a' + i)), Verdict: verdictBadge(!failing)}
		rows = append(rows, r)
	}
	ids := func(rs []CaseRow) (out []string) {
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for n, want := range map[int][]string{
		0: {}, 1: {"b"}, 2: {"b", "d"}, 3: {"b", "d", "a"}, 5: {"b", "d", "a", "c", "e"}, 9: {"b", "d", "a", "c", "e"},
	} {
		if got := ids(failuresFirst(rows, n)); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("failuresFirst(rows, %d) = %v, want %v", n, got, want)
		}
	}
}
