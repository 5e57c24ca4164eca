package judge

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// Pairing is how an output's calls were paired with the expected ones.
type Pairing struct {
	Actual   []int // per expected call, the index of the output call paired with it, or -1
	Unpaired []int // indexes of output calls paired with no expected call
}

// PairCalls returns the pairing the judge used: among the pairings the
// case's tool_match allows that pair calls of equal names, one that
// matches the most calls fully. When no pairing pairs every expected call
// (and, for exact and any_order, every output call), it is one that pairs
// as many calls by name as possible.
func PairCalls(exp *suite.Expected, calls []suite.ToolCall) Pairing {
	return pair(exp, calls).Pairing
}

// pairing is a Pairing with what the judge concluded from it.
type pairing struct {
	Pairing
	namesPair bool   // the pairing pairs every call as the mode requires
	full      []bool // per expected call, whether its paired call matches fully
}

// matchTable answers "does output call j match expected call i fully?",
// comparing arguments at most once per pair and only for equal names.
type matchTable struct {
	exp   []suite.ExpectedCall
	calls []suite.ToolCall
	memo  []int8 // 0 unknown, 1 yes, -1 no; row-major by expected call
}

// maxTable bounds the cells of the tables pairing keeps for one output:
// beyond it (a case expecting thousands of calls of an output making
// thousands), arguments are compared again instead of remembered, and
// in-order pairing is greedy.
const maxTable = 1 << 20

func newMatchTable(exp []suite.ExpectedCall, calls []suite.ToolCall) *matchTable {
	t := &matchTable{exp: exp, calls: calls}
	if cells := (len(exp) + 1) * (len(calls) + 1); cells <= maxTable {
		t.memo = make([]int8, len(exp)*len(calls))
	}
	return t
}

func (t *matchTable) names(i, j int) bool { return t.exp[i].Name == t.calls[j].Name }

func (t *matchTable) full(i, j int) bool {
	if t.memo == nil {
		return t.names(i, j) && argumentsMatch(t.exp[i].Arguments, &t.calls[j])
	}
	k := i*len(t.calls) + j
	if t.memo[k] == 0 {
		t.memo[k] = -1
		if t.names(i, j) && argumentsMatch(t.exp[i].Arguments, &t.calls[j]) {
			t.memo[k] = 1
		}
	}
	return t.memo[k] == 1
}

func pair(exp *suite.Expected, calls []suite.ToolCall) pairing {
	t := newMatchTable(exp.ToolCalls, calls)
	var actual []int
	var namesPair bool
	switch exp.Mode() {
	case suite.MatchAnyOrder:
		actual = t.anyOrder()
		namesPair = len(calls) == len(exp.ToolCalls) && !contains(actual, -1)
	case suite.MatchContains:
		// The same matching as any_order: extra calls are simply left
		// unpaired.
		actual = t.anyOrder()
		namesPair = !contains(actual, -1)
	case suite.MatchSubsequence:
		actual = t.inOrder()
		namesPair = !contains(actual, -1)
	default:
		actual, namesPair = t.positional()
		if !namesPair {
			actual = t.inOrder()
		}
	}
	p := pairing{Pairing: Pairing{Actual: actual}, namesPair: namesPair, full: make([]bool, len(actual))}
	used := make([]bool, len(calls))
	for i, j := range actual {
		if j >= 0 {
			used[j] = true
			p.full[i] = t.full(i, j)
		}
	}
	for j, u := range used {
		if !u {
			p.Unpaired = append(p.Unpaired, j)
		}
	}
	return p
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// positional pairs call i with expected call i, as exact requires; ok is
// false when the counts or a name differ.
func (t *matchTable) positional() (actual []int, ok bool) {
	if len(t.calls) != len(t.exp) {
		return nil, false
	}
	actual = make([]int, len(t.exp))
	for i := range t.exp {
		if !t.names(i, i) {
			return nil, false
		}
		actual[i] = i
	}
	return actual, true
}

// inOrder pairs expected calls with output calls of the same name keeping
// both orders, pairing as many as possible and, among those pairings, one
// that matches the most calls fully: a longest common subsequence by
// dynamic programming, in time and space proportional to the product of
// the two counts.
func (t *matchTable) inOrder() []int {
	n, m := len(t.exp), len(t.calls)
	if t.memo == nil {
		return t.greedyInOrder()
	}
	// A pair counts more than all full matches together.
	pairWeight := int32(n + 1)
	width := m + 1
	best := make([]int32, (n+1)*width) // best[i*width+j]: first i expected, first j calls
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			v := max(best[(i-1)*width+j], best[i*width+j-1])
			if t.names(i-1, j-1) {
				d := best[(i-1)*width+j-1] + pairWeight
				if t.full(i-1, j-1) {
					d++
				}
				v = max(v, d)
			}
			best[i*width+j] = v
		}
	}
	actual := make([]int, n)
	for i := range actual {
		actual[i] = -1
	}
	for i, j := n, m; i > 0 && j > 0; {
		v := best[i*width+j]
		switch {
		case v == best[(i-1)*width+j]:
			i--
		case v == best[i*width+j-1]:
			j--
		default: // only the pair itself explains v
			actual[i-1] = j - 1
			i, j = i-1, j-1
		}
	}
	return actual
}

// anyOrder pairs expected calls with output calls of the same name in any
// order: a maximum matching over the pairs that match fully (augmenting
// paths, so a pairing that greedy choice would miss is still found), then
// each expected call left over is given a free call of its name. Within
// one name every call may pair with every other, so this pairs as many
// calls by name as any pairing can. Expected calls are taken in the order
// of what they expect, not of where the case lists them, so listing them
// otherwise pairs each with the same output call.
func (t *matchTable) anyOrder() []int {
	n, m := len(t.exp), len(t.calls)
	actual := make([]int, n)
	owner := make([]int, m) // per output call, its expected call or -1
	for i := range actual {
		actual[i] = -1
	}
	for j := range owner {
		owner[j] = -1
	}
	seen := make([]bool, m)
	var augment func(i int) bool
	augment = func(i int) bool {
		for j := 0; j < m; j++ {
			if seen[j] || !t.full(i, j) {
				continue
			}
			seen[j] = true
			if owner[j] < 0 || augment(owner[j]) {
				owner[j], actual[i] = i, j
				return true
			}
		}
		return false
	}
	order := contentOrder(t.exp)
	for _, i := range order {
		clear(seen)
		augment(i)
	}
	// The rest pair by name, fewest mismatching paths first, so that the
	// detail and the page show the pairs most likely meant. Within one
	// name any maximal set of pairs is as large as can be.
	type candidate struct{ cost, rank, j, i int }
	var rest []candidate
	for rank, i := range order {
		if actual[i] >= 0 {
			continue
		}
		for j := 0; j < m; j++ {
			if owner[j] < 0 && t.names(i, j) {
				rest = append(rest, candidate{t.cost(i, j), rank, j, i})
			}
		}
	}
	slices.SortFunc(rest, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.rank, b.rank), cmp.Compare(a.j, b.j))
	})
	for _, c := range rest {
		if actual[c.i] < 0 && owner[c.j] < 0 {
			owner[c.j], actual[c.i] = c.i, c.j
		}
	}
	return actual
}

// cost is how many paths of output call j fail expected call i, or 0
// for tables too large to spend a comparison on every pair.
func (t *matchTable) cost(i, j int) int {
	if t.memo == nil {
		return 0
	}
	return len(CompareArguments(t.exp[i].Arguments, t.calls[j]))
}

// greedyInOrder is inOrder for tables too large to keep: each expected
// call takes the first fitting call after the previous one's. Taking the
// first call that matches fully finds a pairing matching every call
// whenever one exists, and taking the first of the same name finds a
// pairing by names whenever one exists; between the two, the pairing may
// match fewer calls than the best one.
func (t *matchTable) greedyInOrder() []int {
	if actual := t.firstFits(t.full); !contains(actual, -1) {
		return actual
	}
	return t.firstFits(t.names)
}

func (t *matchTable) firstFits(fits func(i, j int) bool) []int {
	actual := make([]int, len(t.exp))
	next := 0
	for i := range actual {
		actual[i] = -1
		for j := next; j < len(t.calls); j++ {
			if fits(i, j) {
				actual[i], next = j, j+1
				break
			}
		}
	}
	return actual
}

// contentOrder returns the indexes of calls sorted by name, then by what
// their arguments expect; equal calls keep their order.
func contentOrder(calls []suite.ExpectedCall) []int {
	order := make([]int, len(calls))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(calls[a].Name, calls[b].Name), compareValues(calls[a].Arguments, calls[b].Arguments))
	})
	return order
}

// compareValues orders expected values, matchers included, by their kind
// and then their contents: any fixed order will do, as long as only equal
// values tie.
func compareValues(a, b any) int {
	if c := cmp.Compare(valueRank(a), valueRank(b)); c != 0 {
		return c
	}
	switch x := a.(type) {
	case suite.Object:
		y := b.(suite.Object)
		for k := 0; k < len(x) && k < len(y); k++ {
			if c := cmp.Or(cmp.Compare(x[k].Name, y[k].Name), compareValues(x[k].Value, y[k].Value)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case []any:
		y := b.([]any)
		for k := 0; k < len(x) && k < len(y); k++ {
			if c := compareValues(x[k], y[k]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case *suite.Matcher:
		y := b.(*suite.Matcher)
		return cmp.Or(cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Text, y.Text),
			compareValues(x.Options, y.Options), compareValues(x.Value, y.Value))
	case json.Number:
		return cmp.Compare(x, b.(json.Number))
	case string:
		return cmp.Compare(x, b.(string))
	case bool:
		return boolCompare(x, b.(bool))
	}
	return 0
}

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

// valueRank orders the kinds of values compareValues meets.
func valueRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case json.Number:
		return 2
	case string:
		return 3
	case []any:
		return 4
	case suite.Object:
		return 5
	case *suite.Matcher:
		return 6
	}
	return 7
}
