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
//
// Run "releasegate help COMMAND" for a command's flags and examples.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
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

// command is one subcommand: its one-line summary, its full help, and the
// function that runs it with the arguments after its name.
type command struct {
	summary string
	help    string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"evaluate": {summary: "judge snapshots and decide PASS, REVIEW or BLOCK", help: evaluateHelp, run: runEvaluate},
		"build":    {summary: "write the report site: overview, snapshots, drilldowns, policy", help: buildHelp, run: runBuild},
		"init":     {summary: "start a new project: sample data, README and CI workflows", help: initHelp, run: runInit},
		"version":  {summary: "print the version of releasegate and of Go", help: versionHelp, run: runVersion},
		"bundle":   {summary: "pack the site and its inputs into one verifiable zip", help: bundleHelp, run: runBundle},
		"verify":   {summary: "check a bundle is unchanged and its decisions still hold", help: verifyHelp, run: runVerify},
		"serve":    {summary: "serve the site and rebuild it as the data changes", help: serveHelp, run: runServe},
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
				fmt.Fprint(stdout, c.help)
				return exitOK
			}
			fmt.Fprintf(stderr, "releasegate: unknown command %q\n", rest[0])
			return exitUsage
		}
		fmt.Fprint(stdout, usage(cmds))
		return exitOK
	}
	c, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "releasegate: unknown command %q\n\n%s", name, usage(cmds))
		return exitUsage
	}
	return c.run(rest, stdout, stderr)
}

func usage(cmds map[string]command) string {
	var b strings.Builder
	b.WriteString("releasegate turns an agent's regression suite and output snapshots into a release decision.\n\nUsage:\n\n  releasegate COMMAND [flags]\n\nCommands:\n\n")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", n, cmds[n].summary)
	}
	b.WriteString("\nRun \"releasegate help COMMAND\" for a command's flags and examples.\n")
	return b.String()
}

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
		fmt.Fprint(stdout, help)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "releasegate %s: %v\nRun \"releasegate help %s\" for usage.\n", fs.Name(), err, fs.Name())
		return exitUsage
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "releasegate %s: unexpected argument %q\nRun \"releasegate help %s\" for usage.\n", fs.Name(), fs.Arg(0), fs.Name())
		return exitUsage
	}
	return -1
}

// usageError reports bad usage of a command.
func usageError(stderr io.Writer, name, format string, args ...any) int {
	fmt.Fprintf(stderr, "releasegate %s: %s\nRun \"releasegate help %s\" for usage.\n", name, fmt.Sprintf(format, args...), name)
	return exitUsage
}

// failure reports bad input or an I/O error.
func failure(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "releasegate: %v\n", err)
	return exitFail
}
