package main

import (
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

	"github.com/releasegate/releasegate"
)

const initHelp = `Usage:

  releasegate init DIR

Start a new project in DIR: the sample data folder (policy, suite, three
snapshots, thresholds, handoff note), a short README.md, a .gitignore for the
built site, and two GitHub Actions workflows: one gates pull requests, the
other publishes the site on GitHub Pages.

DIR is created when missing. Nothing is ever overwritten: when any file init
would write already exists, it lists those files and writes nothing.

Then, in DIR:

  releasegate serve --watch    the site at http://127.0.0.1:8080, rebuilt as data/ changes
  releasegate build            the whole site in public/

Examples:

  releasegate init my-release-gate
  releasegate init .
`

// starter holds the project files besides the sample data. Its gitignore
// becomes .gitignore: a file by that name would act on this repository.
//
//go:embed all:starter
var starter embed.FS

// starterFile is one file init writes, at a slash path relative to DIR.
type starterFile struct {
	path string
	data []byte
}

func runInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("init")
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
	dir := positional[0]
	files, err := starterFiles(starter, releasegate.Sample())
	if err != nil {
		return failure(stderr, err)
	}
	release := releaseOf(buildInfo())
	files = pinWorkflows(files, release)
	if err := writeStarter(dir, files); err != nil {
		return failure(stderr, err)
	}
	fmt.Fprintf(stdout, "created a release-gate project in %s (%d files)\n\nNext:\n\n", dir, len(files))
	if dir != "." {
		fmt.Fprintf(stdout, "  cd %s\n", dir)
	}
	fmt.Fprint(stdout, "  releasegate serve --watch    # the site at http://127.0.0.1:8080\n  releasegate build            # the whole site in public/\n")
	if release == "" {
		fmt.Fprintf(stdout, "\nThis releasegate is a development build, so the workflows in .github/workflows\nuse the latest release; pin them by writing a release tag (vX.Y.Z) for %s\nand %s.\n", starterActionRef, starterVersion)
	}
	return exitOK
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

// starterFiles lists every file of a new project, in path order: the
// starter files (from a folder named starter) and the sample data under
// data/. It is pure over the two file systems.
func starterFiles(starterFS, sample fs.FS) ([]starterFile, error) {
	var files []starterFile
	collect := func(fsys fs.FS, root string, rename func(string) string) error {
		return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
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
		p = strings.TrimPrefix(p, "starter/")
		if p == "gitignore" {
			return ".gitignore"
		}
		return p
	})
	if err != nil {
		return nil, err
	}
	if err := collect(sample, ".", func(p string) string { return path.Join("data", p) }); err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, nil
}

// existing returns what in dir stands in the way of the project's files:
// the files already there, and anything that is not a folder where a
// folder is needed ("data (not a folder)").
func existing(dir string, files []starterFile) []string {
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
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(f.path))); err == nil {
			found = append(found, f.path)
		}
	}
	sort.Strings(found)
	return found
}

// writeStarter writes files into dir, creating it when missing. It
// refuses, writing nothing, when any of the files already exists; if a
// write fails halfway it removes what it wrote.
func writeStarter(dir string, files []starterFile) error {
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return fmt.Errorf("%s: exists and is not a folder", dir)
	}
	if found := existing(dir, files); len(found) > 0 {
		return fmt.Errorf("%s: init would overwrite what is already there, so it wrote nothing:\n  %s", dir, strings.Join(found, "\n  "))
	}
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
