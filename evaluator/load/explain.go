package load

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/suggest"
)

// This file words problems so that they teach: where the problem is, what
// is wrong, and how to fix it, recognising the mistakes people make most
// when writing JSON Lines by hand (docs/errors.md lists every message).

// syntaxError is a line that is not valid JSON: the column of the first
// byte that cannot be read, and the decoder's own account of it.
type syntaxError struct {
	col    int
	detail string
	early  bool // the line ends before the value does
}

func (e *syntaxError) Error() string {
	if e.early {
		return fmt.Sprintf("invalid JSON: the value ends early (at column %d)", e.col)
	}
	return fmt.Sprintf("invalid JSON at column %d: %s", e.col, e.detail)
}

// lineError is the InputError for a JSON line that cannot be read: a
// syntax error gets its column and, for a common mistake, the mistake
// named with its fix.
func lineError(file string, line int, text []byte, err error) *suite.InputError {
	syn, ok := err.(*syntaxError)
	if !ok {
		return &suite.InputError{File: file, Line: line, Msg: err.Error()}
	}
	e := &suite.InputError{File: file, Line: line, Col: syn.col}
	if what, fix, col, ok := jsonMistake(text, syn.col-1, line, syn.early); ok {
		e.Col, e.Msg, e.Fix = col+1, "invalid JSON: "+what, fix
		return e
	}
	if syn.early {
		e.Msg = "invalid JSON: the line ends before the value does"
		e.Fix = "close every { and [ and every string on the same line; one JSON object per line"
		return e
	}
	e.Msg = "invalid JSON: " + syn.detail
	switch {
	case strings.Contains(syn.detail, "duplicate object member name"):
		e.Msg = "invalid JSON: a name given twice in one object"
		e.Fix = "keep one of the two members"
	case strings.Contains(syn.detail, "after object name"):
		e.Msg = "invalid JSON: a colon is missing after the name"
		e.Fix = `write "name": value`
	case strings.Contains(syn.detail, "after object value"), strings.Contains(syn.detail, "after array element"):
		e.Msg = "invalid JSON: a comma is missing before this"
		e.Fix = "separate members and items with commas"
	case strings.Contains(syn.detail, "invalid UTF-8"):
		e.Fix = "save the file as UTF-8"
	case strings.Contains(syn.detail, "after the value") || strings.Contains(syn.detail, "after top-level value"):
		e.Msg = "invalid JSON: more text after the object ends"
		e.Fix = "put each object on a line of its own, and check the braces balance"
	default:
		e.Fix = "check the text at that column; one JSON object per line, names and strings in double quotes"
	}
	return e
}

// jsonMistake recognises a common mistake from the line and the byte
// offset where reading stopped: what is wrong, how to fix it, and the
// offset to point at (which may be earlier, at the mistake itself).
func jsonMistake(text []byte, off, line int, early bool) (what, fix string, at int, ok bool) {
	return mistake(text, off, line, early, true)
}

// mistake is jsonMistake for a line of JSON Lines (jsonl) or of a JSON
// document, where a pretty-printed object is no mistake.
func mistake(text []byte, off, line int, early, jsonl bool) (what, fix string, at int, ok bool) {
	off = min(max(off, 0), len(text))
	l := &mistakeLine{text: text, rest: text[off:], trimmed: bytes.TrimSpace(text), off: off, line: line, early: early, jsonl: jsonl}
	for _, r := range mistakeRules {
		if r.applies(l) {
			return r.explain(l)
		}
	}
	return "", "", 0, false
}

// mistakeLine is the line mistake looks at: the text, the text from where
// reading stopped (rest, at off), and the text without surrounding blanks.
type mistakeLine struct {
	text, rest, trimmed []byte
	off, line           int
	early, jsonl        bool
}

// startsWith reports whether the text from where reading stopped begins with
// one of prefixes.
func (l *mistakeLine) startsWith(prefixes ...string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(l.rest, []byte(p)) {
			return true
		}
	}
	return false
}

// mistakeRule is one common mistake: applies tells the line that looks like
// it, and explain words it. Only the first rule that applies is asked to
// explain; when on a closer look it is not the mistake, no later rule is
// tried, so the order of mistakeRules matters.
type mistakeRule struct {
	applies func(*mistakeLine) bool
	explain func(*mistakeLine) (what, fix string, at int, ok bool)
}

// mistakeRules are the common mistakes in the order they are checked.
var mistakeRules = []mistakeRule{
	{isJSONArrayFile, said("the file is a JSON array, but releasegate reads JSON Lines",
		"write one object per line, with no [ ] around them and no commas between lines (jq -c '.[]' FILE converts it)", false)},
	{isPrettyPrinted, said("this line is part of an object written over several lines (pretty-printed), but each line must hold a whole object",
		"put each object on one line (jq -c . FILE converts a pretty-printed file)", false)},
	{startsWithBOM, said("a byte-order mark in the middle of the file (were files joined together?)",
		"delete the invisible character at this column, or save the file as UTF-8 without BOM", true)},
	{startsWithComment, said("JSON has no comments", "delete the comment; keep notes in a member of their own, such as \"note\"", true)},
	{startsWithSingleQuote, said("a string in single quotes", "use double quotes: \"like this\"", true)},
	{startsWithComma, explainComma},
	{startsWithClosing, explainClosing},
	{startsWithBareWord, explainBareWord},
	{endsWithCommaEarly, explainEndingComma},
}

// endingCommaFix is the fix for lines of JSON Lines joined by commas.
const endingCommaFix = "delete the comma at the end of the line; lines of JSON Lines are not separated by commas"

// said explains a mistake whose words do not depend on the line, pointing
// at where reading stopped (atOff) or at the start of the line.
func said(what, fix string, atOff bool) func(*mistakeLine) (string, string, int, bool) {
	return func(l *mistakeLine) (string, string, int, bool) {
		if atOff {
			return what, fix, l.off, true
		}
		return what, fix, 0, true
	}
}

// isJSONArrayFile reports a JSON array of objects where JSON Lines are
// read, on one line or pretty-printed: only the first line can tell.
func isJSONArrayFile(l *mistakeLine) bool {
	return l.jsonl && l.line == 1 && bytes.HasPrefix(l.trimmed, []byte("["))
}

// isPrettyPrinted reports a line of JSON Lines that is a piece of an
// object written over several lines.
func isPrettyPrinted(l *mistakeLine) bool {
	return l.jsonl && multiLine(l.trimmed, l.early)
}

// startsWithBOM reports a byte-order mark where reading stopped: only the
// first line may start with one.
func startsWithBOM(l *mistakeLine) bool { return bytes.HasPrefix(l.rest, bom) }

// startsWithComment reports a comment in the style of JavaScript, C or the
// shell where reading stopped.
func startsWithComment(l *mistakeLine) bool { return l.startsWith("//", "/*", "#") }

// startsWithSingleQuote reports a string in single quotes where reading
// stopped.
func startsWithSingleQuote(l *mistakeLine) bool { return l.startsWith("'") }

// startsWithComma reports a comma where reading stopped.
func startsWithComma(l *mistakeLine) bool { return l.startsWith(",") }

// startsWithClosing reports a closing brace or bracket where reading
// stopped.
func startsWithClosing(l *mistakeLine) bool { return l.startsWith("}", "]") }

// startsWithBareWord reports a letter, digit, _ or - where reading stopped:
// a name or word written without quotes.
func startsWithBareWord(l *mistakeLine) bool { return len(l.rest) > 0 && isNameByte(l.rest[0]) }

// explainComma words a comma where reading stopped: doubled, at the end of
// the line, or before a closing bracket. Any other comma is not named.
func explainComma(l *mistakeLine) (what, fix string, at int, ok bool) {
	after := bytes.TrimLeft(l.rest[1:], " \t\r\n")
	before := lastNonSpace(l.text[:l.off])
	switch {
	case before >= 0 && l.text[before] == ',':
		return "two commas in a row", "delete one of them", l.off, true
	case len(after) == 0:
		return "the line ends with a comma", endingCommaFix, l.off, true
	case after[0] == '}' || after[0] == ']':
		return fmt.Sprintf("a comma before the closing %q", after[0]), "delete the comma after the last item", l.off, true
	case after[0] == ',':
		return "two commas in a row", "delete one of them", l.off, true
	}
	return "", "", 0, false
}

// explainClosing words a closing brace or bracket that follows a comma,
// pointing at the comma.
func explainClosing(l *mistakeLine) (what, fix string, at int, ok bool) {
	if c := lastNonSpace(l.text[:l.off]); c >= 0 && l.text[c] == ',' {
		return fmt.Sprintf("a comma before the closing %q", l.rest[0]), "delete the comma after the last item", c, true
	}
	return "", "", 0, false
}

// explainBareWord words a word without quotes: a member name, or a value
// from another language (Python's True, JavaScript's undefined).
func explainBareWord(l *mistakeLine) (what, fix string, at int, ok bool) {
	// The decoder stops inside a bare word (at the i of title, read
	// as a misspelt true): go back to its start.
	off := l.off
	for off > 0 && isNameByte(l.text[off-1]) {
		off--
	}
	rest := l.text[off:]
	if c := lastNonSpace(l.text[:off]); c >= 0 && (l.text[c] == '{' || l.text[c] == ',') {
		name := rest
		if end := bytes.IndexAny(name, ": \t"); end >= 0 {
			name = name[:end]
		}
		return fmt.Sprintf("the name %s is not in double quotes", name), fmt.Sprintf("write \"%s\"", name), off, true
	}
	if word := leadingWord(rest); foreignValues[word] {
		return fmt.Sprintf("%s is not a JSON value", word), "use true, false, null or a number", off, true
	}
	return "", "", 0, false
}

// foreignValues are words for values in other languages that people write
// in JSON by habit.
var foreignValues = map[string]bool{"True": true, "False": true, "None": true, "NaN": true, "undefined": true}

// endsWithCommaEarly reports a line of JSON Lines cut short by a comma at
// its end: lines joined as if they were items of a list.
func endsWithCommaEarly(l *mistakeLine) bool {
	return l.jsonl && l.early && len(l.trimmed) > 0 && l.trimmed[len(l.trimmed)-1] == ','
}

// explainEndingComma points at the comma that ends the line.
func explainEndingComma(l *mistakeLine) (what, fix string, at int, ok bool) {
	return "the line ends with a comma", endingCommaFix, len(bytes.TrimRight(l.text, " \t")) - 1, true
}

// multiLine reports a line that is a piece of an object written over
// several lines: a lone brace or bracket, the opening line of an object
// continued below, or one member.
func multiLine(trimmed []byte, early bool) bool {
	switch string(trimmed) {
	case "{", "[", "}", "},", "]", "],":
		return true
	}
	if early && bytes.HasPrefix(trimmed, []byte("{")) && bytes.ContainsAny(trimmed[len(trimmed)-1:], ",{[") {
		return true
	}
	return looksLikeMemberLine(trimmed)
}

// looksLikeMemberLine reports a line that is one member of an object
// written over several lines: `"case_id": "x",` or `"input": {`.
func looksLikeMemberLine(line []byte) bool {
	if len(line) == 0 || line[0] != '"' {
		return false
	}
	end := bytes.IndexByte(line[1:], '"')
	if end < 0 {
		return false
	}
	after := bytes.TrimSpace(line[end+2:])
	return bytes.HasPrefix(after, []byte(":")) && !bytes.HasPrefix(line, []byte("{"))
}

// lastNonSpace is the offset of the last byte of b that is not blank, or -1.
func lastNonSpace(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return i
	}
	return -1
}

// isNameByte reports a byte that may be part of a bare name.
func isNameByte(c byte) bool {
	return c < utf8.RuneSelf && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))) || c == '_' || c == '-'
}

// leadingWord is the run of letters at the start of b.
func leadingWord(b []byte) string {
	i := 0
	for i < len(b) && (b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z') {
		i++
	}
	return string(b[:i])
}

// documentSyntaxError is the InputError for a JSON document (gate.json,
// a meta.json) that cannot be read: the line and column of the byte at
// off, and the mistake named when it is a common one.
func documentSyntaxError(file string, data []byte, off int, early bool, detail string) *suite.InputError {
	off = min(max(off, 0), len(data))
	lineStart := bytes.LastIndexByte(data[:off], '\n') + 1
	lineEnd := bytes.IndexByte(data[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(data) - off
	}
	text := data[lineStart : off+lineEnd]
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	e := &suite.InputError{File: file, Line: line, Col: off - lineStart + 1}
	if what, fix, at, ok := mistake(text, off-lineStart, line, early, false); ok {
		e.Col, e.Msg, e.Fix = at+1, "invalid JSON: "+what, fix
		return e
	}
	if early {
		e.Msg, e.Fix = "invalid JSON: the file ends before the object does", "close every { [ and string that is opened"
		return e
	}
	e.Msg, e.Fix = "invalid JSON: "+detail, "check the text at that column: names and strings in double quotes, no comma after the last member"
	return e
}

// unknownName words a member name that is not one of known: the name
// meant when it looks like a slip of one, and the names there are.
func unknownName(what, name string, known []string) (msg, fix string) {
	list := joinWords(known, "or")
	if best, ok := suggest.Closest(name, known); ok {
		return fmt.Sprintf("unknown %s; did you mean %q?", what, best), "rename it, or use one of " + list
	}
	return "unknown " + what, "use " + list
}

// missingField words a required member that a line lacks: when the line
// has a member whose name looks like a slip of it ("toolcalls",
// "latency"), that member is named as the likely cause.
func missingField(name string, others []string) string {
	for _, o := range others {
		if best, ok := suggest.Closest(o, []string{name}); ok && best == name {
			return fmt.Sprintf("missing required field; the line has %q — did you mean %q?", o, name)
		}
	}
	return "missing required field — add \"" + name + "\" to the line"
}

// What each required input of a data folder is, for the message when it
// is missing.
var missingFix = map[string]string{
	SchemaFile: "add case.schema.json, the JSON Schema every line of cases.jsonl must satisfy (releasegate init writes one to start from)",
	GateFile:   `add gate.json with the thresholds, such as {"min_pass_rate": 0.9, "max_critical_failures": 0, "max_p95_latency_ms": 2500, "max_avg_cost_usd": 0.02}`,
	OutputsDir: "add the folder outputs/ with one <label>.jsonl per snapshot of the agent's answers",
	CasesFile:  "add cases.jsonl, the suite: one case per line",
}

// missingFile words err, from reading the required input at path, when
// the input is not there; any other error is returned as it is.
func missingFile(err error, path string) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return &suite.InputError{File: path, Msg: "missing", Fix: missingFix[filepath.Base(path)]}
}

// DataFolderProblem is the error for dir given as the data folder when
// it is not one (see folderProblem), nil when it is.
func DataFolderProblem(dir string) error {
	if e := folderProblem(dir, true); e != nil {
		return e
	}
	return nil
}

// folderProblem says what is wrong when dir, given as the data folder,
// is not one: it is missing, a file, or a folder without the inputs, such
// as the project folder above the data folder or the outputs/ folder
// inside it. It names what it expected and what it found, and the --data
// to use when it can tell. nil when dir has what a data folder needs
// (cases.jsonl only when needCases).
func folderProblem(dir string, needCases bool) *suite.InputError {
	const want = "a data folder holds cases.jsonl, case.schema.json, gate.json and outputs/"
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		e := &suite.InputError{File: dir, Msg: "no such folder", Fix: "run from the folder that holds " + dir + "/, or give the data folder with --data DIR"}
		if isDataFolder(".") {
			e.Msg = "no such folder, but the current folder is a data folder"
			e.Fix = "run with --data . (or from the folder above it)"
		} else if found := findDataFolder("."); found != "" {
			e.Fix = "give the data folder with --data " + found + "; " + want
		}
		return e
	case !info.IsDir():
		e := &suite.InputError{File: dir, Msg: "is a file, not a folder", Fix: "give --data the folder; " + want}
		if parent := filepath.Dir(dir); isDataFolder(parent) {
			e.Fix = "give --data the folder that holds it: --data " + parent
		}
		return e
	case isDataFolder(dir) || (!needCases && (hasAll(dir, SchemaFile) || hasAll(dir, GateFile))):
		return nil
	}
	e := &suite.InputError{File: dir, Msg: "not a data folder: " + foundText(dir), Fix: want}
	switch parent := filepath.Dir(filepath.Clean(dir)); {
	case isDataFolder(filepath.Join(dir, "data")):
		e.Msg = "this is the project folder, not the data folder inside it"
		e.Fix = "use --data " + filepath.Join(dir, "data")
	case filepath.Base(filepath.Clean(dir)) == OutputsDir && isDataFolder(parent):
		e.Msg = "this is the snapshots folder (outputs/), not the data folder that holds it"
		e.Fix = "use --data " + parent
	case isDataFolder(parent):
		e.Msg = "this is a folder inside the data folder, not the data folder"
		e.Fix = "use --data " + parent
	default:
		if found := findDataFolder(dir); found != "" {
			e.Fix = "use --data " + found + "; " + want
		}
	}
	return e
}

// isDataFolder reports whether dir holds cases.jsonl, which makes it a
// data folder (any other input it lacks is named as missing).
func isDataFolder(dir string) bool { return hasAll(dir, CasesFile) }

// hasAll reports whether dir holds every one of names.
func hasAll(dir string, names ...string) bool {
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// findDataFolder looks one and two levels below dir for a data folder,
// as the folder above a project or a project is likely to hold one; ""
// when there is none. Only the first entries are looked at.
func findDataFolder(dir string) string {
	const maxEntries = 64
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for i, e := range entries {
		if i == maxEntries {
			break
		}
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		if isDataFolder(sub) {
			return sub
		}
		if isDataFolder(filepath.Join(sub, "data")) {
			return filepath.Join(sub, "data")
		}
	}
	return ""
}

// foundText lists what dir holds, shortly: "it holds README.md, src/ and
// 3 more" or "it is empty".
func foundText(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return "it is empty"
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	if len(names) > 4 {
		return fmt.Sprintf("it holds %s and %d more", strings.Join(names[:4], ", "), len(names)-4)
	}
	return "it holds " + strings.Join(names, ", ")
}
