package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped command or flag is answered with the one
// meant, and a name that resembles nothing gets no guess.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
		not  string // not in stderr
	}{
		{[]string{"evalute", "--all"}, `unknown command "evalute"; did you mean "evaluate"?`, ""},
		{[]string{"biuld"}, `did you mean "build"?`, ""},
		{[]string{"serv"}, `did you mean "serve"?`, ""},
		{[]string{"verison"}, `did you mean "version"?`, ""},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, "did you mean"},
		{[]string{"help", "evalaute"}, `unknown command "evalaute"; did you mean "evaluate"?`, ""},
		{[]string{"--data", "data"}, "give the command first, then its flags", ""},
		{[]string{"build", "--dta", "x"}, "-dta; did you mean --data?", ""},
		{[]string{"evaluate", "--outptus", "x"}, "did you mean --outputs?", ""},
		{[]string{"evaluate", "--lable", "x"}, "did you mean --label?", ""},
		{[]string{"serve", "--wacth"}, "did you mean --watch?", ""},
		{[]string{"bundle", "--quite"}, "did you mean --quiet?", ""},
		{[]string{"import", "--prise-in", "1", "inspect", "x"}, "did you mean --price-in?", ""},
		{[]string{"serve", "--port", "80"}, "flag provided but not defined: -port", "did you mean"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, exitUsage)
		}
		if !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%q: stderr %q does not contain %q", tt.args, stderr.String(), tt.want)
		}
		if tt.not != "" && strings.Contains(stderr.String(), tt.not) {
			t.Errorf("%q: stderr %q contains %q", tt.args, stderr.String(), tt.not)
		}
	}
}

// TestCompletionScripts: each script is valid in its shell (checked with
// the shell itself where it is installed; bash always is) and offers every
// command and every flag of each command.
func TestCompletionScripts(t *testing.T) {
	cmds := completedCommands()
	if len(cmds) != len(commands()) {
		t.Fatalf("completion knows %d commands, want %d", len(cmds), len(commands()))
	}
	for shell := range shells {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"completion", shell}, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", shell, code, stderr.String())
		}
		script := stdout.String()
		for _, c := range cmds {
			if !strings.Contains(script, c.name) {
				t.Errorf("%s: the script does not offer %s", shell, c.name)
			}
			for _, f := range c.flags {
				name := f.name
				if shell == "fish" {
					name = strings.TrimLeft(name, "-") // fish writes -l data
				}
				if !strings.Contains(script, name) {
					t.Errorf("%s: the script does not offer %s %s", shell, c.name, f.name)
				}
			}
		}
		path, err := exec.LookPath(shell)
		if err != nil {
			if shell == "bash" {
				t.Fatal("bash is missing")
			}
			t.Logf("%s is not installed: its script is not parsed", shell)
			continue
		}
		file := filepath.Join(t.TempDir(), "completion."+shell)
		if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(path, "-n", file).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
	}
}

// TestBashCompletionCompletes drives the bash script as bash would on a
// Tab press: COMP_WORDS and COMP_CWORD in, COMPREPLY out.
func TestBashCompletionCompletes(t *testing.T) {
	var script bytes.Buffer
	run([]string{"completion", "bash"}, &script, &script)
	tests := []struct {
		words string
		want  string
	}{
		{"releasegate ev", "evaluate"},
		{"releasegate b", "build bundle"},
		{"releasegate evaluate --ou", "--out --output --outputs"},
		{"releasegate completion z", "zsh"},
		{"releasegate help ver", "verify version"},
		{"releasegate serve --w", "--watch --web"},
	}
	for _, tt := range tests {
		words := strings.Fields(tt.words)
		prog := script.String() + "\nCOMP_WORDS=(" + strings.Join(words, " ") + ")\nCOMP_CWORD=" + itoa(len(words)-1) + "\n_releasegate\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", tt.words, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != tt.want {
			t.Errorf("%s<Tab>: %q, want %q", tt.words, got, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestCompletionUsage(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "powershell"}, {"completion", "bash", "zsh"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage || stderr.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}
