package evaluator

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// compactOutput is out kept as the place of its line and the fields
// every page reads (Options.Compact). Its id is its case's, the
// same string.
func compactOutput(c *suite.Case, out *suite.Output, at suite.LinePlace) *suite.Output {
	return &suite.Output{CaseID: c.ID, Decision: out.Decision, LatencyMS: out.LatencyMS, CostUSD: out.CostUSD,
		Trial: out.Trial, Line: out.Line, Place: at}
}

// outputsFile is the outputs file a snapshot kept compact was read from,
// held open so that its lines are read again from the bytes judged: a
// file replaced since is still read as it was, and one written over is
// found out by each line's CRC.
type outputsFile struct {
	path    string
	f       *os.File
	parsers sync.Pool // of *load.OutputParser, one per goroutine at a time
	// closed is set by Release.Close: a parser may still hold lines read
	// before, which are not to be given out after it.
	closed atomic.Bool
}

// Whole returns o itself unless it was kept compact
// (Options.Compact), and otherwise the output read again from the
// snapshot's file, calls and citations included. Pages that show an
// output whole call it, on any goroutine. It fails when the file has
// changed since it was judged, or the release was closed.
func (s *Snapshot) Whole(o *suite.Output) (*suite.Output, error) {
	if o == nil || !o.Compact() {
		return o, nil
	}
	src := s.outputs
	if src == nil || src.closed.Load() {
		return nil, fmt.Errorf("%s: line %d: the release was closed, and its outputs can no longer be read", s.Label(), o.Line)
	}
	p, _ := src.parsers.Get().(*load.OutputParser)
	if p == nil {
		p = load.NewOutputParser()
	}
	defer src.parsers.Put(p)
	return p.ReadAt(src.f, src.path, o)
}

// Close closes the files a release evaluated with Options.Compact holds
// open: its outputs and its cases' inputs can no longer be read again.
// Otherwise it does nothing.
func (rel *Release) Close() error {
	var errs []error
	for _, s := range rel.Snapshots {
		if s != nil && s.outputs != nil && !s.outputs.closed.Swap(true) {
			errs = append(errs, s.outputs.f.Close())
		}
	}
	if rel.Suite != nil && rel.Suite.Inputs != nil {
		errs = append(errs, rel.Suite.Inputs.Close())
	}
	return errors.Join(errs...)
}
