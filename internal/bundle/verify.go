package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site"
)

// VerifyOptions tune Verify.
type VerifyOptions struct {
	Limits Limits // zero fields take DefaultLimits
	// TempDir is where the temporary extraction folder is made; "" means
	// the system's temporary folder. The folder is removed afterwards.
	TempDir string
	// Producer names this releasegate, as Options.Producer does; a bundle
	// whose VERSION names another is told apart in the report.
	Producer string
	// Context stops the verification when done (Ctrl-C): Verify returns
	// its error and removes the temporary folder. Nil means never.
	Context context.Context
}

// SnapshotCheck is one snapshot's decision as bundled and as recomputed.
type SnapshotCheck struct {
	Label      string
	Bundled    decide.Decision // "" when the bundled results file is missing or unreadable
	Recomputed decide.Decision
}

// Report is the outcome of verifying a bundle.
type Report struct {
	Archive   string
	SHA256    string // of the archive file, to compare with a recorded one
	Root      string // the bundle's top folder
	Files     int    // files listed in MANIFEST
	Snapshots []SnapshotCheck
	Problems  []Problem // every reason the bundle is not verified
	// MadeBy is the releasegate named in the bundle's VERSION ("" when it
	// has none); OtherVersion says it is not this one, so pages may differ
	// by design and only the results and the report can be proven.
	MadeBy       string
	OtherVersion bool
	Rebuilt      int // files of the site rebuilt from inputs/ and compared
}

// Verified reports whether no problem was found.
func (r *Report) Verified() bool { return len(r.Problems) == 0 }

// Verify unpacks the bundle archive into a temporary folder, checks every
// file against MANIFEST, and builds the site again from the bundled inputs:
// every file of the bundle (pages, assets, results, report) must be
// byte-identical to the rebuild, and every file of the rebuild must be in
// the bundle. It reports every problem it finds, not just the first. The
// error is for an archive that cannot be read or is refused as unsafe (a
// *RefusedError).
func Verify(archive string, opts VerifyOptions) (*Report, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	sum, err := fileSHA256(archive)
	if err != nil {
		return nil, err
	}
	parent := opts.TempDir
	if parent == "" {
		parent = os.TempDir()
	}
	stage, err := publish.NewStage(parent, "releasegate-verify-")
	if err != nil {
		return nil, err
	}
	defer stage.Remove()
	x, err := extract(ctx, archive, filepath.Join(stage.Dir, "bundle"), opts.Limits)
	if err != nil {
		return nil, err
	}
	rep := &Report{Archive: archive, SHA256: sum, Root: x.Root}
	v := &verifier{x: x, rep: rep, me: producerLine(opts.Producer)}
	v.checkManifest()
	v.checkRootName()
	v.checkProducer(v.me)
	if err := v.rebuild(ctx); err != nil {
		return nil, err
	}
	return rep, nil
}

func fileSHA256(path string) (string, error) {
	f, err := load.OpenNamed(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// verifier holds one verification in progress.
type verifier struct {
	x   *Extracted
	rep *Report
	me  string // this releasegate, as VERSION would name it
}

func (v *verifier) own() string { return v.me }

func (v *verifier) problem(path, kind, format string, args ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{Path: path, Kind: kind, Detail: fmt.Sprintf(format, args...)})
}

// read returns a bundled file, or nil when the bundle has none.
func (v *verifier) read(rel string) []byte {
	if _, ok := v.x.Sums[rel]; !ok {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(v.x.Dir, filepath.FromSlash(rel)))
	if err != nil {
		v.problem(rel, Unproven, "cannot be read back: %v", err)
		return nil
	}
	return data
}

// checkManifest reports every missing, extra and altered file.
func (v *verifier) checkManifest() {
	data := v.read(ManifestName)
	if data == nil {
		v.problem(ManifestName, Missing, "the bundle has no MANIFEST, so its files cannot be checked")
		return
	}
	listed, problems := parseManifest(data)
	v.rep.Problems = append(v.rep.Problems, problems...)
	v.rep.Files = len(listed)
	for _, p := range slices.Sorted(maps.Keys(listed)) {
		got, ok := v.x.Sums[p]
		switch {
		case !ok:
			v.problem(p, Missing, "listed in MANIFEST, not in the archive")
		case got != listed[p]:
			v.problem(p, Altered, "its SHA-256 is %s…, MANIFEST lists %s…", got[:16], listed[p][:16])
		}
	}
	for _, p := range slices.Sorted(maps.Keys(v.x.Sums)) {
		if _, ok := listed[p]; !ok && p != ManifestName {
			v.problem(p, Extra, "in the archive, not listed in MANIFEST")
		}
	}
}

// checkRootName compares the inputs hash in the top folder's name with
// the bundled inputs.
func (v *verifier) checkRootName() {
	_, want, ok := parseRootName(v.x.Root)
	if !ok {
		v.problem(v.x.Root+"/", Invalid, "the top folder is not named releasegate-<policy version>-<inputs hash>")
		return
	}
	var sums []fileSum
	for p, s := range v.x.Sums {
		sums = append(sums, fileSum{Path: p, Sum: s})
	}
	if got := inputsHash(sums); got != want {
		v.problem(InputsDir+"/", Altered, "the inputs hash to %s, but the top folder is named after %s", got, want)
	}
}

// checkProducer reads VERSION and notes whether another releasegate made
// the bundle.
func (v *verifier) checkProducer(own string) {
	data := v.read(VersionName)
	if data == nil {
		v.rep.MadeBy, v.rep.OtherVersion = "", true
		return
	}
	v.rep.MadeBy = strings.TrimSpace(string(data))
	v.rep.OtherVersion = v.rep.MadeBy != own
}

// rebuild builds the site again from the bundled inputs and compares it,
// file by file, with the bundle. Files that already failed the MANIFEST
// check are not named twice. Its error is ctx's, when done before the end.
func (v *verifier) rebuild(ctx context.Context) error {
	f := &rebuildFindings{named: map[string]bool{}}
	for _, p := range v.rep.Problems {
		f.named[p.Path] = true
	}
	in, ok, err := v.loadInputs(ctx)
	if !ok {
		return err
	}
	defer in.Release.Close()
	rel := in.Release
	if version, _, ok := parseRootName(v.x.Root); ok && version != versionName(rel) {
		v.problem(InputsDir+"/"+"POLICY.md", Differs, "policy version is %s, but the top folder is named after %s", versionName(rel), version)
	}
	rebuilt, err := v.compareRendered(ctx, in, f)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if err != nil {
		v.problem(InputsDir+"/", Unproven, "the site cannot be built again from the bundled inputs: %v", err)
		return nil
	}
	v.rep.Rebuilt = len(rebuilt)
	v.noteNotRebuilt(rebuilt, f)
	slices.SortStableFunc(f.found, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	v.rep.Problems = append(v.rep.Problems, f.found...)
	v.checkDecisions(rel)
	return nil
}

// rebuildFindings are the problems the rebuild finds, apart from files
// already named by an earlier check.
type rebuildFindings struct {
	named map[string]bool
	found []Problem
}

// add notes a problem with path, unless path is already named.
func (f *rebuildFindings) add(path, kind, format string, args ...any) {
	if !f.named[path] {
		f.found = append(f.found, Problem{Path: path, Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
}

// loadInputs evaluates the bundled inputs again. Without ok the rebuild
// ends, with ctx's error or, when the inputs cannot be evaluated, with
// that noted as a problem and no error.
func (v *verifier) loadInputs(ctx context.Context) (in *site.Input, ok bool, err error) {
	inputs := filepath.Join(v.x.Dir, InputsDir)
	in, err = loadSite(ctx, inputs)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, false, ctxErr
	}
	if err != nil {
		// Name files as they are inside the bundle, not in the temporary folder.
		msg := strings.ReplaceAll(err.Error(), v.x.Dir+string(filepath.Separator), "")
		v.problem(InputsDir+"/", Unproven, "the bundled inputs cannot be evaluated again: %s", msg)
		return nil, false, nil
	}
	return in, true, nil
}

// compareRendered builds the site from in and compares each file with the
// bundled one, noting the differences in f; rebuilt holds the paths built.
func (v *verifier) compareRendered(ctx context.Context, in *site.Input, f *rebuildFindings) (rebuilt map[string]bool, err error) {
	rebuilt = map[string]bool{}
	err = site.Render(in, func(path string, fresh []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rebuilt[path] = true
		if _, ok := v.x.Sums[path]; !ok {
			f.add(path, Missing, "the site rebuilt from inputs/ has this file; the bundle does not")
			return nil
		}
		bundled := v.read(path)
		if bundled == nil || bytes.Equal(bundled, fresh) {
			return nil
		}
		v.noteDifference(f, path, bundled, fresh)
		return nil
	})
	return rebuilt, err
}

// noteDifference words how a bundled file differs from the rebuilt one:
// field by field for results, line by line for the rest, and as unproven
// for a page another releasegate made.
func (v *verifier) noteDifference(f *rebuildFindings, path string, bundled, fresh []byte) {
	switch {
	case strings.HasPrefix(path, ResultsDir+"/") && strings.HasSuffix(path, ".json"):
		f.add(path, Differs, "%s", describeJSONDiff(bundled, fresh))
	case path == ReportName:
		f.add(path, Differs, "%s", describeTextDiff(bundled, fresh))
	case v.rep.OtherVersion:
		f.add(path, Unproven, "differs from this releasegate's rebuild (%s), which cannot prove a page made by %s: %s", v.own(), v.madeBy(), describeTextDiff(bundled, fresh))
	default:
		f.add(path, Differs, "not what the bundled inputs build: %s", describeTextDiff(bundled, fresh))
	}
}

// noteNotRebuilt names the bundled files the rebuild did not write, apart
// from the manifest, VERSION and the inputs: a results file without its
// snapshot, or a file that is no part of the site.
func (v *verifier) noteNotRebuilt(rebuilt map[string]bool, f *rebuildFindings) {
	for _, p := range slices.Sorted(maps.Keys(v.x.Sums)) {
		if rebuilt[p] || p == ManifestName || p == VersionName || strings.HasPrefix(p, InputsDir+"/") {
			continue
		}
		if strings.HasPrefix(p, ResultsDir+"/") && strings.HasSuffix(p, ".json") {
			label := strings.TrimSuffix(strings.TrimPrefix(p, ResultsDir+"/"), ".json")
			f.add(p, Differs, "no snapshot %s/outputs/%s.jsonl to recompute it from", InputsDir, label)
			continue
		}
		f.add(p, Extra, "not part of the site the bundled inputs build: no page, script or asset of that name is written by releasegate")
	}
}

// checkDecisions sets, for each snapshot, the decision recomputed from the
// inputs beside the one its bundled results file records.
func (v *verifier) checkDecisions(rel *evaluator.Release) {
	for _, s := range rel.Snapshots {
		check := SnapshotCheck{Label: s.Label(), Recomputed: s.Result.Decision}
		if bundled := v.read(ResultsDir + "/" + s.Label() + ".json"); bundled != nil {
			var b struct {
				Decision decide.Decision `json:"decision"`
			}
			if json.Unmarshal(bundled, &b) == nil {
				check.Bundled = b.Decision
			}
		}
		v.rep.Snapshots = append(v.rep.Snapshots, check)
	}
}

func (v *verifier) madeBy() string {
	if v.rep.MadeBy == "" {
		return "a releasegate that wrote no VERSION"
	}
	return v.rep.MadeBy
}

// maxDiffs bounds the differences named for one file.
const maxDiffs = 3

// describeJSONDiff names the first fields where a bundled results file
// differs from the recomputed one: `decision: "BLOCK" in the bundle,
// "PASS" recomputed`.
func describeJSONDiff(bundled, fresh []byte) string {
	decode := func(b []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	got, err := decode(bundled)
	if err != nil {
		return fmt.Sprintf("not valid JSON (%v); the recomputed results differ", err)
	}
	want, _ := decode(fresh)
	var diffs []string
	jsonDiff("", got, want, &diffs)
	switch {
	case len(diffs) == 0:
		return "same values as recomputed, but different bytes (formatting)"
	case len(diffs) > maxDiffs:
		return strings.Join(diffs[:maxDiffs], "; ") + fmt.Sprintf("; and %d more differences", len(diffs)-maxDiffs)
	}
	return strings.Join(diffs, "; ")
}

// jsonDiff appends a line per differing value, by JSON path.
func jsonDiff(path string, got, want any, out *[]string) {
	field := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if gv, ok := g[k]; ok {
				jsonDiff(field(k), gv, w[k], out)
			} else {
				*out = append(*out, fmt.Sprintf("%s: absent in the bundle, %s recomputed", field(k), brief(w[k])))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				*out = append(*out, fmt.Sprintf("%s: %s in the bundle, absent recomputed", field(k), brief(g[k])))
			}
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			jsonDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i], out)
		}
		return
	default:
		if fmt.Sprint(got) == fmt.Sprint(want) && sameKind(got, want) {
			return
		}
	}
	if path == "" {
		path = "(whole file)"
	}
	*out = append(*out, fmt.Sprintf("%s: %s in the bundle, %s recomputed", path, brief(got), brief(want)))
}

func sameKind(a, b any) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }

// brief writes a JSON value short enough for a one-line message.
func brief(v any) string {
	b, _ := json.Marshal(v)
	return clip(string(b))
}

// describeTextDiff names the first line where two texts differ.
func describeTextDiff(bundled, fresh []byte) string {
	g, w := strings.Split(string(bundled), "\n"), strings.Split(string(fresh), "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			at := commonPrefix(g[i], w[i])
			if at <= diffLead {
				return fmt.Sprintf("line %d: %q in the bundle, %q recomputed", i+1, clip(g[i]), clip(w[i]))
			}
			// A long line (a page's) differs far in: show where.
			return fmt.Sprintf("line %d, byte %d: %q in the bundle, %q recomputed", i+1, at+1, around(g[i], at), around(w[i], at))
		}
	}
	if len(g) < len(w) {
		return fmt.Sprintf("the bundle's copy ends at line %d; recomputed it goes on with %q", len(g), clip(w[len(g)]))
	}
	return fmt.Sprintf("the recomputed report ends at line %d; the bundle's copy goes on with %q", len(w), clip(g[len(w)]))
}

// diffLead is how much of a line is shown before the first difference.
const diffLead = 24

// commonPrefix is the length in bytes of the longest common prefix of a
// and b.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// around clips s to a window starting diffLead bytes before at, on a
// character boundary, marking what is cut with "…".
func around(s string, at int) string {
	start := at - diffLead
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	return "…" + clip(s[start:])
}
