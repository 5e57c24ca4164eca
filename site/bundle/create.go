package bundle

import (
	"bufio"
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
)

// BuildFunc writes the whole report site of the data folder into out and
// returns the evaluated release.
type BuildFunc func(data, out string) (*evaluator.Release, error)

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
	// Build builds the site (site.Build in the command); required.
	Build BuildFunc
	// TempDir holds the staging folder while the site is built; "" is the
	// system's temporary folder.
	TempDir string
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

// Create builds the site of opts.Data and packs it with the inputs into
// one archive, written atomically: a failed bundle leaves no file behind.
func Create(opts Options) (*Created, error) {
	if opts.Build == nil {
		return nil, errors.New("bundle: no site builder given")
	}
	inputs, err := readInputs(opts.Data)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(opts.TempDir, "releasegate-bundle-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	tree := filepath.Join(tmp, "site")
	rel, err := opts.Build(opts.Data, tree)
	if err != nil {
		return nil, err
	}
	if err := sameInputs(opts.Data, inputs, rel); err != nil {
		return nil, err
	}
	if err := addInputs(tree, inputs, rel); err != nil {
		return nil, err
	}
	dir := opts.Dir
	if opts.Output != "" {
		dir = filepath.Dir(opts.Output)
	} else if dir == "" {
		dir = "."
	}
	var packed *Packed
	path, sum, err := writeAtomic(dir, opts.Output, func(w io.Writer) (string, error) {
		packed, err = Pack(w, os.DirFS(tree), PackOptions{Version: versionName(rel), Modified: opts.Modified})
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, packed.Root+".zip"), nil
	})
	if err != nil {
		return nil, err
	}
	return &Created{Packed: *packed, Path: path, SHA256: sum, Release: rel}, nil
}

// readInputs reads the files of the data folder that a bundle keeps:
// the suite's files and every snapshot the evaluation reads.
func readInputs(data string) ([]input, error) {
	var inputs []input
	for _, name := range []string{load.PolicyFile, load.SchemaFile, load.CasesFile, load.GateFile, load.HandoffFile} {
		b, err := os.ReadFile(filepath.Join(data, name))
		if errors.Is(err, fs.ErrNotExist) && (name == load.PolicyFile || name == load.HandoffFile) {
			continue // optional documents
		}
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{path: name, data: b})
	}
	snaps, err := load.Snapshots(data)
	if err != nil {
		return nil, err
	}
	for _, s := range snaps {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, input{path: load.OutputsDir + "/" + filepath.Base(s.Path), data: b})
		// A snapshot's meta.json sets its place and provenance, so
		// the bundle keeps it too.
		metaPath := strings.TrimSuffix(s.Path, ".jsonl") + load.MetaSuffix
		if b, err = os.ReadFile(metaPath); err == nil {
			inputs = append(inputs, input{path: load.OutputsDir + "/" + filepath.Base(metaPath), data: b})
		} else if !errors.Is(err, fs.ErrNotExist) {
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

// sameInputs makes sure the site was built from the very bytes that are
// bundled, in case the data folder changed in between.
func sameInputs(data string, inputs []input, rel *evaluator.Release) error {
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
		if strings.HasPrefix(in.path, load.OutputsDir+"/") && !strings.HasSuffix(in.path, load.MetaSuffix) {
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

// addInputs puts the inputs below inputs/ in the built site, and the
// results files and release report the bundle is verified against. The
// site already holds the latter; writing them from the release makes sure
// they are there and are exactly what verify recomputes.
func addInputs(tree string, inputs []input, rel *evaluator.Release) error {
	if _, err := os.Lstat(filepath.Join(tree, InputsDir)); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("bundle: the built site has its own %s/, where the bundle keeps the inputs", InputsDir)
	}
	put := func(rel string, data []byte) error {
		path := filepath.Join(tree, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	}
	for _, in := range inputs {
		if err := put(InputsDir+"/"+in.path, in.data); err != nil {
			return err
		}
	}
	for _, s := range rel.Snapshots {
		if err := put(ResultsDir+"/"+s.Label()+".json", s.JSON()); err != nil {
			return err
		}
	}
	return put(ReportName, rel.Report())
}

// writeAtomic writes a file in dir through a temporary file and renames
// it into place once complete. The final path is output, or, when that is
// empty, the path write returns once it knows the bundle's name.
func writeAtomic(dir, output string, write func(io.Writer) (string, error)) (path, sum string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp(dir, ".releasegate-bundle-*.tmp")
	if err != nil {
		return "", "", err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
	named, err := write(bw)
	if err != nil {
		return "", "", err
	}
	if err = bw.Flush(); err != nil {
		return "", "", err
	}
	if err = f.Close(); err != nil {
		return "", "", err
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return "", "", err
	}
	path = output
	if path == "" {
		path = named
	}
	if err = os.Rename(tmp, path); err != nil {
		return "", "", err
	}
	return path, hex.EncodeToString(h.Sum(nil)), nil
}
