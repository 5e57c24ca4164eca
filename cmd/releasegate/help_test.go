package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The command reference, docs/commands.md, holds between these markers: per
// command a "### `releasegate NAME`" heading, its summary, a fenced block
// holding exactly the "Usage:" lines of its help, and its flags.
const (
	referenceBegin = "<!-- commands:begin -->"
	referenceEnd   = "<!-- commands:end -->"
	referencePath  = "../../docs/commands.md"
)

// flagMention finds flags in free text: "--data", "-o", but not the dash
// inside "non-zero".
var flagMention = regexp.MustCompile("(?:^|[\\s\\[(`,|])(--?[a-zA-Z][a-zA-Z0-9-]*)")

// usageLines returns the lines of a help text's "Usage:" section, without
// their indentation.
func usageLines(help string) []string {
	var lines []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.TrimSpace(line) == "Usage:":
			in = true
		case in && strings.TrimSpace(line) == "" && len(lines) > 0:
			return lines
		case in && strings.TrimSpace(line) != "":
			lines = append(lines, strings.TrimSpace(line))
		}
	}
	return lines
}

// helpFlags returns the flags that a help text's "Flags:" section lists,
// read as completion reads them.
func helpFlags(help string) []string {
	var flags []string
	for _, f := range parseFlagSection(help) {
		flags = append(flags, f.name)
	}
	return flags
}

// mentionedFlags returns every distinct flag written in text, in order.
func mentionedFlags(text string) []string {
	var flags []string
	for _, m := range flagMention.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(flags, m[1]) {
			flags = append(flags, m[1])
		}
	}
	return flags
}

// flagDefined asks the command itself whether it has the flag: it is run
// with the flag and then -h, so it stops at parsing either way and never
// does its work. An unknown flag is the one answer that names it so.
func flagDefined(name, flag string) bool {
	var stdout, stderr strings.Builder
	run([]string{name, flag + "=1", "-h"}, &stdout, &stderr)
	return !strings.Contains(stderr.String(), "flag provided but not defined")
}

// helpOf is the full help of a command, as "releasegate NAME -h" prints it.
func helpOf(name string) string {
	var stdout, stderr strings.Builder
	run([]string{name, "-h"}, &stdout, &stderr)
	return stdout.String()
}

func sortedCommands() []string {
	var names []string
	for name := range commands() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// commandReference is the docs/commands.md section the help texts call for.
func commandReference() string {
	var b strings.Builder
	b.WriteString(referenceBegin + "\n")
	b.WriteString("Every command prints its full help, with examples, on `releasegate help COMMAND` or `releasegate COMMAND --help`.\n")
	cmds := commands()
	for _, name := range sortedCommands() {
		c, help := cmds[name], helpOf(name)
		fmt.Fprintf(&b, "\n### `releasegate %s`\n\n%s%s.\n\n```\n%s\n```\n", name, strings.ToUpper(c.summary[:1]), c.summary[1:], strings.Join(usageLines(help), "\n"))
		if flags := helpFlags(help); len(flags) > 0 {
			fmt.Fprintf(&b, "\nFlags: `%s`.\n", strings.Join(flags, "`, `"))
		}
	}
	b.WriteString(referenceEnd + "\n")
	return b.String()
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands() {
		help := helpOf(name)
		if usage := usageLines(help); len(usage) == 0 || !strings.HasPrefix(usage[0], "releasegate "+name) {
			t.Errorf("%s: help has no Usage: section starting with \"releasegate %s\"", name, name)
		}
		if !strings.Contains(help, "\nExamples:\n") {
			t.Errorf("%s: help has no examples", name)
		}
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
			code, stdout, stderr := runCmd(t, args...)
			if code != exitOK || stdout != help || stderr != "" {
				t.Errorf("%v: exit %d, stderr %q; want the help on stdout", args, code, stderr)
			}
		}
	}
	code, stdout, _ := runCmd(t, "help")
	for _, name := range sortedCommands() {
		if code != exitOK || !strings.Contains(stdout, "\n  "+name+" ") {
			t.Errorf("releasegate help does not list %s", name)
		}
	}
}

func TestHelpFlagsExist(t *testing.T) {
	for name := range commands() {
		help := helpOf(name)
		flags := append(helpFlags(help), mentionedFlags(strings.Join(usageLines(help), "\n"))...)
		for _, f := range flags {
			if !flagDefined(name, f) {
				t.Errorf("%s: help mentions %s, which the command does not define", name, f)
			}
		}
		if flagDefined(name, "--no-such-flag") {
			t.Errorf("%s: the flag probe cannot tell a missing flag", name)
		}
	}
}

func TestCommandReference(t *testing.T) {
	readme, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v; docs/commands.md must hold the command reference:\n\n%s", err, commandReference())
	}
	if problems := referenceProblems(string(readme)); len(problems) > 0 {
		t.Errorf("docs/commands.md is out of step with the help texts:\n  %s\n\nThe section the help texts call for:\n\n%s",
			strings.Join(problems, "\n  "), commandReference())
	}
}

// referenceProblems compares the command reference in docs/commands.md with the
// commands: every command documented once, its block equal to the Usage
// lines of its help, every flag it mentions defined, every flag of its
// help mentioned.
func referenceProblems(readme string) []string {
	var problems []string
	report := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	section, ok := between(readme, referenceBegin, referenceEnd)
	if !ok {
		return []string{"no " + referenceBegin + " ... " + referenceEnd + " section"}
	}
	cmds := commands()
	documented := map[string]bool{}
	parts := strings.Split("\n"+section, "\n### ")
	for _, f := range mentionedFlags(parts[0]) {
		if f != "-h" && f != "--help" { // every command has these
			report("the introduction mentions %s; flags belong under their command", f)
		}
	}
	for _, part := range parts[1:] {
		heading, _, _ := strings.Cut(part, "\n")
		blocks := fencedBlocks(part)
		if len(blocks) != 1 {
			report("section %q holds %d fenced blocks, want 1", heading, len(blocks))
			continue
		}
		fields := strings.Fields(blocks[0])
		if len(fields) < 2 || fields[0] != "releasegate" {
			report("section %q: the block does not start with a releasegate command", heading)
			continue
		}
		name := fields[1]
		if _, ok := cmds[name]; !ok {
			report("it documents %q, which is not a command", name)
			continue
		}
		if documented[name] {
			report("it documents %s twice", name)
		}
		documented[name] = true
		help := helpOf(name)
		if want := strings.Join(usageLines(help), "\n"); blocks[0] != want {
			report("usage of %s is\n%s\nbut the help says\n%s", name, blocks[0], want)
		}
		mentioned := mentionedFlags(part)
		for _, f := range mentioned {
			if !flagDefined(name, f) {
				report("it mentions %s under %s, which does not define it", f, name)
			}
		}
		for _, f := range helpFlags(help) {
			if !slices.Contains(mentioned, f) {
				report("it does not mention %s of %s", f, name)
			}
		}
	}
	for _, name := range sortedCommands() {
		if !documented[name] {
			report("it does not document %s", name)
		}
	}
	return problems
}

func TestReferenceCheckCanFail(t *testing.T) {
	good := "# Title\n\n" + commandReference() + "\nmore text\n"
	if problems := referenceProblems(good); len(problems) > 0 {
		t.Fatalf("the generated reference does not pass its own check:\n%s", strings.Join(problems, "\n"))
	}
	replace := func(old, new string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, new, 1) }
	}
	tests := []struct {
		name   string
		mutate func(string) string
		want   string
	}{
		{"no markers", replace(referenceBegin, ""), "no <!-- commands:begin -->"},
		{"usage drifted", replace("releasegate init [--template NAME] DIR\n", "releasegate init [--template NAME] [DIR]\n"), "usage of init"},
		{"unknown flag", replace("\n### `releasegate version`", "\nUse `--bogus` too.\n\n### `releasegate version`"), "mentions --bogus"},
		{"flag not mentioned", func(s string) string {
			return strings.ReplaceAll(strings.Replace(s, "`--junit`, ", "", 1), " [--junit F]", "")
		}, "does not mention --junit"},
		{"command missing", replace("releasegate version\n```", "releasegate versions\n```"), "does not document version"},
		{"flag in the introduction", replace(referenceBegin+"\n", referenceBegin+"\nTry --all.\n"), "introduction mentions --all"},
	}
	for _, tt := range tests {
		bad := tt.mutate(good)
		if bad == good {
			t.Fatalf("%s: the mutation did not apply", tt.name)
		}
		problems := strings.Join(referenceProblems(bad), "\n")
		if !strings.Contains(problems, tt.want) {
			t.Errorf("%s: problems %q, want one saying %q", tt.name, problems, tt.want)
		}
	}
}

// between returns the text between the markers begin and end.
func between(s, begin, end string) (string, bool) {
	_, after, ok := strings.Cut(s, begin)
	if !ok {
		return "", false
	}
	inside, _, ok := strings.Cut(after, end)
	return inside, ok
}

// fencedBlocks returns the contents of the ``` blocks in Markdown text,
// without a trailing line break.
func fencedBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(line, "```"):
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

func TestReferenceHelpers(t *testing.T) {
	help := "Usage:\n\n  releasegate x --a [-o F]\n  releasegate x --b\n\nText about non-zero --c.\n\nFlags:\n  --a     the a\n          more about a\n  -o F    the o\n\nExamples:\n\n  releasegate x --a\n"
	if got := usageLines(help); !slices.Equal(got, []string{"releasegate x --a [-o F]", "releasegate x --b"}) {
		t.Errorf("usageLines = %q", got)
	}
	if got := helpFlags(help); !slices.Equal(got, []string{"--a", "-o"}) {
		t.Errorf("helpFlags = %q", got)
	}
	if got := mentionedFlags("use --data DIR or `-o FILE`, not non-zero, [--all] --data"); !slices.Equal(got, []string{"--data", "-o", "--all"}) {
		t.Errorf("mentionedFlags = %q", got)
	}
	if got := fencedBlocks("x\n```\na\nb\n```\ny\n```text\nc\n```\n"); !slices.Equal(got, []string{"a\nb", "c"}) {
		t.Errorf("fencedBlocks = %q", got)
	}
}

// workflowCall finds releasegate invocations in a workflow's scripts,
// after backslash continuations are joined: the command and its arguments.
var workflowCall = regexp.MustCompile(`releasegate"?[ \t]+([a-z]+)([^\n|;&]*)`)

// TestWorkflowsUseRealCommands keeps the workflows, this repository's and
// the starter's, in step with the commands and flags they call.
func TestWorkflowsUseRealCommands(t *testing.T) {
	files, _ := filepath.Glob("../../.github/workflows/*.yml")
	starterFiles, _ := filepath.Glob("starter/.github/workflows/*.yml")
	files = append(files, starterFiles...)
	files = append(files, "../../action.yml")
	if len(files) < 4 {
		t.Fatalf("found %d workflow files, want this repository's two and the starter's two", len(files))
	}
	cmds := commands()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var code []string // the workflow without its comment lines
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "#") {
				code = append(code, line)
			}
		}
		script := strings.ReplaceAll(strings.Join(code, "\n"), "\\\n", " ")
		calls := workflowCall.FindAllStringSubmatch(script, -1)
		if len(calls) == 0 && !strings.Contains(script, "uses: releasegate/releasegate@") {
			t.Errorf("%s runs no releasegate command", f)
		}
		for _, call := range calls {
			name := call[1]
			if _, ok := cmds[name]; !ok {
				t.Errorf("%s runs releasegate %s, which is not a command", f, name)
				continue
			}
			for _, flag := range mentionedFlags(call[2]) {
				if !flagDefined(name, flag) {
					t.Errorf("%s runs releasegate %s %s, which it does not define", f, name, flag)
				}
			}
		}
	}
}
