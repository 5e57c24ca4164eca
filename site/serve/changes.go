package serve

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/releasegate/releasegate/evaluator/load"
)

// changeKind says how much of the site a changed file affects.
type changeKind int

// The kinds of change, from the narrowest rebuild to the widest.
const (
	// handoffChanged: HANDOFF.md; only the shared pages are rendered again.
	handoffChanged changeKind = iota + 1
	// snapshotChanged: one outputs/<label>.jsonl was written, added or removed.
	snapshotChanged
	// metaChanged: one outputs/<label>.meta.json; the snapshot's
	// verdicts stay, its description and maybe its place change.
	metaChanged
	// webChanged: a template or asset; every page is rendered again, nothing is
	// evaluated again.
	webChanged
	// suiteChanged: the cases, policy, thresholds or schema. An edit of
	// the thresholds, cases or policy judges and renders again only what
	// it can change (see builder.edit); one of the schema, which may
	// change how every file is read, is evaluated and rendered in full.
	suiteChanged
	// everythingChanged: the watcher lost track (an event overflow, a folder
	// appeared or vanished); start from scratch.
	everythingChanged
)

// change is one changed file, classified.
type change struct {
	Kind  changeKind
	Label string // the snapshot's label, for snapshotChanged and metaChanged
	Name  string // what to call it in the log: a path relative to its root
}

// changeSet accumulates the changes that one rebuild must take into account.
// The zero value is empty.
type changeSet struct {
	All     bool
	Suite   bool // evaluate and render everything again
	Web     bool
	Handoff bool
	Labels  map[string]bool // snapshots whose outputs file changed
	Metas   map[string]bool // snapshots whose meta.json changed
	// Edited are the suite files that changed, when each is one of
	// editableFiles: a narrower rebuild takes them into account.
	Edited map[string]bool
	Names  []string // what changed, deduplicated, in arrival order
}

// Add records one change.
func (c *changeSet) Add(ch change) {
	switch ch.Kind {
	case everythingChanged:
		c.All = true
	case suiteChanged:
		if !slices.Contains(editableFiles, ch.Name) {
			c.Suite = true
			break
		}
		if c.Edited == nil {
			c.Edited = map[string]bool{}
		}
		c.Edited[ch.Name] = true
	case webChanged:
		c.Web = true
	case handoffChanged:
		c.Handoff = true
	case snapshotChanged:
		if c.Labels == nil {
			c.Labels = map[string]bool{}
		}
		c.Labels[ch.Label] = true
	case metaChanged:
		if c.Metas == nil {
			c.Metas = map[string]bool{}
		}
		c.Metas[ch.Label] = true
	}
	if ch.Name != "" && !slices.Contains(c.Names, ch.Name) {
		c.Names = append(c.Names, ch.Name)
	}
}

// Merge records every change of o.
func (c *changeSet) Merge(o changeSet) {
	c.All = c.All || o.All
	c.Suite = c.Suite || o.Suite
	c.Web = c.Web || o.Web
	c.Handoff = c.Handoff || o.Handoff
	for l := range o.Labels {
		c.Add(change{Kind: snapshotChanged, Label: l})
	}
	for l := range o.Metas {
		c.Add(change{Kind: metaChanged, Label: l})
	}
	for f := range o.Edited {
		if c.Edited == nil {
			c.Edited = map[string]bool{}
		}
		c.Edited[f] = true
	}
	for _, n := range o.Names {
		if !slices.Contains(c.Names, n) {
			c.Names = append(c.Names, n)
		}
	}
}

// Empty reports whether nothing was recorded.
func (c *changeSet) Empty() bool {
	return !c.All && !c.Suite && !c.Web && !c.Handoff && len(c.Labels) == 0 && len(c.Metas) == 0 && len(c.Edited) == 0
}

// watchRoots are the folders a server reads: the data folder and, when
// authoring templates, the folder holding templates/ and assets/. Both are
// absolute and clean.
type watchRoots struct {
	Data string
	Web  string // "" when the embedded templates are used
}

// suiteFiles are the data files every snapshot is judged against.
var suiteFiles = []string{load.CasesFile, load.PolicyFile, load.GateFile, load.SchemaFile}

// editableFiles are the suite files whose edits are taken into account
// case by case instead of by a full rebuild.
var editableFiles = []string{load.CasesFile, load.PolicyFile, load.GateFile}

// classify says what a change to the file or folder at the absolute path
// p means for the site; ok is false when it does not matter.
func (r watchRoots) classify(p string) (ch change, ok bool) {
	if r.Web != "" {
		if rel, in := within(r.Web, p); in {
			top, _, _ := strings.Cut(rel, "/")
			if (top == "templates" || top == "assets") && !ignored(path.Base(rel)) {
				return change{Kind: webChanged, Name: rel}, true
			}
		}
	}
	rel, in := within(r.Data, p)
	if !in {
		return change{}, false
	}
	if rel == "." {
		// The data folder itself was removed or renamed.
		return change{Kind: everythingChanged, Name: filepath.Base(r.Data) + "/"}, true
	}
	if ignored(path.Base(rel)) {
		return change{}, false
	}
	switch {
	case rel == load.OutputsDir:
		// The outputs folder appeared or vanished: its files did too,
		// without an event of their own.
		return change{Kind: everythingChanged, Name: rel + "/"}, true
	case rel == load.HandoffFile:
		return change{Kind: handoffChanged, Name: rel}, true
	case slices.Contains(suiteFiles, rel):
		return change{Kind: suiteChanged, Name: rel}, true
	}
	dir, file := path.Split(rel)
	if dir == load.OutputsDir+"/" && strings.HasSuffix(file, load.MetaSuffix) {
		// The rebuild reads every meta.json again: one may reorder the
		// snapshots, and then every page is rendered again.
		return change{Kind: metaChanged, Label: strings.TrimSuffix(file, load.MetaSuffix), Name: rel}, true
	}
	if dir == load.OutputsDir+"/" && strings.HasSuffix(file, ".jsonl") {
		// An unsafe label is still a snapshot change: the rebuild then
		// reports it with file and reason.
		return change{Kind: snapshotChanged, Label: strings.TrimSuffix(file, ".jsonl"), Name: rel}, true
	}
	return change{}, false
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

// ignored reports whether a file name is an editor's or tool's temporary
// or hidden file, whose changes never matter: Vim's swap files and its
// "4913" probe, Emacs' lock (.#x) and autosave (#x#) files, backups (x~),
// *.tmp, and every dotfile (which covers the temporary files of atomic
// writers such as ".x.jsonl.tmp-123").
func ignored(name string) bool {
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
