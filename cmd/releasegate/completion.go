package main

import (
	"fmt"
	"io"
	"strings"
)

const completionHelp = `Usage:

  releasegate completion bash|zsh|fish

Print a script that completes releasegate's commands and flags in the
shell named, and file names where a command takes them. The script is
made from the commands themselves, so it knows every flag this version
has.

To load it in the current shell, or for every new one:

  bash   source <(releasegate completion bash)
         releasegate completion bash > ~/.local/share/bash-completion/completions/releasegate
  zsh    source <(releasegate completion zsh)
         releasegate completion zsh > "${fpath[1]}/_releasegate"
  fish   releasegate completion fish | source
         releasegate completion fish > ~/.config/fish/completions/releasegate.fish

Examples:

  releasegate completion bash > /etc/bash_completion.d/releasegate
`

// shells are the shells completion writes scripts for, and how.
var shells = map[string]func(w io.Writer, cmds []completedCommand){
	"bash": bashCompletion,
	"zsh":  zshCompletion,
	"fish": fishCompletion,
}

func runCompletion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("completion")
	err := fs.Parse(args)
	switch {
	case err != nil:
		return parseFlags(fs, completionHelp, args, stdout, stderr)
	case fs.NArg() == 0:
		return usageError(stderr, "completion", "name the shell: bash, zsh or fish")
	case fs.NArg() > 1:
		return usageError(stderr, "completion", "unexpected argument %q", fs.Arg(1))
	}
	write, ok := shells[fs.Arg(0)]
	if !ok {
		return usageError(stderr, "completion", "no completion for the shell %q: use bash, zsh or fish", fs.Arg(0))
	}
	write(stdout, completedCommands())
	return exitOK
}

// completedCommand is what a completion script knows of one command.
type completedCommand struct {
	name, summary string
	flags         []completedFlag
}

// completedFlag is one flag: its name as typed ("--data", "-o"), whether
// it takes a value, and the first line of its usage.
type completedFlag struct {
	name    string
	value   bool
	summary string
}

// completedCommands lists every command with its flags, read off the
// "Flags:" section of its own help, so a script cannot offer a flag the
// command lacks.
func completedCommands() []completedCommand {
	cmds := commands()
	var out []completedCommand
	for _, name := range sortedNames(cmds) {
		var help strings.Builder
		cmds[name].run([]string{"-h"}, &help, io.Discard)
		out = append(out, completedCommand{name: name, summary: cmds[name].summary, flags: parseFlagSection(help.String())})
	}
	return out
}

// parseFlagSection reads the flags from a help text's "Flags:" section,
// whose lines are "  --data DIR  read the inputs from ...", continued on
// lines that start with spaces alone.
func parseFlagSection(help string) []completedFlag {
	var flags []completedFlag
	in := false
	for _, line := range strings.Split(help, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "Flags:":
			in = true
		case in && trimmed == "":
			return flags
		case in && strings.HasPrefix(trimmed, "-"):
			left, usage, _ := strings.Cut(trimmed, "  ")
			fields := strings.Fields(left)
			flags = append(flags, completedFlag{name: fields[0], value: len(fields) > 1, summary: strings.TrimSpace(usage)})
		}
	}
	return flags
}

// shellQuote quotes s for a POSIX shell, fish and zsh alike: in single
// quotes, each single quote written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func flagNames(c completedCommand) string {
	names := make([]string, 0, len(c.flags)+1)
	for _, f := range c.flags {
		names = append(names, f.name)
	}
	return strings.Join(append(names, "--help"), " ")
}

func commandNames(cmds []completedCommand) string {
	names := make([]string, 0, len(cmds)+1)
	for _, c := range cmds {
		names = append(names, c.name)
	}
	return strings.Join(append(names, "help"), " ")
}

func bashCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprintf(w, `# bash completion for releasegate; load it with
#   source <(releasegate completion bash)
_releasegate() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W %s -- "$cur")
		return
	fi
	local flags="" valued=""
	case ${COMP_WORDS[1]} in
`, shellQuote(commandNames(cmds)+" --version"))
	for _, c := range cmds {
		if c.name == "completion" {
			continue // its argument is a shell, completed below
		}
		var valued []string
		for _, f := range c.flags {
			if f.value {
				valued = append(valued, f.name)
			}
		}
		fmt.Fprintf(w, "\t%s) flags=%s valued=%s ;;\n", c.name, shellQuote(flagNames(c)), shellQuote(" "+strings.Join(valued, " ")+" "))
	}
	fmt.Fprintf(w, `	help)
		if ((COMP_CWORD == 2)); then
			mapfile -t COMPREPLY < <(compgen -W %s -- "$cur")
		fi
		return ;;
	completion)
		if ((COMP_CWORD == 2)); then
			mapfile -t COMPREPLY < <(compgen -W 'bash zsh fish' -- "$cur")
		fi
		return ;;
	esac
	# After a flag that takes a value, complete file names.
	if [[ $cur != -* && $valued == *" $prev "* ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _releasegate releasegate
`, shellQuote(commandNames(cmds)))
}

func zshCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprint(w, `#compdef releasegate
# zsh completion for releasegate; load it with
#   source <(releasegate completion zsh)
# or save it as _releasegate in a folder of $fpath.
_releasegate() {
	local -a commands flags
	commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s\n", shellQuote(c.name+":"+c.summary))
	}
	fmt.Fprint(w, `		'help:print the help of a command'
	)
	if (( CURRENT == 2 )); then
		_describe -t commands 'releasegate command' commands
		return
	fi
	case $words[2] in
`)
	for _, c := range cmds {
		var specs []string
		for _, f := range c.flags {
			spec := f.name + "[" + zshEscape(f.summary) + "]"
			if f.value {
				spec += ":value:_files"
			}
			specs = append(specs, shellQuote(spec))
		}
		specs = append(specs, shellQuote("--help[print the help of "+c.name+"]"))
		if c.name == "completion" {
			specs = append(specs, shellQuote("1:shell:(bash zsh fish)"))
		} else {
			specs = append(specs, shellQuote("*:file:_files"))
		}
		fmt.Fprintf(w, "\t%s) _arguments %s ;;\n", c.name, strings.Join(specs, " "))
	}
	fmt.Fprint(w, `	help) _describe -t commands 'releasegate command' commands ;;
	esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_releasegate "$@"
else
	compdef _releasegate releasegate
fi
`)
}

// zshEscape keeps a description from ending an _arguments spec early.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func fishCompletion(w io.Writer, cmds []completedCommand) {
	fmt.Fprint(w, `# fish completion for releasegate; load it with
#   releasegate completion fish | source
complete -c releasegate -l version -d 'print the version' -n __fish_use_subcommand
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c releasegate -f -n __fish_use_subcommand -a %s -d %s\n", c.name, shellQuote(c.summary))
	}
	fmt.Fprintf(w, "complete -c releasegate -f -n __fish_use_subcommand -a help -d 'print the help of a command'\n")
	fmt.Fprintf(w, "complete -c releasegate -f -n '__fish_seen_subcommand_from help' -a %s\n", shellQuote(commandNames(cmds)))
	fmt.Fprintf(w, "complete -c releasegate -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, c := range cmds {
		cond := shellQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			opt := "-l " + strings.TrimLeft(f.name, "-")
			if !strings.HasPrefix(f.name, "--") {
				opt = "-o " + strings.TrimLeft(f.name, "-")
			}
			if f.value {
				opt += " -r -F"
			}
			fmt.Fprintf(w, "complete -c releasegate -n %s %s -d %s\n", cond, opt, shellQuote(f.summary))
		}
	}
}
