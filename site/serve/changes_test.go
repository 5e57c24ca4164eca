package serve

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	roots := Roots{Data: "/p/data", Web: "/p"}
	tests := []struct {
		path string
		want Change
		ok   bool
	}{
		{"/p/data/outputs/candidate-v3.jsonl", Change{Kind: Snapshot, Label: "candidate-v3", Name: "outputs/candidate-v3.jsonl"}, true},
		{"/p/data/outputs/new.1.jsonl", Change{Kind: Snapshot, Label: "new.1", Name: "outputs/new.1.jsonl"}, true},
		{"/p/data/outputs/bad name.jsonl", Change{Kind: Snapshot, Label: "bad name", Name: "outputs/bad name.jsonl"}, true},
		{"/p/data/cases.jsonl", Change{Kind: Suite, Name: "cases.jsonl"}, true},
		{"/p/data/POLICY.md", Change{Kind: Suite, Name: "POLICY.md"}, true},
		{"/p/data/gate.json", Change{Kind: Suite, Name: "gate.json"}, true},
		{"/p/data/case.schema.json", Change{Kind: Suite, Name: "case.schema.json"}, true},
		{"/p/data/HANDOFF.md", Change{Kind: Handoff, Name: "HANDOFF.md"}, true},
		{"/p/data/outputs", Change{Kind: Everything, Name: "outputs/"}, true},
		{"/p/data", Change{Kind: Everything, Name: "data/"}, true},
		{"/p/templates/base.html", Change{Kind: Web, Name: "templates/base.html"}, true},
		{"/p/templates/partials/nav.html", Change{Kind: Web, Name: "templates/partials/nav.html"}, true},
		{"/p/assets/site.css", Change{Kind: Web, Name: "assets/site.css"}, true},
		{"/p/assets", Change{Kind: Web, Name: "assets"}, true},
		// Not part of the site.
		{"/p/data/outputs/notes.txt", Change{}, false},
		{"/p/data/outputs/sedX1b2c3", Change{}, false},
		{"/p/data/outputs/old/candidate-v1.jsonl", Change{}, false},
		{"/p/data/README.md", Change{}, false},
		{"/p/data/cases.jsonl.orig", Change{}, false},
		{"/p/README.md", Change{}, false},
		{"/p/go.mod", Change{}, false},
		{"/elsewhere/data/cases.jsonl", Change{}, false},
		{"/p/database/cases.jsonl", Change{}, false},
		// Editors' temporary files.
		{"/p/data/outputs/.candidate-v3.jsonl.swp", Change{}, false},
		{"/p/data/outputs/candidate-v3.jsonl~", Change{}, false},
		{"/p/data/outputs/.#candidate-v3.jsonl", Change{}, false},
		{"/p/data/outputs/4913", Change{}, false},
		{"/p/data/outputs/.candidate-v3.jsonl.tmp-123", Change{}, false},
		{"/p/data/cases.jsonl.tmp", Change{}, false},
		{"/p/data/#cases.jsonl#", Change{}, false},
		{"/p/templates/.base.html.swp", Change{}, false},
	}
	for _, tt := range tests {
		got, ok := roots.Classify(filepath.FromSlash(tt.path))
		if ok != tt.ok || got != tt.want {
			t.Errorf("Classify(%s) = %+v, %v; want %+v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestClassifyWithoutWebRoot(t *testing.T) {
	roots := Roots{Data: "/p/data"}
	if ch, ok := roots.Classify("/p/templates/base.html"); ok {
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
		if got := Ignored(name); got != want {
			t.Errorf("Ignored(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestChangesAccumulate(t *testing.T) {
	var c Changes
	if !c.Empty() {
		t.Fatal("zero Changes not empty")
	}
	c.Add(Change{Kind: Snapshot, Label: "a", Name: "outputs/a.jsonl"})
	c.Add(Change{Kind: Snapshot, Label: "a", Name: "outputs/a.jsonl"})
	c.Add(Change{Kind: Handoff, Name: "HANDOFF.md"})
	var d Changes
	d.Add(Change{Kind: Snapshot, Label: "b", Name: "outputs/b.jsonl"})
	d.Add(Change{Kind: Web, Name: "templates/base.html"})
	d.Add(Change{Kind: Handoff, Name: "HANDOFF.md"})
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
	var e Changes
	e.Add(Change{Kind: Everything})
	e.Add(Change{Kind: Suite})
	if !e.All || !e.Suite || len(e.Names) != 0 {
		t.Errorf("%+v", e)
	}
}

func FuzzClassify(f *testing.F) {
	for _, p := range []string{"/p/data/outputs/x.jsonl", "/p/data/../data/cases.jsonl", "/p/templates/../data/x", "/p/data/outputs/a/b.jsonl", "/p/assets/.x"} {
		f.Add(p)
	}
	roots := Roots{Data: "/p/data", Web: "/p"}
	f.Fuzz(func(t *testing.T, p string) {
		p = filepath.Clean("/" + p)
		ch, ok := roots.Classify(p)
		if !ok {
			return
		}
		switch ch.Kind {
		case Snapshot:
			if strings.ContainsAny(ch.Label, `/`) || ch.Name != "outputs/"+ch.Label+".jsonl" {
				t.Fatalf("%q: snapshot %+v", p, ch)
			}
			if filepath.Join(roots.Data, filepath.FromSlash(ch.Name)) != p {
				t.Fatalf("%q: name %q is not the path", p, ch.Name)
			}
		case Web:
			if !strings.HasPrefix(ch.Name, "templates") && !strings.HasPrefix(ch.Name, "assets") {
				t.Fatalf("%q: web change %+v", p, ch)
			}
		case Suite, Handoff:
			if filepath.Join(roots.Data, ch.Name) != p {
				t.Fatalf("%q: %+v", p, ch)
			}
		case Everything:
		default:
			t.Fatalf("%q: kind %d", p, ch.Kind)
		}
		if !strings.HasPrefix(p, "/p/") && p != "/p" {
			t.Fatalf("%q outside the roots classified as %+v", p, ch)
		}
	})
}
