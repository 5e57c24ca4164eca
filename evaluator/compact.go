package evaluator

import (
	"errors"
	"os"
	"sync"

	"github.com/releasegate/releasegate/evaluator/load"
	"github.com/releasegate/releasegate/evaluator/suite"
)

// compactOutput is out kept as the place of its line and the fields
// every page reads (Options.CompactOutputs). Its id is its case's, the
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
}

// Whole returns o itself unless it was kept compact
// (Options.CompactOutputs), and otherwise the output read again from the
// snapshot's file, calls and citations included. Pages that show an
// output whole call it, on any goroutine. It fails when the file has
// changed since it was judged, or the release was closed.
func (s *Snapshot) Whole(o *suite.Output) (*suite.Output, error) {
	if o == nil || !o.Compact() {
		return o, nil
	}
	src := s.outputs
	if src == nil {
		return nil, errors.New("evaluator: a compact output of a snapshot that keeps no file")
	}
	p, _ := src.parsers.Get().(*load.OutputParser)
	if p == nil {
		p = load.NewOutputParser()
	}
	defer src.parsers.Put(p)
	return p.ReadAt(src.f, src.path, o)
}

// Close closes the outputs files that snapshots kept compact hold open
// (Options.CompactOutputs); their outputs can no longer be read whole.
// Without compact snapshots it does nothing.
func (rel *Release) Close() error {
	var errs []error
	for _, s := range rel.Snapshots {
		if s != nil && s.outputs != nil {
			errs = append(errs, s.outputs.f.Close())
		}
	}
	return errors.Join(errs...)
}
