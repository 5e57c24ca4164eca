package serve

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	roots := watchRoots{Data: "/p/data", Web: "/p"}
	tests := []struct {
		path string
		want change
		ok   bool
	}{
		{"/p/data/outputs/candidate-v3.jsonl", change{Kind: snapshotChanged, Label: "candidate-v3", Name: "outputs/candidate-v3.jsonl"}, true},
		{"/p/data/outputs/new.1.jsonl", change{Kind: snapshotChanged, Label: "new.1", Name: "outputs/new.1.jsonl"}, true},
		{"/p/data/outputs/bad name.jsonl", change{Kind: snapshotChanged, Label: "bad name", Name: "outputs/bad name.jsonl"}, true},
		{"/p/data/cases.jsonl", change{Kind: suiteChanged, Name: "cases.jsonl"}, true},
		{"/p/data/POLICY.md", change{Kind: suiteChanged, Name: "POLICY.md"}, true},
		{"/p/data/gate.json", change{Kind: suiteChanged, Name: "gate.json"}, true},
		{"/p/data/case.schema.json", change{Kind: suiteChanged, Name: "case.schema.json"}, true},
		{"/p/data/HANDOFF.md", change{Kind: handoffChanged, Name: "HANDOFF.md"}, true},
		{"/p/data/outputs", change{Kind: everythingChanged, Name: "outputs/"}, true},
		{"/p/data", change{Kind: everythingChanged, Name: "data/"}, true},
		{"/p/templates/base.html", change{Kind: webChanged, Name: "templates/base.html"}, true},
		{"/p/templates/partials/nav.html", change{Kind: webChanged, Name: "templates/partials/nav.html"}, true},
		{"/p/assets/site.css", change{Kind: webChanged, Name: "assets/site.css"}, true},
		{"/p/assets", change{Kind: webChanged, Name: "assets"}, true},
		// Not part of the site.
		{"/p/data/outputs/notes.txt", change{}, false},
		{"/p/data/outputs/sedX1b2c3", change{}, false},
		{"/p/data/outputs/old/candidate-v1.jsonl", change{}, false},
		{"/p/data/README.md", change{}, false},
		{"/p/data/cases.jsonl.orig", change{}, false},
		{"/p/README.md", change{}, false},
		{"/p/go.mod", change{}, false},
		{"/elsewhere/data/cases.jsonl", change{}, false},
		{"/p/database/cases.jsonl", change{}, false},
		// Editors' temporary files.
		{"/p/data/outputs/.candidate-v3.jsonl.swp", change{}, false},
		{"/p/data/outputs/candidate-v3.jsonl~", change{}, false},
		{"/p/data/outputs/.#candidate-v3.jsonl", change{}, false},
		{"/p/data/outputs/4913", change{}, false},
		{"/p/data/outputs/.candidate-v3.jsonl.tmp-123", change{}, false},
		{"/p/data/cases.jsonl.tmp", change{}, false},
		{"/p/data/#cases.jsonl#", change{}, false},
		{"/p/templates/.base.html.swp", change{}, false},
	}
	for _, tt := range tests {
		got, ok := roots.classify(filepath.FromSlash(tt.path))
		if ok != tt.ok || got != tt.want {
			t.Errorf("classify(%s) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestClassifyWithoutWebRoot(t *testing.T) {
	roots := watchRoots{Data: "/p/data"}
	if ch, ok := roots.classify("/p/templates/base.html"); ok {
		t.Errorf("embedded templates: a file outside data classified as %+v", ch)
	}
}

func TestIgnored(t *testing.T) {
	tests := map[string]bool{
		"cases.jsonl":            false,
		"candidate-v3.jsonl":     false,
		"POLICY.md":              false,
		"base.html":              false,
		"4913":                   true,
		"49130":                  false,
		".cases.jsonl.swp":       true,
		"cases.jsonl.swx":        true,
		"x.SWP":                  true,
		"cases.jsonl~":           true,
		".#cases.jsonl":          true,
		"#cases.jsonl#":          true,
		"#notes":                 false,
		"upload.tmp":             true,
		".DS_Store":              true,
		".candidate.jsonl.tmp-1": true,
		"":                       true,
	}
	for name, want := range tests {
		if got := ignored(name); got != want {
			t.Errorf("ignored(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestChangesAccumulate(t *testing.T) {
	var c changeSet
	if !c.Empty() {
		t.Fatal("zero changeSet not empty")
	}
	c.Add(change{Kind: snapshotChanged, Label: "a", Name: "outputs/a.jsonl"})
	c.Add(change{Kind: snapshotChanged, Label: "a", Name: "outputs/a.jsonl"})
	c.Add(change{Kind: handoffChanged, Name: "HANDOFF.md"})
	var d changeSet
	d.Add(change{Kind: snapshotChanged, Label: "b", Name: "outputs/b.jsonl"})
	d.Add(change{Kind: webChanged, Name: "templates/base.html"})
	d.Add(change{Kind: handoffChanged, Name: "HANDOFF.md"})
	c.Merge(d)
	if c.Empty() || !c.Handoff || !c.Web || c.Suite || c.All {
		t.Errorf("flags wrong: %+v", c)
	}
	if !c.Labels["a"] || !c.Labels["b"] || len(c.Labels) != 2 {
		t.Errorf("labels %v", c.Labels)
	}
	want := []string{"outputs/a.jsonl", "HANDOFF.md", "outputs/b.jsonl", "templates/base.html"}
	if !slices.Equal(c.Names, want) {
		t.Errorf("names %q, want %q", c.Names, want)
	}
	var e changeSet
	e.Add(change{Kind: everythingChanged})
	e.Add(change{Kind: suiteChanged})
	if !e.All || !e.Suite || len(e.Names) != 0 {
		t.Errorf("%+v", e)
	}
}

func FuzzClassify(f *testing.F) {
	for _, p := range []string{"/p/data/outputs/x.jsonl", "/p/data/../data/cases.jsonl", "/p/templates/../data/x", "/p/data/outputs/a/b.jsonl", "/p/assets/.x"} {
		f.Add(p)
	}
	roots := watchRoots{Data: "/p/data", Web: "/p"}
	f.Fuzz(func(t *testing.T, p string) {
		p = filepath.Clean("/" + p)
		ch, ok := roots.classify(p)
		if !ok {
			return
		}
		switch ch.Kind {
		case snapshotChanged:
			if strings.ContainsAny(ch.Label, `/`) || ch.Name != "outputs/"+ch.Label+".jsonl" {
				t.Fatalf("%q: snapshot %+v", p, ch)
			}
			if filepath.Join(roots.Data, filepath.FromSlash(ch.Name)) != p {
				t.Fatalf("%q: name %q is not the path", p, ch.Name)
			}
		case webChanged:
			if !strings.HasPrefix(ch.Name, "templates") && !strings.HasPrefix(ch.Name, "assets") {
				t.Fatalf("%q: web change %+v", p, ch)
			}
		case suiteChanged, handoffChanged:
			if filepath.Join(roots.Data, ch.Name) != p {
				t.Fatalf("%q: %+v", p, ch)
			}
		case everythingChanged:
		default:
			t.Fatalf("%q: kind %d", p, ch.Kind)
		}
		if !strings.HasPrefix(p, "/p/") && p != "/p" {
			t.Fatalf("%q outside the roots classified as %+v", p, ch)
		}
	})
}
