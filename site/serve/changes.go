package serve

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator/load"
)

// Kind says how much of the site a changed file affects.
type Kind int

// The kinds of change, from the narrowest rebuild to the widest.
const (
	// Handoff: HANDOFF.md; only the shared pages are rendered again.
	Handoff Kind = iota + 1
	// Snapshot: one outputs/<label>.jsonl was written, added or removed.
	Snapshot
	// Web: a template or asset; every page is rendered again, nothing is
	// evaluated again.
	Web
	// Suite: the cases, policy, thresholds or schema; everything is
	// evaluated and rendered again.
	Suite
	// Everything: the watcher lost track (an event overflow, a folder
	// appeared or vanished); start from scratch.
	Everything
)

// Change is one changed file, classified.
type Change struct {
	Kind  Kind
	Label string // the snapshot's label, for Snapshot
	Name  string // what to call it in the log: a path relative to its root
}

// Changes accumulate the changes that one rebuild must take into account.
// The zero value is empty.
type Changes struct {
	All     bool
	Suite   bool
	Web     bool
	Handoff bool
	Labels  map[string]bool // snapshots whose outputs file changed
	Names   []string        // what changed, deduplicated, in arrival order
}

// Add records one change.
func (c *Changes) Add(ch Change) {
	switch ch.Kind {
	case Everything:
		c.All = true
	case Suite:
		c.Suite = true
	case Web:
		c.Web = true
	case Handoff:
		c.Handoff = true
	case Snapshot:
		if c.Labels == nil {
			c.Labels = map[string]bool{}
		}
		c.Labels[ch.Label] = true
	}
	if ch.Name != "" && !slices.Contains(c.Names, ch.Name) {
		c.Names = append(c.Names, ch.Name)
	}
}

// Merge records every change of o.
func (c *Changes) Merge(o Changes) {
	c.All = c.All || o.All
	c.Suite = c.Suite || o.Suite
	c.Web = c.Web || o.Web
	c.Handoff = c.Handoff || o.Handoff
	for l := range o.Labels {
		c.Add(Change{Kind: Snapshot, Label: l})
	}
	for _, n := range o.Names {
		if !slices.Contains(c.Names, n) {
			c.Names = append(c.Names, n)
		}
	}
}

// Empty reports whether nothing was recorded.
func (c *Changes) Empty() bool {
	return !c.All && !c.Suite && !c.Web && !c.Handoff && len(c.Labels) == 0
}

// Roots are the folders a server reads: the data folder and, when
// authoring templates, the folder holding templates/ and assets/. Both are
// absolute and clean.
type Roots struct {
	Data string
	Web  string // "" when the embedded templates are used
}

// suiteFiles are the data files every snapshot is judged against.
var suiteFiles = []string{load.CasesFile, load.PolicyFile, load.GateFile, load.SchemaFile}

// Classify says what a change to the file or folder at the absolute path
// p means for the site; ok is false when it does not matter.
func (r Roots) Classify(p string) (ch Change, ok bool) {
	if r.Web != "" {
		if rel, in := within(r.Web, p); in {
			top, _, _ := strings.Cut(rel, "/")
			if (top == "templates" || top == "assets") && !Ignored(path.Base(rel)) {
				return Change{Kind: Web, Name: rel}, true
			}
		}
	}
	rel, in := within(r.Data, p)
	if !in {
		return Change{}, false
	}
	if rel == "." {
		// The data folder itself was removed or renamed.
		return Change{Kind: Everything, Name: filepath.Base(r.Data) + "/"}, true
	}
	if Ignored(path.Base(rel)) {
		return Change{}, false
	}
	switch {
	case rel == load.OutputsDir:
		// The outputs folder appeared or vanished: its files did too,
		// without an event of their own.
		return Change{Kind: Everything, Name: rel + "/"}, true
	case rel == load.HandoffFile:
		return Change{Kind: Handoff, Name: rel}, true
	case slices.Contains(suiteFiles, rel):
		return Change{Kind: Suite, Name: rel}, true
	}
	dir, file := path.Split(rel)
	if dir == load.OutputsDir+"/" && strings.HasSuffix(file, ".jsonl") {
		// An unsafe label is still a Snapshot change: the rebuild then
		// reports it with file and reason.
		return Change{Kind: Snapshot, Label: strings.TrimSuffix(file, ".jsonl"), Name: rel}, true
	}
	return Change{}, false
}

// within returns p relative to root, slash-separated, when p is root or
// lies inside it.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Ignored reports whether a file name is an editor's or tool's temporary
// or hidden file, whose changes never matter: Vim's swap files and its
// "4913" probe, Emacs' lock (.#x) and autosave (#x#) files, backups (x~),
// *.tmp, and every dotfile (which covers the temporary files of atomic
// writers such as ".x.jsonl.tmp-123").
func Ignored(name string) bool {
	switch {
	case name == "" || name == "4913":
		return true
	case strings.HasPrefix(name, "."), strings.HasSuffix(name, "~"):
		return true
	case strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".swp", ".swx", ".swo", ".tmp":
		return true
	}
	return false
}
