package bundle

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/releasegate/releasegate/evaluator/suite"
)

func TestSameInputsGiveIdenticalBundles(t *testing.T) {
	a := makeBundle(t, sampleData, time.Time{})
	b := makeBundle(t, copyDir(t, sampleData), time.Time{})
	if filepath.Base(a) != filepath.Base(b) {
		t.Errorf("names differ: %s and %s", filepath.Base(a), filepath.Base(b))
	}
	if !regexp.MustCompile(`^releasegate-ER-2026\.10-[0-9a-f]{8}\.zip$`).MatchString(filepath.Base(a)) {
		t.Errorf("default name %q, want releasegate-ER-2026.10-<8 hex>.zip", filepath.Base(a))
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Fatalf("two bundles of the same inputs differ (%d and %d bytes)", len(ab), len(bb))
	}
}

func TestChangedInputChangesName(t *testing.T) {
	data := copyDir(t, sampleData)
	handoff := filepath.Join(data, "HANDOFF.md")
	b, _ := os.ReadFile(handoff)
	os.WriteFile(handoff, append(b, "\nOne more line.\n"...), 0o644)
	a, c := makeBundle(t, sampleData, time.Time{}), makeBundle(t, data, time.Time{})
	if filepath.Base(a) == filepath.Base(c) {
		t.Errorf("a changed HANDOFF.md kept the name %s", filepath.Base(a))
	}
}

func TestBundleLayout(t *testing.T) {
	path := makeBundle(t, sampleData, time.Time{})
	names, files := readZip(t, path)
	root := strings.TrimSuffix(filepath.Base(path), ".zip")
	want := []string{
		"MANIFEST", "RELEASE_REPORT.md", "index.html",
		"inputs/HANDOFF.md", "inputs/POLICY.md", "inputs/case.schema.json", "inputs/cases.jsonl", "inputs/gate.json",
		"inputs/outputs/baseline-v1.jsonl", "inputs/outputs/candidate-v2.jsonl", "inputs/outputs/candidate-v3.jsonl",
		"results/baseline-v1.json", "results/candidate-v2.json", "results/candidate-v3.json",
	}
	for _, w := range want {
		if _, ok := files[root+"/"+w]; !ok {
			t.Errorf("bundle lacks %s/%s", root, w)
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("entries not sorted: %s before %s", names[i-1], names[i])
		}
	}
	for _, in := range []string{"POLICY.md", "cases.jsonl", "outputs/candidate-v2.jsonl"} {
		orig, _ := os.ReadFile(filepath.Join(sampleData, in))
		if !bytes.Equal(files[root+"/inputs/"+in], orig) {
			t.Errorf("inputs/%s is not byte for byte the data file", in)
		}
	}
	// MANIFEST lists every other file, sorted, with its true checksum.
	manifest := string(files[root+"/MANIFEST"])
	lines := strings.Split(strings.TrimSuffix(manifest, "\n"), "\n")
	if len(lines) != len(names)-1 {
		t.Errorf("MANIFEST has %d lines for %d other files", len(lines), len(names)-1)
	}
	for i, line := range lines {
		sum, p, ok := strings.Cut(line, "  ")
		if !ok || sumHex(files[root+"/"+p]) != sum {
			t.Errorf("MANIFEST line %d %q does not match the file", i+1, line)
		}
		if i > 0 && lines[i-1][66:] >= p {
			t.Errorf("MANIFEST not sorted at line %d", i+1)
		}
		if p == ManifestName {
			t.Errorf("MANIFEST lists itself")
		}
	}
	// Fixed headers: mode 0644, no extra fields, the policy month as time.
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.CreatorVersion != 0x0314 || f.ReaderVersion != 20 || f.Flags != 0 {
			t.Errorf("%s: made by %#04x, needs %d, flags %#x; want Unix zip 2.0, 2.0, none", f.Name, f.CreatorVersion, f.ReaderVersion, f.Flags)
		}
		if f.Mode() != 0o644 || len(f.Extra) != 0 || !f.Modified.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("%s: mode %v, %d extra bytes, time %v", f.Name, f.Mode(), len(f.Extra), f.Modified)
		}
	}
	// The inputs hash in the name is the hash of MANIFEST's inputs lines.
	var inputLines strings.Builder
	for _, line := range lines {
		if strings.Contains(line, "  inputs/") {
			inputLines.WriteString(line + "\n")
		}
	}
	if h := sumHex([]byte(inputLines.String()))[:8]; !strings.HasSuffix(root, "-"+h) {
		t.Errorf("top folder %s, want it to end with the inputs hash %s", root, h)
	}
}

// timeOffsets returns the offsets of every time and date field of a zip
// written by Pack (no extra fields, no comment).
func timeOffsets(t *testing.T, b []byte) map[int]bool {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	offs := map[int]bool{}
	for _, f := range zr.File {
		data, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		local := int(data) - 30 - len(f.Name)
		if binary.LittleEndian.Uint32(b[local:]) != 0x04034b50 {
			t.Fatalf("%s: no local header at %d", f.Name, local)
		}
		for i := 10; i < 14; i++ {
			offs[local+i] = true
		}
	}
	eocd := len(b) - 22
	if binary.LittleEndian.Uint32(b[eocd:]) != 0x06054b50 {
		t.Fatal("no end of central directory record at the end")
	}
	p := int(binary.LittleEndian.Uint32(b[eocd+16:]))
	for range zr.File {
		if binary.LittleEndian.Uint32(b[p:]) != 0x02014b50 {
			t.Fatalf("no central directory header at %d", p)
		}
		for i := 12; i < 16; i++ {
			offs[p+i] = true
		}
		p += 46 + int(binary.LittleEndian.Uint16(b[p+28:])) + int(binary.LittleEndian.Uint16(b[p+30:])) + int(binary.LittleEndian.Uint16(b[p+32:]))
	}
	return offs
}

func TestSourceDateEpochChangesOnlyTimes(t *testing.T) {
	epoch, err := ParseSourceDateEpoch("1700000000")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(makeBundle(t, sampleData, time.Time{}))
	b, _ := os.ReadFile(makeBundle(t, sampleData, epoch))
	if len(a) != len(b) {
		t.Fatalf("sizes differ: %d and %d", len(a), len(b))
	}
	times := timeOffsets(t, a)
	differing := 0
	for i := range a {
		if a[i] != b[i] {
			differing++
			if !times[i] {
				t.Fatalf("byte %d differs and is not part of a time stamp", i)
			}
		}
	}
	if differing == 0 {
		t.Fatal("SOURCE_DATE_EPOCH changed nothing")
	}
	zr, _ := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if got, want := zr.File[0].Modified, time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC); !got.Equal(want) {
		t.Errorf("entry time %v, want %v", got, want)
	}
}

func TestModTime(t *testing.T) {
	tests := []struct {
		version string
		want    time.Time
	}{
		{"ER-2026.10", time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)},
		{"HR-1999.01", time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"ER-2026.13", zipEpoch},
		{"ER-2026", zipEpoch},
		{"", zipEpoch},
	}
	for _, tt := range tests {
		if got := ModTime(tt.version); !got.Equal(tt.want) {
			t.Errorf("ModTime(%q) = %v, want %v", tt.version, got, tt.want)
		}
	}
}

func TestMSDOSTimeClampsAndRounds(t *testing.T) {
	tests := []struct {
		in, want time.Time
	}{
		{time.Date(2026, 10, 1, 12, 34, 57, 0, time.UTC), time.Date(2026, 10, 1, 12, 34, 56, 0, time.UTC)},
		{time.Unix(0, 0), zipEpoch},
		{time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC), zipEnd},
		{time.Date(2026, 10, 1, 2, 0, 0, 0, time.FixedZone("x", 2*3600)), time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		d, c := msDosTime(tt.in)
		//lint:ignore SA1019 the MS-DOS fields are what pack writes
		h := zip.FileHeader{ModifiedDate: d, ModifiedTime: c}
		if got := h.ModTime(); !got.Equal(tt.want) {
			t.Errorf("msDosTime(%v) reads back as %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseSourceDateEpoch(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{"0", 0, false},
		{" 1700000000\n", 1700000000, false},
		{"1.5", 0, true},
		{"yesterday", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSourceDateEpoch(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && got.Unix() != tt.want) {
			t.Errorf("ParseSourceDateEpoch(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func TestPackRefusesWhatItCouldNotVerify(t *testing.T) {
	inputs := &fstest.MapFile{Data: []byte("x")}
	tests := []struct {
		name    string
		files   fstest.MapFS
		version string
		want    string
	}{
		{"own manifest", fstest.MapFS{"inputs/a": inputs, "MANIFEST": inputs}, "ER-2026.10", "written by the bundle"},
		{"unsafe name", fstest.MapFS{"inputs/a": inputs, "a b.html": inputs}, "ER-2026.10", "not allowed"},
		{"no inputs", fstest.MapFS{"index.html": inputs}, "ER-2026.10", "no inputs/"},
		{"bad version", fstest.MapFS{"inputs/a": inputs}, "../x", "cannot name a folder"},
		{"empty version", fstest.MapFS{"inputs/a": inputs}, "", "cannot name a folder"},
		{"symlink", fstest.MapFS{"inputs/a": inputs, "l": &fstest.MapFile{Mode: os.ModeSymlink}}, "ER-2026.10", "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			_, err := Pack(&b, tt.files, PackOptions{Version: tt.version})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Pack error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestFailedBundleLeavesNothing(t *testing.T) {
	data := copyDir(t, sampleData)
	os.WriteFile(filepath.Join(data, "gate.json"), []byte("{not json"), 0o644)
	dir := t.TempDir()
	_, err := Create(Options{Data: data, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "gate.json") {
		t.Fatalf("Create error %v, want one naming gate.json", err)
	}
	if left := listFiles(t, dir); len(left) > 0 {
		t.Errorf("a failed bundle left %v", left)
	}
	// The output cannot be written: nothing is left either.
	out := filepath.Join(dir, "no-such-dir-is-a-file")
	os.WriteFile(out, nil, 0o644)
	if _, err := Create(Options{Data: sampleData, Output: filepath.Join(out, "b.zip")}); err == nil {
		t.Fatal("Create into a path below a file succeeded")
	}
	if left := listFiles(t, dir); len(left) != 1 {
		t.Errorf("a failed bundle left %v", left)
	}
}

func TestChangedDataDuringBundleIsRefused(t *testing.T) {
	// The snapshot changes after the bundle read its inputs and before
	// they are evaluated: the site would not match the bundled bytes.
	d := copyDir(t, sampleData)
	change := func() {
		f := filepath.Join(d, "outputs", "candidate-v3.jsonl")
		b, _ := os.ReadFile(f)
		os.WriteFile(f, append(b, '\n'), 0o644)
	}
	dir := t.TempDir()
	_, err := Create(Options{Data: d, Dir: dir, afterRead: change})
	if err == nil || !strings.Contains(err.Error(), "candidate-v3.jsonl changed") {
		t.Fatalf("Create error %v, want one saying candidate-v3.jsonl changed", err)
	}
	if left := listFiles(t, dir); len(left) > 0 {
		t.Errorf("a failed bundle left %v", left)
	}
}

func TestBundleRefusesNamesEqualUnderCaseFolding(t *testing.T) {
	t.Run("case ids are named apart", func(t *testing.T) {
		// Two ids equal under case folding are two cases, whose pages
		// are both given hashed names: the bundle holds both and
		// verifies.
		d := copyDir(t, sampleData)
		lowerFirstCase(t, d)
		c, err := Create(Options{Data: d, Dir: t.TempDir()})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if _, err := Verify(c.Path, VerifyOptions{TempDir: t.TempDir()}); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		ids := map[string]bool{}
		for _, cs := range c.Release.Suite.Cases {
			ids[cs.ID] = true
		}
		if !ids["ER-001"] || !ids["er-001"] {
			t.Fatalf("the bundled suite lacks ER-001 or er-001: %v", ids)
		}
	})
	t.Run("snapshot labels", func(t *testing.T) {
		d := copyDir(t, sampleData)
		b, _ := os.ReadFile(filepath.Join(d, "outputs", "candidate-v3.jsonl"))
		os.WriteFile(filepath.Join(d, "outputs", "Candidate-V3.jsonl"), b, 0o644)
		evaluated := false
		_, err := Create(Options{Data: d, Dir: t.TempDir(), afterRead: func() { evaluated = true }})
		if evaluated {
			t.Error("labels equal under case folding were refused only after evaluating the suite")
		}
		var bad *suite.InputError
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), "under case folding") || !strings.Contains(bad.File, "andidate-") {
			t.Fatalf("Create error %v, want a bad-input error naming both labels", err)
		}
	})
}

// lowerFirstCase appends to the suite a copy of ER-001 with its id
// lower-cased, and an output for it to each snapshot.
func lowerFirstCase(t *testing.T, d string) {
	t.Helper()
	for _, f := range append([]string{"cases.jsonl"}, "outputs/baseline-v1.jsonl", "outputs/candidate-v2.jsonl", "outputs/candidate-v3.jsonl") {
		path := filepath.Join(d, f)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := bytes.Cut(b, []byte("\n"))
		if !bytes.HasSuffix(b, []byte("\n")) {
			b = append(b, '\n')
		}
		b = append(b, bytes.Replace(first, []byte(`"ER-001"`), []byte(`"er-001"`), 1)...)
		os.WriteFile(path, append(b, '\n'), 0o644)
	}
}

func TestBundleRefusesWhatVerifyWouldRefuse(t *testing.T) {
	whole, err := Create(Options{Data: sampleData, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limits Limits
		want   string
		// Where it is refused: before the suite is evaluated, from the
		// inputs' bytes; before any page is rendered, from the evaluated
		// release; or by the check of the finished archive.
		evaluated, rendered bool
	}{
		{Limits{MaxEntries: whole.Files - 1}, fmt.Sprintf("../../data: cannot be bundled: its site and inputs make %d files, more than the %d", whole.Files, whole.Files-1), true, false},
		{Limits{MaxFileSize: 10 << 10}, "../../data/cases.jsonl: larger than the limit of 10 KiB", false, false},
		{Limits{MaxTotalSize: 20 << 10}, "../../data: cannot be bundled: its inputs alone are 40912 bytes, more than the 20480 bytes", false, false},
		// The site's pages are only known in size once rendered.
		{Limits{MaxTotalSize: 100 << 10}, "more than the limit of 102400 bytes in total", true, true},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		evaluated, rendered := false, false
		_, err := Create(Options{Data: sampleData, Dir: dir, Limits: tt.limits, afterRead: func() { evaluated = true }, beforeRender: func() { rendered = true }})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("limits %+v: error %v, want one containing %q", tt.limits, err, tt.want)
		}
		var bad *suite.InputError
		if evaluated != tt.evaluated || rendered != tt.rendered || !tt.rendered && !errors.As(err, &bad) {
			t.Errorf("limits %+v: evaluated %v, rendered %v, error %T; want %v, %v and a bad-input error when refused before rendering", tt.limits, evaluated, rendered, err, tt.evaluated, tt.rendered)
		}
		if left := listFiles(t, dir); len(left) > 0 {
			t.Errorf("a refused bundle left %v", left)
		}
	}
	// At the limits, the bundle is written and verifies.
	limits := Limits{MaxEntries: whole.Files, MaxTotalSize: 64 << 20}
	c, err := Create(Options{Data: sampleData, Dir: t.TempDir(), Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Verify(c.Path, VerifyOptions{TempDir: t.TempDir(), Limits: limits}); err != nil || !rep.Verified() {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

// TestCreateStopsWhenCancelled cancels a bundle at each of its stages:
// Create returns the context's error and leaves nothing beside the
// archive it would have written.
func TestCreateStopsWhenCancelled(t *testing.T) {
	for _, stage := range []string{"before", "after reading", "before rendering"} {
		t.Run(stage, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opts := Options{Data: sampleData, Dir: t.TempDir(), Context: ctx}
			switch stage {
			case "before":
				cancel()
			case "after reading":
				opts.afterRead = cancel
			case "before rendering":
				opts.beforeRender = cancel
			}
			if _, err := Create(opts); !errors.Is(err, context.Canceled) {
				t.Fatalf("Create = %v, want context.Canceled", err)
			}
			if left, _ := os.ReadDir(opts.Dir); len(left) > 0 {
				t.Errorf("a cancelled bundle left %v", left)
			}
		})
	}
	// Packing stops at the next file, and at the next write.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, InputsDir), 0o755)
	os.WriteFile(filepath.Join(tree, InputsDir, "cases.jsonl"), []byte("{}\n"), 0o644)
	if _, _, err := packFile(ctx, filepath.Join(t.TempDir(), "b.zip"), tree, PackOptions{Version: "ER-2026.10"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("packFile = %v, want context.Canceled", err)
	}
}

// TestVerifyStopsWhenCancelled: a cancelled verify returns the context's
// error and removes its temporary folder.
func TestVerifyStopsWhenCancelled(t *testing.T) {
	archive := makeBundle(t, sampleData, time.Time{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tmp := t.TempDir()
	if _, err := Verify(archive, VerifyOptions{TempDir: tmp, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Verify = %v, want context.Canceled", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("a cancelled verify left %v", left)
	}
}
