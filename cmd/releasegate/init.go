package main

import (
	"bytes"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/releasegate/releasegate"
)

const initHelp = `Usage:

  releasegate init [--template NAME] DIR

Start a release gate in DIR: a data folder to fill with your own suite and
recorded runs, a short README.md, a .gitignore for the built site, and two
GitHub Actions workflows: one gates pull requests on the latest snapshot,
the other publishes the site on GitHub Pages.

Templates:

  tools     a tool-calling agent in no particular domain: five cases that
            say which tools the agent must and must never call, two
            recorded runs, no policy and no decisions; start here
  expense   the full sample: an expense-reimbursement agent with a policy
            whose rules the agent cites, decisions, three snapshots and a
            handoff note

DIR is created when missing, and may be an existing repository: init writes
only the files that are missing and lists the ones it kept. Nothing is ever
overwritten. A README.md already there is kept and the project's notes go to
RELEASEGATE.md; an existing data folder is kept whole (a suite mixed with
the template's runs would not make sense).

Then, in DIR:

  releasegate serve --watch    the site at http://127.0.0.1:8080, rebuilt as data/ changes
  releasegate build            the whole site in public/

Examples:

  releasegate init my-release-gate
  releasegate init --template expense demo
  releasegate init .
`

// starter holds the project files besides the data folder, and the
// templates' data folders under templates/. Its gitignore becomes
// .gitignore: a file by that name would act on this repository.
//
//go:embed all:starter
var starter embed.FS

// starterFile is one file init writes, at a slash path relative to DIR.
type starterFile struct {
	path string
	data []byte
}

// projectTemplate is one kind of project init can start.
type projectTemplate struct {
	name string
	// agent and snapshots complete the generated README's sentences.
	agent, snapshots string
	// data is the template's data folder, with its files at the top.
	data func() (fs.FS, error)
	// about describes the data files in the README, in this order.
	about []readmeRow
}

// readmeRow is one line of the generated README's table of files.
type readmeRow struct{ Path, About string }

// projectTemplates are the templates, the default first.
var projectTemplates = []projectTemplate{
	{
		name:      "tools",
		agent:     "a tool-calling agent",
		snapshots: "The template holds two recorded runs: `run-1` (BLOCK: a record deleted for a guest) and `run-2` (PASS).",
		data:      func() (fs.FS, error) { return fs.Sub(starter, "starter/templates/tools") },
		about: []readmeRow{
			{"data/cases.jsonl", "the regression suite, one case per line: the tool calls each case needs and the tools it must never call"},
			{"data/case.schema.json", "the JSON Schema every case must follow"},
			{"data/outputs/<label>.jsonl", "one recorded run (snapshot) of the agent's answers per file; `<label>.meta.json` beside it says when and with which model"},
			{"data/gate.json", "the release thresholds"},
		},
	},
	{
		name:      "expense",
		agent:     "an expense-reimbursement agent",
		snapshots: "The sample holds three snapshots: `baseline-v1` (BLOCK), `candidate-v2` (REVIEW) and `candidate-v3` (PASS).",
		data:      func() (fs.FS, error) { return releasegate.Sample(), nil },
		about: []readmeRow{
			{"data/POLICY.md", "the policy; each rule is a heading that starts with its identifier, e.g. `ER-2026.10 §4.2`"},
			{"data/cases.jsonl", "the regression suite, one case per line"},
			{"data/case.schema.json", "the JSON Schema every case must follow"},
			{"data/outputs/<label>.jsonl", "one recorded snapshot of the agent's answers per file"},
			{"data/gate.json", "the release thresholds"},
			{"data/HANDOFF.md", "scope, runbook and limitations, shown on the site"},
		},
	},
}

// templateNamed returns the template called name.
func templateNamed(name string) (projectTemplate, bool) {
	for _, t := range projectTemplates {
		if t.name == name {
			return t, true
		}
	}
	return projectTemplate{}, false
}

func runInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("init")
	templateName := fs.String("template", projectTemplates[0].name, "start from template `NAME`: tools or expense")
	// Flags may come after DIR too ("init my-gate -h"), so parsing goes
	// on past each argument that is not a flag.
	var positional []string
	err := fs.Parse(args)
	for err == nil && fs.NArg() > 0 {
		positional = append(positional, fs.Arg(0))
		err = fs.Parse(fs.Args()[1:])
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, helpText(fs, initHelp))
		return exitOK
	case err != nil:
		return usageError(stderr, "init", "%v%s", err, flagHint(fs, err))
	case len(positional) == 0:
		return usageError(stderr, "init", "give the folder to create the project in")
	case len(positional) > 1:
		return usageError(stderr, "init", "unexpected argument %q", positional[1])
	}
	tmpl, ok := templateNamed(*templateName)
	if !ok {
		var names []string
		for _, t := range projectTemplates {
			names = append(names, t.name)
		}
		return usageError(stderr, "init", "there is no template %q; use one of: %s", *templateName, strings.Join(names, ", "))
	}
	dir := positional[0]
	files, err := starterFiles(starter, tmpl, projectName(dir))
	if err != nil {
		return failure(stderr, err)
	}
	release := releaseOf(buildInfo())
	files = pinWorkflows(files, release)
	plan, err := planStarter(dir, files)
	if err != nil {
		return failure(stderr, err)
	}
	if len(plan.write) == 0 {
		return failure(stderr, fmt.Errorf("%s: every file init would write is already there, so it wrote nothing:\n  %s", dir, strings.Join(plan.kept, "\n  ")))
	}
	if err := writeStarter(dir, plan.write); err != nil {
		return failure(stderr, err)
	}
	fmt.Fprintf(stdout, "started a release gate in %s from the %s template (%s)\n", dir, tmpl.name, plural(len(plan.write), "file"))
	if len(plan.kept) > 0 {
		fmt.Fprintf(stdout, "\nkept what was already there:\n  %s\n", strings.Join(plan.kept, "\n  "))
	}
	for _, note := range plan.notes {
		fmt.Fprintf(stdout, "\n%s\n", note)
	}
	fmt.Fprint(stdout, "\nNext:\n\n")
	if dir != "." {
		fmt.Fprintf(stdout, "  cd %s\n", dir)
	}
	fmt.Fprint(stdout, "  releasegate serve --watch    # the site at http://127.0.0.1:8080\n  releasegate build            # the whole site in public/\n")
	if release == "" {
		fmt.Fprintf(stdout, "\nThis releasegate is a development build, so the workflows in .github/workflows\nuse the latest release; pin them by writing a release tag (vX.Y.Z) for %s\nand %s.\n", starterActionRef, starterVersion)
	}
	return exitOK
}

// projectName names the project in its README: the folder's own name.
func projectName(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if name := filepath.Base(dir); name != "" && name != string(filepath.Separator) && name != "." {
		return name
	}
	return "releasegate"
}

// The starter workflows install releasegate with the action at the root
// of this repository, named with these two strings; init pins both to
// the release that writes them, so a project keeps the version it was
// made with until someone upgrades it on purpose.
const (
	starterActionRef = "releasegate/releasegate@main"
	starterVersion   = "version: latest"
)

// pinWorkflows returns files with the workflows pinned to release, or
// unchanged when release is "" (a development build).
func pinWorkflows(files []starterFile, release string) []starterFile {
	if release == "" {
		return files
	}
	out := make([]starterFile, len(files))
	for i, f := range files {
		if strings.HasPrefix(f.path, ".github/workflows/") {
			text := strings.ReplaceAll(string(f.data), starterActionRef, "releasegate/releasegate@"+release)
			f.data = []byte(strings.ReplaceAll(text, starterVersion, "version: "+release))
		}
		out[i] = f
	}
	return out
}

// starterFiles lists every file of a new project from tmpl, in path
// order: the starter files (from a folder named starter, the README made
// from its template) and the template's data folder under data/. It is
// pure over the file systems.
func starterFiles(starterFS fs.FS, tmpl projectTemplate, name string) ([]starterFile, error) {
	var files []starterFile
	collect := func(fsys fs.FS, root string, rename func(string) string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p == "starter/templates" {
					return fs.SkipDir
				}
				return nil
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			files = append(files, starterFile{path: rename(p), data: data})
			return nil
		})
	}
	err := collect(starterFS, "starter", func(p string) string {
		switch p = strings.TrimPrefix(p, "starter/"); p {
		case "gitignore":
			return ".gitignore"
		case "README.md.tmpl":
			return "README.md"
		}
		return p
	})
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		if f.path == "README.md" {
			readme, err := projectReadme(string(f.data), tmpl, name)
			if err != nil {
				return nil, err
			}
			files[i].data = readme
		}
	}
	data, err := tmpl.data()
	if err != nil {
		return nil, err
	}
	if err := collect(data, ".", func(p string) string { return path.Join("data", p) }); err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// projectReadme fills the README template in for tmpl and the project
// called name.
func projectReadme(text string, tmpl projectTemplate, name string) ([]byte, error) {
	t, err := template.New("README.md").Parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, struct {
		Name, Agent, Template, Snapshots string
		Files                            []readmeRow
	}{name, tmpl.agent, tmpl.name, tmpl.snapshots, tmpl.about})
	return b.Bytes(), err
}

// starterPlan is what init does in a folder: the files it writes, and
// what it keeps because it is there already.
type starterPlan struct {
	write []starterFile
	kept  []string
	notes []string // what the user may want to do about what was kept
}

// planStarter decides, for each file, whether init writes it into dir.
// A file already there is kept; a README.md already there sends the
// project's notes to RELEASEGATE.md; a data folder already there is kept
// whole. Anything that is not a folder where a folder is needed stops
// init before it writes.
func planStarter(dir string, files []starterFile) (starterPlan, error) {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return starterPlan{}, fmt.Errorf("%s: exists and is not a folder; give init a folder to start the project in", dir)
	}
	if blocked := notFolders(dir, files); len(blocked) > 0 {
		return starterPlan{}, fmt.Errorf("%s: init needs folders where there are files, so it wrote nothing:\n  %s\nMove them away, or start the project in another folder", dir, strings.Join(blocked, "\n  "))
	}
	exists := func(p string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p)))
		return err == nil
	}
	var plan starterPlan
	dataKept := exists("data")
	if dataKept {
		plan.kept = append(plan.kept, "data/ (your data folder, kept whole)")
	}
	for _, f := range files {
		switch {
		case dataKept && strings.HasPrefix(f.path, "data/"):
			continue
		case f.path == "README.md" && exists(f.path) && !sameContent(filepath.Join(dir, "README.md"), f.data):
			f.path = "RELEASEGATE.md"
			plan.kept = append(plan.kept, "README.md (the project's notes are in RELEASEGATE.md)")
			if exists(f.path) {
				plan.kept = append(plan.kept, f.path)
				continue
			}
		case f.path == ".gitignore" && exists(f.path):
			plan.kept = append(plan.kept, f.path)
			if !ignoresPublic(filepath.Join(dir, ".gitignore")) {
				plan.notes = append(plan.notes, "Add the line public/ to .gitignore: releasegate build writes the site there.")
			}
			continue
		case exists(f.path):
			plan.kept = append(plan.kept, f.path)
			continue
		}
		plan.write = append(plan.write, f)
	}
	sort.Strings(plan.kept)
	return plan, nil
}

// sameContent reports whether the file at path holds exactly data: a
// README init wrote before is its own, not the user's.
func sameContent(path string, data []byte) bool {
	b, err := os.ReadFile(path)
	return err == nil && bytes.Equal(b, data)
}

// ignoresPublic reports whether the .gitignore at path has a line that
// ignores the built site's folder.
func ignoresPublic(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch strings.TrimSpace(line) {
		case "public", "public/", "/public", "/public/":
			return true
		}
	}
	return false
}

// notFolders returns what in dir is not a folder where the project
// needs one ("data (not a folder)").
func notFolders(dir string, files []starterFile) []string {
	var found []string
	seen := map[string]bool{}
	for _, f := range files {
		for parent := path.Dir(f.path); parent != "." && !seen[parent]; parent = path.Dir(parent) {
			seen[parent] = true
			info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(parent)))
			if err == nil && !info.IsDir() {
				found = append(found, parent+" (not a folder)")
			}
		}
	}
	sort.Strings(found)
	return found
}

// writeStarter writes files into dir, creating it when missing; the
// files must be missing (planStarter). If a write fails halfway it
// removes what it wrote, and only that.
func writeStarter(dir string, files []starterFile) error {
	var written []string
	undo := func() {
		for i := len(written) - 1; i >= 0; i-- {
			os.Remove(written[i])
		}
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			undo()
			return err
		}
		// O_EXCL: a file that appeared since the check is still not
		// overwritten.
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			undo()
			return err
		}
		written = append(written, p)
		_, err = out.Write(f.data)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			undo()
			return err
		}
	}
	return nil
}
