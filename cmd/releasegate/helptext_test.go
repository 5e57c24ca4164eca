package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/releasegate/releasegate/internal/goldentest"
)

// TestHelpGolden pins the command list and every command's help to
// testdata/help; run go test -update after an intended change and read
// the diff.
func TestHelpGolden(t *testing.T) {
	code, overview, _ := runCmd(t, "help")
	if code != exitOK {
		t.Fatalf("releasegate help: exit %d", code)
	}
	goldentest.Check(t, filepath.Join("testdata", "help", "releasegate.txt"), []byte(overview))
	for _, name := range sortedCommands() {
		t.Run(name, func(t *testing.T) {
			goldentest.Check(t, filepath.Join("testdata", "help", name+".txt"), []byte(helpOf(name)))
		})
	}
}

func TestFlagList(t *testing.T) {
	fs := newFlags("x")
	fs.Bool("quiet", false, "say nothing")
	fs.String("data", "data", "read the inputs from `DIR`")
	fs.String("o", "", "write to `FILE`; this usage goes on long enough that it has to wrap onto a second line")
	want := "" +
		"  --data DIR  read the inputs from DIR (default \"data\")\n" +
		"  -o FILE     write to FILE; this usage goes on long enough that it has to wrap\n" +
		"              onto a second line\n" +
		"  --quiet     say nothing\n"
	if got := flagList(fs); got != want {
		t.Errorf("flagList =\n%s\nwant\n%s", got, want)
	}
	help := "Usage:\n\n  x\n\nExamples:\n\n  x --quiet\n"
	if got, want := helpText(fs, help), "Usage:\n\n  x\n\nFlags:\n"+want+"\nExamples:\n\n  x --quiet\n"; got != want {
		t.Errorf("helpText =\n%s\nwant\n%s", got, want)
	}
	if got := helpText(newFlags("y"), help); got != help {
		t.Errorf("helpText without flags =\n%s\nwant the text as it is", got)
	}
}

// TestFlagsDescribeThemselves: every flag has a usage string, and every
// flag that takes a value names it there (`DIR`), so no help shows an
// empty line or a Go type name such as "string".
func TestFlagsDescribeThemselves(t *testing.T) {
	typeName := regexp.MustCompile(`^--?[a-z-]+ (string|value|int|uint|float|duration|int64|uint64)\b`)
	for _, name := range sortedCommands() {
		for _, line := range flagSection(helpOf(name)) {
			trimmed := strings.TrimSpace(line)
			if !strings.HasPrefix(trimmed, "-") {
				continue // a wrapped usage line
			}
			if len(strings.Fields(trimmed)) < 2 {
				t.Errorf("%s: flag %s has no usage", name, trimmed)
			}
			if typeName.MatchString(trimmed) {
				t.Errorf("%s: %q names its value by its Go type; put the name in back quotes in the usage", name, trimmed)
			}
		}
	}
}

// flagSection returns the lines of a help's "Flags:" section.
func flagSection(help string) []string {
	_, after, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		return nil
	}
	section, _, _ := strings.Cut(after, "\n\n")
	return strings.Split(section, "\n")
}
