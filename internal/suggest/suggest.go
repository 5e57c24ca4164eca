// Package suggest finds the name a person probably meant when they typed
// one that does not exist: a mistyped command, flag or JSON key.
package suggest

import "strings"

// Closest returns the candidate nearest to typed by edit distance
// (insertions, deletions, substitutions and swaps of neighbours, letter
// case ignored), and whether it is near enough to offer: at most one edit
// for short names, two for names of six letters or more, a third of the
// name's length at most for longer ones. Ties go to the earlier
// candidate, so the answer does not depend on map order when the caller
// passes a sorted list.
func Closest(typed string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	lt := strings.ToLower(typed)
	for _, c := range candidates {
		if c == typed {
			continue
		}
		lc := strings.ToLower(c)
		d := Distance(lt, lc)
		// A name typed without its separators ("toolcalls" for
		// "tool_calls") or with others is one slip, however many
		// characters it differs by.
		if squash(lt) == squash(lc) {
			d = min(d, 1)
		}
		// So is a name cut short or run on: "latency" for "latency_ms".
		if len(lt) >= 4 && len(lc) >= 4 && (strings.HasPrefix(lc, lt) || strings.HasPrefix(lt, lc)) {
			d = min(d, 2)
		}
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > allowed(typed) {
		return "", false
	}
	return best, true
}

// allowed is how many edits still count as a slip of the name typed.
func allowed(typed string) int {
	n := len([]rune(typed))
	switch {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	default:
		return max(2, n/3)
	}
}

// squash drops the characters people leave out or swap in names:
// underscores, hyphens, dots and spaces.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', '.', ' ':
			return -1
		}
		return r
	}, s)
}

// Distance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of two
// neighbouring characters that turn one into the other.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: a swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
