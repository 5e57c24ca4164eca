// Package suite defines the release gate's inputs as plain values: the
// policy's rules, the regression cases, the outputs of one agent snapshot and
// the frozen thresholds. It reads no files; package load builds these values
// from a data folder and checks them.
package suite

import "encoding/json"

// Severity ranks how much a failing case matters.
type Severity string

// The severities a case may carry.
const (
	Critical Severity = "critical"
	Major    Severity = "major"
	Minor    Severity = "minor"
)

// severities lists every valid severity, most severe first.
var severities = []Severity{Critical, Major, Minor}

// Valid reports whether s is one of the three severities.
func (s Severity) Valid() bool {
	for _, v := range severities {
		if s == v {
			return true
		}
	}
	return false
}

// Decision is what the agent decided to do with a case. The decisions a
// suite knows are its Vocabulary, read from its case schema.
type Decision string

// ToolMatch says how an output's calls must relate to the expected ones.
type ToolMatch string

// The ways an output's calls may relate to the expected calls.
const (
	// MatchExact: as many calls as expected, call i matching expected call i.
	MatchExact ToolMatch = "exact"
	// MatchAnyOrder: as many calls as expected, paired one to one in any order.
	MatchAnyOrder ToolMatch = "any_order"
	// MatchSubsequence: the expected calls, in order, among any others.
	MatchSubsequence ToolMatch = "subsequence"
	// MatchContains: the expected calls, in any order, among any others.
	MatchContains ToolMatch = "contains"
)

// Valid reports whether m is one of the four modes.
func (m ToolMatch) Valid() bool {
	return m == MatchExact || m == MatchAnyOrder || m == MatchSubsequence || m == MatchContains
}

// AllowsOthers reports whether the output may make calls that pair with
// no expected call.
func (m ToolMatch) AllowsOthers() bool { return m == MatchSubsequence || m == MatchContains }

// Ordered reports whether the output's calls must keep the expected
// calls' order.
func (m ToolMatch) Ordered() bool { return m == MatchExact || m == MatchSubsequence }

// ExpectedCall is one call a case expects. Arguments is what
// CompileArguments returned: an Object whose members may hold *Matcher
// values, or a *Matcher standing for the whole arguments object.
type ExpectedCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
}

// ToolCall is one tool invocation the agent made, whatever its wire
// format. Arguments hold JSON values as decoded with
// json.Decoder.UseNumber, so numbers keep their literal text and compare
// exactly. Unreadable is set when the agent sent its arguments as a string
// that does not hold a JSON object; Raw is then that string and Arguments
// is nil.
type ToolCall struct {
	Name       string `json:"name"`
	Arguments  Object `json:"arguments"`
	Unreadable bool   `json:"-"`
	Raw        string `json:"-"`
}

// Expected is what a case requires of the agent.
type Expected struct {
	// Decision is "" when the case gives none: its decision is then not
	// judged.
	Decision  Decision       `json:"decision"`
	ToolCalls []ExpectedCall `json:"tool_calls"`
	// ToolMatch is how the output's calls must relate to ToolCalls; ""
	// means MatchExact.
	ToolMatch      ToolMatch `json:"tool_match,omitempty"`
	Citations      []string  `json:"citations"`
	ForbiddenTools []string  `json:"forbidden_tools"`
}

// JudgesDecision reports whether the case expects a decision, which the
// output's must then equal.
func (e *Expected) JudgesDecision() bool { return e.Decision != "" }

// Mode returns ToolMatch with the default made explicit.
func (e *Expected) Mode() ToolMatch {
	if e.ToolMatch == "" {
		return MatchExact
	}
	return e.ToolMatch
}

// Forbids reports whether the case forbids calling tool.
func (e *Expected) Forbids(tool string) bool {
	for _, f := range e.ForbiddenTools {
		if f == tool {
			return true
		}
	}
	return false
}

// Case is one regression case of the suite.
type Case struct {
	ID       string          `json:"case_id"`
	Title    string          `json:"title"`
	Severity Severity        `json:"severity"`
	Input    json.RawMessage `json:"input"` // free-form, as written
	Expected Expected        `json:"expected"`
	// Line is the case's line in its file, for messages.
	Line int `json:"-"`
	// InputPlace, when set, is where the case's line lies in its file,
	// kept instead of Input, which is then nil: pages read the input
	// from there again (Suite.Input).
	InputPlace LinePlace `json:"-"`
}

// Output is the agent's recorded answer to one case in one snapshot.
type Output struct {
	CaseID string `json:"case_id"`
	// Decision is "" when the line gives none.
	Decision  Decision   `json:"decision"`
	ToolCalls []ToolCall `json:"tool_calls"`
	Citations []string   `json:"citations"`
	// LatencyMS and CostUSD are nil when not measured (null).
	LatencyMS *Number `json:"latency_ms"`
	CostUSD   *Number `json:"cost_usd"`
	// Trial is the output's trial number, 0 when the snapshot has none.
	Trial int `json:"trial,omitempty"`
	// Line is the output's line in its snapshot file, for messages.
	Line int `json:"-"`
	// Place, when set, is where the output's line lies in its snapshot
	// file, kept instead of its calls and citations, which are then nil:
	// an output kept only for the pages that show it then holds a few
	// fields and no tree (docs/design.md, "Scale"). The evaluated
	// snapshot reads it again whole from there (evaluator.Snapshot.Whole).
	Place LinePlace `json:"-"`
}

// LinePlace is where a line lies in its file: from Offset, Size bytes
// with its line end, and the CRC-32C of the line as parsed, which shows
// whether the bytes read again are the ones read first.
type LinePlace struct {
	Offset int64
	Size   int32
	Sum    uint32
}

// Compact reports whether the output holds the place of its line instead
// of its calls and citations (see Place).
func (o *Output) Compact() bool { return o.Place.Size > 0 }

// Suite is everything a snapshot is judged against.
type Suite struct {
	Policy *Policy
	Cases  []*Case
	Gate   Gate
	// Decisions are the decisions cases and outputs may use, from
	// case.schema.json.
	Decisions Vocabulary
	// Hashes of the input files as they were read, hex SHA-256.
	CasesSHA256, PolicySHA256, GateSHA256 string
	// Inputs, when set, reads the inputs of the cases that keep their
	// place instead (Case.InputPlace) from the cases file.
	Inputs InputReader

	index map[string]int
}

// InputReader reads the input of a case kept as the place of its line.
type InputReader interface {
	// ReadInput returns the input of c as written, or an error when its
	// file no longer holds it.
	ReadInput(c *Case) (json.RawMessage, error)
	// Close lets go of the cases file.
	Close() error
}

// Input is the input of case c as written: the one kept, or the one read
// again from its place in the cases file.
func (s *Suite) Input(c *Case) (json.RawMessage, error) {
	if c.InputPlace.Size == 0 || s.Inputs == nil {
		return c.Input, nil
	}
	return s.Inputs.ReadInput(c)
}

// NewSuite indexes cases by id. The caller guarantees the ids are unique.
func NewSuite(p *Policy, cases []*Case, g Gate) *Suite {
	s := &Suite{Policy: p, Cases: cases, Gate: g, index: make(map[string]int, len(cases))}
	for i, c := range cases {
		s.index[c.ID] = i
	}
	return s
}

// PolicyVersion is the version of the current policy, "" without
// POLICY.md.
func (s *Suite) PolicyVersion() string {
	if s.Policy == nil {
		return ""
	}
	return s.Policy.Version
}

// CaseIndex returns the position of the case with the given id in the suite.
func (s *Suite) CaseIndex(id string) (int, bool) {
	i, ok := s.index[id]
	return i, ok
}
