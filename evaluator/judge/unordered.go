package judge

import (
	"fmt"
	"strconv"
	"strings"
)

// An $unordered matcher matches an array when some one-to-one pairing of
// its elements with the expected items matches each item. Items may hold
// matchers ($any, $text, …), so one element can match several items and
// greedy choice can miss a pairing that exists: the pairing is a maximum
// bipartite matching, found by augmenting paths. Arrays of arguments are
// short, and each item is compared with each element at most once.

// unorderedPairs returns the size of a largest pairing of items with
// elements in which each pair matches.
func unorderedPairs(items, elems []any) int {
	n, _ := unorderedMatching(items, elems)
	return n
}

// unorderedMatching pairs items with elements: the number of pairs, and
// per item the element paired with it, or -1.
func unorderedMatching(items, elems []any) (int, []int) {
	fits := make([]int8, len(items)*len(elems)) // 0 unknown, 1 yes, -1 no
	fit := func(i, j int) bool {
		k := i*len(elems) + j
		if fits[k] == 0 {
			fits[k] = -1
			if matches(items[i], elems[j]) {
				fits[k] = 1
			}
		}
		return fits[k] == 1
	}
	owner := make([]int, len(elems)) // per element, its item or -1
	for j := range owner {
		owner[j] = -1
	}
	paired := make([]int, len(items))
	seen := make([]bool, len(elems))
	var augment func(i int) bool
	augment = func(i int) bool {
		for j := range elems {
			if seen[j] || !fit(i, j) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || augment(owner[j]) {
				owner[j], paired[i] = i, j
				return true
			}
		}
		return false
	}
	n := 0
	for i := range items {
		paired[i] = -1
	}
	for i := range items {
		clear(seen)
		if augment(i) {
			n++
		}
	}
	// augment may have moved an earlier item to another element; owner
	// holds the final pairing.
	for i := range paired {
		paired[i] = -1
	}
	for j, i := range owner {
		if i >= 0 {
			paired[i] = j
		}
	}
	return n, paired
}

// unorderedProblem words why the array elems does not hold items in any
// order, or returns "" when it does.
func unorderedProblem(items, elems []any) string {
	if len(elems) != len(items) {
		return fmt.Sprintf("expected an array of %d items in any order, got %d", len(items), len(elems))
	}
	n, paired := unorderedMatching(items, elems)
	if n == len(items) {
		return ""
	}
	used := make([]bool, len(elems))
	var unmatched []string
	for i, j := range paired {
		if j >= 0 {
			used[j] = true
			continue
		}
		unmatched = append(unmatched, "$unordered["+strconv.Itoa(i)+"] "+Show(items[i]))
	}
	var left []string
	for j, u := range used {
		if !u {
			left = append(left, "["+strconv.Itoa(j)+"] "+Show(elems[j]))
		}
	}
	return fmt.Sprintf("expected %d items in any order, but at best %d pair up: nothing left matches %s; left over: %s",
		len(items), n, strings.Join(unmatched, ", "), strings.Join(left, ", "))
}
