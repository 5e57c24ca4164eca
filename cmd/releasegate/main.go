// Command releasegate turns an agent's regression suite and its recorded
// output snapshots into a release decision (PASS, REVIEW or BLOCK) and
// publishes it as a static report site.
//
// Usage:
//
//	releasegate evaluate --all [--data data] [--out public]
//	releasegate evaluate --cases F --outputs F --label L --output F [--data data]
//	releasegate build    [--data data] [--out public]
//	releasegate serve    [--data data] [--watch] [--addr 127.0.0.1:8080]
//	releasegate bundle   [--data data] [-o FILE]
//	releasegate completion bash|zsh|fish
//
// Run "releasegate help COMMAND" for a command's flags and examples.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/releasegate/releasegate/internal/suggest"
)

// Exit statuses. A single-snapshot evaluate reports its decision through
// them, so CI can gate on the status alone.
const (
	exitOK     = 0
	exitFail   = 1 // bad input or I/O failure
	exitUsage  = 2
	exitReview = 3
	exitBlock  = 4
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one subcommand: its one-line summary and the function that
// runs it with the arguments after its name. Its full help is what it
// prints for -h, built from its flags (see helpText).
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"evaluate":   {summary: "judge snapshots and decide PASS, REVIEW or BLOCK", run: runEvaluate},
		"build":      {summary: "write the report site: overview, snapshots, drilldowns, policy", run: runBuild},
		"import":     {summary: "turn an Inspect, promptfoo or batch API run into a snapshot", run: runImport},
		"init":       {summary: "start a release gate from a template: data folder, README and CI workflows", run: runInit},
		"version":    {summary: "print the version of releasegate and of Go", run: runVersion},
		"bundle":     {summary: "pack the site and its inputs into one verifiable zip", run: runBundle},
		"verify":     {summary: "check a bundle is unchanged and its decisions still hold", run: runVerify},
		"serve":      {summary: "serve the site and rebuild it as the data changes", run: runServe},
		"completion": {summary: "print a shell completion script for bash, zsh or fish", run: runCompletion},
	}
}

// run is the whole program; main only supplies the process's arguments and
// streams.
func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage(cmds))
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if c, ok := cmds[rest[0]]; ok {
				return c.run([]string{"-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "releasegate: unknown command %q%s\nRun \"releasegate help\" for the list of commands.\n", rest[0], commandHint(rest[0], cmds))
			return exitUsage
		}
		fmt.Fprint(stdout, usage(cmds))
		return exitOK
	case "--version", "-version":
		// The habit of most command-line tools; "version" is the command.
		return runVersion(rest, stdout, stderr)
	}
	c, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "releasegate: unknown command %q%s\n\n%s", name, commandHint(name, cmds), usage(cmds))
		return exitUsage
	}
	return c.run(rest, stdout, stderr)
}

// commandHint is "; did you mean \"build\"?" when name looks like a
// mistyped command, and "" otherwise. A flag given where the command
// belongs gets its own hint.
func commandHint(name string, cmds map[string]command) string {
	if strings.HasPrefix(name, "-") {
		return ": give the command first, then its flags, as in \"releasegate build --data data\""
	}
	if best, ok := suggest.Closest(name, sortedNames(cmds)); ok {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// sortedNames lists the commands in name order.
func sortedNames(cmds map[string]command) []string {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(cmds map[string]command) string {
	var b strings.Builder
	b.WriteString("releasegate turns an agent's regression suite and output snapshots into a release decision.\n\nUsage:\n\n  releasegate COMMAND [flags]\n\nCommands:\n\n")
	for _, n := range sortedNames(cmds) {
		fmt.Fprintf(&b, "  %-10s %s\n", n, cmds[n].summary)
	}
	b.WriteString("\nRun \"releasegate help COMMAND\" for a command's flags and examples,\n\"releasegate --version\" for the version.\n")
	return b.String()
}

// dataUsage describes the --data flag every command that reads a data
// folder has.
const dataUsage = "read the inputs from the data folder `DIR`"

// newFlags returns a flag set that reports problems instead of exiting;
// parseFlags words them and prints the command's help on -h.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args and returns the exit status to stop with, or -1
// to go on.
func parseFlags(fs *flag.FlagSet, help string, args []string, stdout, stderr io.Writer) int {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText(fs, help))
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "releasegate %s: %v%s\nRun \"releasegate help %s\" for usage.\n", fs.Name(), err, flagHint(fs, err), fs.Name())
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "releasegate %s: unexpected argument %q\nRun \"releasegate help %s\" for usage.\n", fs.Name(), fs.Arg(0), fs.Name())
		return exitUsage
	}
	return -1
}

// flagHint is "; did you mean --data?" when err reports an unknown flag
// that looks like a mistyped one of fs, and "" otherwise.
func flagHint(fs *flag.FlagSet, err error) string {
	typed, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	typed = strings.TrimLeft(typed, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	best, ok := suggest.Closest(typed, names)
	if !ok {
		return ""
	}
	return "; did you mean " + flagName(best) + "?"
}

// flagName is how help writes a flag: "-o" for one letter, "--data" for
// longer names.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// helpText is a command's full help: help, which holds everything but
// the flags, with a "Flags:" section put in before its "Examples:". The
// section is built from the flags' own usage strings, so the help cannot
// list a flag the command lacks or miss one it has.
func helpText(fs *flag.FlagSet, help string) string {
	flags := flagList(fs)
	if flags == "" {
		return help
	}
	text, examples, ok := strings.Cut(help, "\nExamples:\n")
	if !ok {
		return help + "\nFlags:\n" + flags
	}
	return text + "\nFlags:\n" + flags + "\nExamples:\n" + examples
}

// helpWidth is the width help text is wrapped to.
const helpWidth = 80

// flagList lists fs's flags in name order, one a line with its usage
// beside it, wrapped to helpWidth: "  --data DIR  read the inputs from
// ...". As with flag.PrintDefaults, a back-quoted word in the usage names
// the flag's value, and a default other than the zero value is shown.
func flagList(fs *flag.FlagSet) string {
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := flagName(f.Name)
		if value != "" {
			name += " " + value
		}
		if f.DefValue != "" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		rows = append(rows, row{name, usage})
		width = max(width, len(name))
	})
	var b strings.Builder
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		line := fmt.Sprintf("  %-*s  ", width, r.name)
		for i, word := range strings.Fields(r.usage) {
			if i > 0 && len(line)+1+len(word) > helpWidth {
				b.WriteString(line + "\n")
				line = indent + word
				continue
			}
			if i > 0 {
				line += " "
			}
			line += word
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// usageError reports bad usage of a command.
func usageError(stderr io.Writer, name, format string, args ...any) int {
	fmt.Fprintf(stderr, "releasegate %s: %s\nRun \"releasegate help %s\" for usage.\n", name, fmt.Sprintf(format, args...), name)
	return exitUsage
}

// failure reports bad input or an I/O error.
func failure(stderr io.Writer, err error) int {
	if errors.Is(err, context.Canceled) {
		err = errors.New("interrupted; nothing was changed")
	}
	fmt.Fprintf(stderr, "releasegate: %v\n", err)
	return exitFail
}
