// Package site builds a release's report site: it loads and evaluates a
// data folder, models the pages (site/pages), renders them
// (site/internal/render) and writes the whole site atomically
// (internal/publish), so a failed build leaves the output as it was. The
// site has the release overview, a page per snapshot, a drilldown per
// case of each snapshot, a history page per case, the policy with its
// rule anchors, the handoff note, the results files and the release
// report; above pages.DefaultGroupAbove results, results and histories
// share pages of consecutive cases. Every link is relative, so a build
// works at a domain root, under a sub-path and from disk, and two builds
// of the same inputs are byte-identical.
package site

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync/atomic"

	"github.com/releasegate/releasegate"
	"github.com/releasegate/releasegate/evaluator"
	"github.com/releasegate/releasegate/evaluator/decide"
	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/internal/publish"
	"github.com/releasegate/releasegate/site/internal/render"
	"github.com/releasegate/releasegate/site/pages"
)

// Input is everything the site shows: the evaluated release and the
// handoff note (see pages.Input).
type Input = pages.Input

// Emit receives each file of a site as it is rendered (see render.Emit).
type Emit = render.Emit

// Paths lists the files of the site in the order Render emits them.
func Paths(in *Input) ([]string, error) { return render.Paths(in) }

// BuildOptions tune Build.
type BuildOptions struct {
	// Context stops the build when done: files stop being written and the
	// staged site is removed. Nil means never.
	Context context.Context
	// Web holds templates/ and assets/; nil means the embedded copies.
	Web fs.FS
	// Progress, when set, is told how many files are written so far.
	Progress func(done, total int)
	// Warn, when set, is told of what is worth a warning but does not
	// stop the build: a sentence of HANDOFF.md that contradicts a
	// computed decision.
	Warn func(msg string)
	// Written, when set, is told the size of the site written.
	Written func(files int, bytes int64)
	// GroupAbove is the number of results (cases × snapshots) above which
	// results and case histories share pages; 0 means pages.DefaultGroupAbove.
	GroupAbove int
	// Gates are the gates the release is decided by and the pages show;
	// nil is decide.DefaultGates.
	Gates decide.Gates
	// Evaluated, when set, is called once the release is evaluated and
	// before any page is rendered: where the build command fits its
	// memory limit to the release (FitMemoryLimit).
	Evaluated func()
}

// Build evaluates the data folder and writes the whole site to out
// atomically: a failed build leaves out as it was. A missing HANDOFF.md
// is no error: the site then has no handoff page and links to none. The
// release returned is closed (evaluator.Release.Close).
func Build(data, out string, opts BuildOptions) (*evaluator.Release, error) {
	if err := CheckOut(data, out); err != nil {
		return nil, err
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	web := opts.Web
	if web == nil {
		web = releasegate.Web()
	}
	r, err := render.NewRenderer(web)
	if err != nil {
		return nil, err
	}
	in, err := LoadGates(data, opts.Gates)
	if err != nil {
		return nil, err
	}
	// The release returned has been rendered: its outputs are not read
	// whole again.
	defer in.Release.Close()
	if opts.Evaluated != nil {
		opts.Evaluated()
	}
	in.GroupAbove = opts.GroupAbove
	v, err := render.NewView(in)
	if err != nil {
		return nil, err
	}
	tree, err := publish.NewTree(ctx, out)
	if err != nil {
		return nil, err
	}
	// The tree takes writes from any goroutine. Creating a file waits on
	// the disk rather than the processor, so several writers keep the
	// render workers busy meanwhile (see "Fast paths" in docs/design.md).
	var files atomic.Int64
	var size atomic.Int64
	write := func(path string, data []byte) error {
		files.Add(1)
		size.Add(int64(len(data)))
		return tree.Write(path, data)
	}
	if err := r.Run(r.AllJobs(v), write, render.RunOptions{Writers: fileWriters, Reuse: true, Progress: opts.Progress}); err != nil {
		tree.Abort()
		return nil, err
	}
	if err := tree.Commit(); err != nil {
		return nil, err
	}
	if opts.Warn != nil {
		for _, w := range in.Warnings() {
			opts.Warn(w)
		}
	}
	if opts.Written != nil {
		opts.Written(int(files.Load()), size.Load())
	}
	return in.Release, nil
}

// BuildMemoryLimit is the soft limit on the Go heap that the build
// command sets when GOMEMLIMIT is not set. The garbage collector then
// works harder near it instead of letting the heap double: a build of
// 100,000 cases × 3 holds about 145 MiB of evaluated release, its live
// heap peaks near 250 MiB while the pages are rendered, and under the
// limit it stays under 600 MB of resident memory (docs/design.md,
// "Scale"). A larger suite needs more: FitMemoryLimit raises the limit
// once the release is evaluated.
const BuildMemoryLimit = 512 << 20

// FitMemoryLimit returns the soft heap limit to render a release under,
// given live, the heap live once it was evaluated: BuildMemoryLimit, or
// two and a half times what is live, when more, which leaves room for
// the pages in flight and their garbage. Below that the collector would
// run without pause: at 300,000 cases × 3 (435 MiB live), under 544 MiB
// the build took 61 s of processor time, against 24 s without a limit.
func FitMemoryLimit(live uint64) int64 {
	return max(BuildMemoryLimit, int64(live*5/2))
}

// fileWriters is how many goroutines write a build's files.
const fileWriters = 4

// Load is the pipeline of every command that shows or packs a release
// (build, bundle, verify, serve): it runs load → judge → decide over the
// data folder (evaluator.EvaluateDir) with every output kept for the
// pages, and reads its HANDOFF.md, which may be missing. Outputs are kept
// compact, their files open until the caller closes the release
// (evaluator.Options.Compact): the site is rendered once.
// LoadRemembering, for a server that judges them again, keeps them whole.
func Load(data string) (*Input, error) { return LoadGates(data, nil) }

// LoadGates is Load deciding by gates (nil is decide.DefaultGates).
func LoadGates(data string, gates decide.Gates) (*Input, error) {
	return loadKept(data, evaluator.Options{Gates: gates, Compact: true})
}

// LoadRemembering is Load parsing only the case and output lines that
// cases and outputs do not remember from the last reading of their file,
// and remembering this reading's (see evaluator.Options.CaseLines and
// OutputLines): what a live server reads the folder with.
func LoadRemembering(data string, cases *load.CaseLines, outputs func(label string) *load.OutputLines) (*Input, error) {
	return loadKept(data, evaluator.Options{CaseLines: cases, OutputLines: outputs})
}

// loadKept evaluates the data folder keeping what every page needs.
func loadKept(data string, opts evaluator.Options) (*Input, error) {
	opts.KeepOutputs, opts.KeepInputs = true, true
	rel, err := evaluator.EvaluateDir(data, opts)
	if err != nil {
		return nil, err
	}
	handoff, err := ReadHandoff(data)
	if err != nil {
		return nil, err
	}
	return &pages.Input{Release: rel, Handoff: handoff}, nil
}

// ReadHandoff reads the data folder's HANDOFF.md under the rules of every
// input (a regular file inside the folder, at most 16 MiB); nil when there
// is none.
func ReadHandoff(data string) ([]byte, error) {
	handoff, err := load.ReadFile(data, filepath.Join(data, load.HandoffFile), load.MaxDocumentBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return handoff, err
}

// Render renders every file of the site of in with the embedded templates
// and assets, handing each to emit: what Build writes, without a folder.
func Render(in *Input, emit Emit) error {
	r, err := render.NewRenderer(releasegate.Web())
	if err != nil {
		return err
	}
	return r.RenderAll(in, emit)
}

// CheckOut refuses an output folder whose replacement would destroy
// something releasegate did not write (docs/ownership.md): the data
// folder, a folder holding it or inside it, however the paths are
// spelled, or a folder that is not empty and not wholly releasegate's.
func CheckOut(data, out string) error {
	var paths publish.Paths
	paths.Input("the data folder (--data)", data)
	paths.Output("--out", out)
	if err := paths.Check(); err != nil {
		return err
	}
	return publish.CheckOwned(out)
}
