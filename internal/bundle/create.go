package bundle

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site"
)

// Options tune Create.
type Options struct {
	Data string // the data folder
	// Output is the archive to write; "" means <policy version and inputs
	// hash>.zip in Dir.
	Output string
	Dir    string // where a default-named archive goes; "" is the current folder
	// Modified is the time of every entry, from SOURCE_DATE_EPOCH; zero
	// derives it from the policy version (see ModTime).
	Modified time.Time
	// Producer names the releasegate that makes the bundle
	// ("releasegate v1.2.0"); it is written to VERSION, and verify
	// compares it with its own.
	Producer string
	// Context stops the bundle when done; the staging folder is removed.
	// Nil means never.
	Context context.Context
	// Limits are the ones verify will apply; the archive must stay within
	// them. Zero fields take DefaultLimits.
	Limits Limits

	// afterRead, when set, runs between reading the data folder's files
	// for the archive and evaluating them (tests change the data there).
	afterRead func()
	// beforeRender, when set, runs just before the first page is
	// rendered (tests count what got that far).
	beforeRender func()
}

// Created describes a bundle written by Create.
type Created struct {
	Packed
	Path    string // the archive written
	SHA256  string // of the archive
	Release *evaluator.Release
}

// input is one input file, read once: the bundled bytes are exactly the
// bytes whose hashes the evaluation recorded.
type input struct {
	path string // slash path below inputs/
	data []byte
}

// stagePrefix names Create's staging folders beside the archive.
const stagePrefix = ".releasegate-bundle-"

// Create evaluates opts.Data, renders its site and packs it with the
// inputs into one archive, written atomically: a failed or interrupted
// bundle leaves no file behind. It refuses, as bad input, what Verify
// would refuse: names equal under case folding, too many entries, files
// too large.
func Create(opts Options) (*Created, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	limits := opts.Limits.withDefaults()
	if opts.Output != "" {
		if err := checkOutput(opts.Data, opts.Output); err != nil {
			return nil, err
		}
	}
	inputs, err := readBundleInputs(opts.Data, limits)
	if err != nil {
		return nil, err
	}
	if opts.afterRead != nil {
		opts.afterRead()
	}
	in, err := evaluateInputs(ctx, opts.Data, inputs, limits)
	if err != nil {
		return nil, err
	}
	defer in.Release.Close()
	rel := in.Release
	dir := stageParent(opts)
	stage, err := publish.NewStage(dir, stagePrefix)
	if err != nil {
		return nil, err
	}
	defer stage.Remove()
	tree := filepath.Join(stage.Dir, "site")
	files := &treeWriter{ctx: ctx, root: tree, dirs: map[string]bool{}}
	if opts.beforeRender != nil {
		opts.beforeRender()
	}
	if err := writeTree(files, in, inputs, opts.Producer); err != nil {
		return nil, err
	}
	tmp := filepath.Join(stage.Dir, "bundle.zip")
	packed, sum, err := packFile(ctx, tmp, tree, PackOptions{Version: versionName(rel), Modified: opts.Modified})
	if err != nil {
		return nil, err
	}
	if err := checkPacked(tmp, limits); err != nil {
		return nil, err
	}
	path, err := placeArchive(ctx, opts, tmp, filepath.Join(dir, packed.Root+".zip"))
	if err != nil {
		return nil, err
	}
	return &Created{Packed: *packed, Path: path, SHA256: sum, Release: rel}, nil
}

// readBundleInputs reads the inputs of the data folder and refuses names
// and sizes a bundle cannot hold. The inputs are read first, so that these
// are refused in the time it takes to read them, before the evaluation.
func readBundleInputs(data string, limits Limits) ([]input, error) {
	inputs, err := readInputs(data, limits)
	if err != nil {
		return nil, err
	}
	if err := checkNames(data, inputs); err != nil {
		return nil, err
	}
	if err := checkSizes(data, inputs, limits); err != nil {
		return nil, err
	}
	return inputs, nil
}

// evaluateInputs evaluates the data folder, checking that the evaluation
// read the very bytes that are bundled. What verify would refuse and the
// evaluated release already shows is refused before a page is rendered;
// the finished archive is checked again.
func evaluateInputs(ctx context.Context, data string, inputs []input, limits Limits) (*site.Input, error) {
	in, err := loadSite(ctx, data)
	if err != nil {
		return nil, err
	}
	if err := checkInputs(data, in, inputs, limits); err != nil {
		in.Release.Close()
		return nil, err
	}
	return in, nil
}

// checkInputs refuses a release that is not of the bundled inputs, or
// that the bundle could not hold.
func checkInputs(data string, in *site.Input, inputs []input, limits Limits) error {
	if err := sameInputs(data, inputs, in); err != nil {
		return err
	}
	if err := checkFolding(data, in.Release); err != nil {
		return err
	}
	return checkPlan(data, in, inputs, limits)
}

// stageParent is the folder the archive is staged in: the one it is
// written to, so that it is moved into place without a copy.
func stageParent(opts Options) string {
	switch {
	case opts.Output != "":
		return filepath.Dir(opts.Output)
	case opts.Dir == "":
		return "."
	}
	return opts.Dir
}

// writeTree writes what the archive holds: the site rendered from in, the
// inputs below inputs/, and VERSION naming the producer.
func writeTree(files *treeWriter, in *site.Input, inputs []input, producer string) error {
	if err := site.Render(in, files.emit); err != nil {
		return err
	}
	for _, f := range inputs {
		if err := files.put(InputsDir+"/"+f.path, f.data); err != nil {
			return err
		}
	}
	return files.put(VersionName, []byte(producerLine(producer)+"\n"))
}

// placeArchive moves the staged archive tmp to -o, or to named when no -o
// is given, unless done or the place is not the archive's to take.
func placeArchive(ctx context.Context, opts Options, tmp, named string) (string, error) {
	path := opts.Output
	if path == "" {
		path = named
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := checkOutput(opts.Data, path); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	return path, nil
}

// checkOutput refuses an archive path that is or lies inside the data
// folder, or that holds a file other than a bundle (docs/ownership.md).
func checkOutput(data, path string) error {
	var paths publish.Paths
	paths.Input("the data folder (--data)", data)
	paths.Output("-o", path)
	if err := paths.Check(); err != nil {
		return err
	}
	return publish.CheckReplace(path, "-o", LooksLikeBundle)
}

// checkPlan refuses, before anything is rendered, a bundle that verify
// would refuse for its number of entries: the site's files are known from
// the evaluated release.
func checkPlan(data string, in *site.Input, inputs []input, limits Limits) error {
	paths, err := site.Paths(in)
	if err != nil {
		return err
	}
	// The site, the inputs, VERSION and MANIFEST; a bundle has no folder
	// entries.
	entries := len(paths) + len(inputs) + 2
	if entries > limits.MaxEntries {
		return &suite.InputError{File: data, Msg: fmt.Sprintf("cannot be bundled: its site and inputs make %d files, more than the %d a bundle may hold (verify refuses more)", entries, limits.MaxEntries)}
	}
	return nil
}

// checkSizes refuses, before the inputs are evaluated, a bundle that
// verify would refuse for the size of an input or of the inputs together.
func checkSizes(data string, inputs []input, limits Limits) error {
	var total int64
	for _, f := range inputs {
		size := int64(len(f.data))
		if size > limits.MaxFileSize {
			return &suite.InputError{File: filepath.Join(data, filepath.FromSlash(f.path)), Msg: fmt.Sprintf("cannot be bundled: %d bytes, more than the %s a bundled file may hold (verify refuses more)", size, sizeText(limits.MaxFileSize))}
		}
		total += size
	}
	if total > limits.MaxTotalSize {
		return &suite.InputError{File: data, Msg: fmt.Sprintf("cannot be bundled: its inputs alone are %d bytes, more than the %s a bundle may expand to (verify refuses more)", total, sizeText(limits.MaxTotalSize))}
	}
	return nil
}

// sizeText writes a limit as people say it: "1 GiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// producerLine is what VERSION holds.
func producerLine(p string) string {
	if p == "" {
		return "releasegate (unknown version)"
	}
	return p
}

// treeWriter writes rendered files below root. The renderer calls emit
// from one goroutine at a time.
type treeWriter struct {
	ctx  context.Context
	root string
	dirs map[string]bool
}

func (t *treeWriter) emit(path string, data []byte) error {
	if path == ManifestName || path == VersionName || strings.HasPrefix(path, InputsDir+"/") {
		return fmt.Errorf("bundle: the site has its own %s, where the bundle keeps its own", path)
	}
	return t.put(path, data)
}

func (t *treeWriter) put(rel string, data []byte) error {
	if err := t.ctx.Err(); err != nil {
		return err
	}
	path := filepath.Join(t.root, filepath.FromSlash(rel))
	if dir := filepath.Dir(path); !t.dirs[dir] {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		t.dirs[dir] = true
	}
	return os.WriteFile(path, data, 0o644)
}

// readInputs reads the files of the data folder that a bundle keeps: the
// suite's files, HANDOFF.md, and every snapshot with its meta.json. Each
// is read as every input is, a regular file inside the folder within its
// size limit; cases.jsonl and the snapshots within the size a bundled
// file may have, and no further than a line over the line limit.
func readInputs(data string, limits Limits) ([]input, error) {
	var inputs []input
	for _, f := range []struct {
		name  string
		limit int64
	}{
		{load.PolicyFile, load.MaxDocumentBytes},
		{load.SchemaFile, load.MaxDocumentBytes},
		{load.CasesFile, 0}, // JSON Lines
		{load.GateFile, load.MaxSmallJSONBytes},
	} {
		var b []byte
		var err error
		if f.limit == 0 {
			b, err = load.ReadLines(data, filepath.Join(data, f.name), limits.MaxFileSize)
		} else {
			b, err = load.ReadFile(data, filepath.Join(data, f.name), f.limit)
		}
		if errors.Is(err, fs.ErrNotExist) && f.name == load.PolicyFile {
			continue // optional
		}
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{path: f.name, data: b})
	}
	handoff, err := site.ReadHandoff(data)
	if err != nil {
		return nil, err
	}
	if handoff != nil {
		inputs = append(inputs, input{path: load.HandoffFile, data: handoff})
	}
	snaps, err := load.Snapshots(data)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		b, err := load.ReadLines(data, s.Path, limits.MaxFileSize)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{path: load.OutputsDir + "/" + filepath.Base(s.Path), data: b})
		// A snapshot's provenance, when given, is an input of its pages.
		meta := strings.TrimSuffix(s.Path, ".jsonl") + load.MetaSuffix
		b, err = load.ReadFile(data, meta, load.MaxSmallJSONBytes)
		switch {
		case err == nil:
			inputs = append(inputs, input{path: load.OutputsDir + "/" + filepath.Base(meta), data: b})
		case !errors.Is(err, fs.ErrNotExist):
			return nil, err
		}
	}
	return inputs, nil
}

// versionName is the policy version a bundle is named after, "no-policy"
// for a data folder without POLICY.md.
func versionName(rel *evaluator.Release) string {
	if v := rel.Suite.PolicyVersion(); v != "" {
		return v
	}
	return "no-policy"
}

// sameInputs makes sure the site is built from the very bytes that are
// bundled, in case the data folder changed in between.
func sameInputs(data string, inputs []input, in *site.Input) error {
	rel := in.Release
	bundled := false
	for _, f := range inputs {
		if f.path == load.HandoffFile {
			bundled = true
			if !bytes.Equal(f.data, in.Handoff) {
				return changedError(data, f.path)
			}
		}
	}
	if !bundled && len(in.Handoff) > 0 {
		return changedError(data, load.HandoffFile)
	}
	want := map[string]string{
		load.PolicyFile: rel.Suite.PolicySHA256,
		load.CasesFile:  rel.Suite.CasesSHA256,
		load.GateFile:   rel.Suite.GateSHA256,
	}
	for _, s := range rel.Snapshots {
		want[load.OutputsDir+"/"+s.Label()+".jsonl"] = s.Result.Inputs.OutputsSHA256
	}
	outputs := 0
	for _, in := range inputs {
		sum, checked := want[in.path]
		if strings.HasPrefix(in.path, load.OutputsDir+"/") && strings.HasSuffix(in.path, ".jsonl") {
			outputs++
			if !checked {
				return changedError(data, in.path)
			}
		}
		if checked && sum != sumHex(in.data) {
			return changedError(data, in.path)
		}
	}
	if outputs != len(rel.Snapshots) {
		return changedError(data, load.OutputsDir)
	}
	return nil
}

func changedError(data, path string) error {
	return fmt.Errorf("%s changed while the bundle was being made; run bundle again", filepath.Join(data, filepath.FromSlash(path)))
}

// checkFolding refuses snapshot labels of the evaluated release that
// differ only in case: their pages would share a name on a
// case-insensitive disk, and verify refuses such an archive. checkNames
// has checked the file names already; this checks what was evaluated.
func checkFolding(data string, rel *evaluator.Release) error {
	labels := map[string]string{}
	for _, s := range rel.Snapshots {
		folded := strings.ToLower(s.Label())
		if prev, ok := labels[folded]; ok {
			return labelsFold(data, s.Label(), prev)
		}
		labels[folded] = s.Label()
	}
	return nil
}

// packFile packs the folder tree into a new archive at path and returns
// its description and SHA-256.
func packFile(ctx context.Context, path, tree string, opts PackOptions) (*Packed, string, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(contextWriter{ctx, io.MultiWriter(f, h)}, 1<<16)
	packed, err := Pack(bw, contextFS{ctx, os.DirFS(tree)}, opts)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", err
	}
	return packed, hex.EncodeToString(h.Sum(nil)), nil
}

// checkPacked runs verify's archive checks on a written bundle, so that
// bundle never hands over an archive its own verify refuses.
func checkPacked(path string, limits Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return err
	}
	_, _, err = checkEntries(path, zr.File, limits.withDefaults())
	if err == nil {
		err = checkLayout(path, f, st.Size(), zr.File)
	}
	if err != nil {
		var refused *RefusedError
		if errors.As(err, &refused) {
			return fmt.Errorf("bundle: the site cannot be bundled: verify would refuse it: %s", refused.Reason+entrySuffix(refused.Entry))
		}
		return err
	}
	return nil
}

func entrySuffix(entry string) string {
	if entry == "" {
		return ""
	}
	return fmt.Sprintf(" (entry %q)", clip(entry))
}
