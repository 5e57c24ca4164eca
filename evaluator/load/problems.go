package load

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"time"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// A run reports every problem of a file, not only the first, so that
// three mistakes take one run to find. The readers stop at the first bad
// line, which keeps them simple and fast on good input; only when one
// fails is the file read again, each time with the lines already
// reported blanked out, so every further problem is worded by the same
// reader, exactly as if it were the first. Blank lines are skipped and
// keep their numbers, so each problem keeps its line.

// countBudget bounds the time spent counting problems beyond the
// MaxProblems reported in full: each costs one more reading of the file.
const countBudget = 2 * time.Second

// maxCounted bounds the problems counted, reported or not.
const maxCounted = 200

// moreProblems returns first together with the problems found by reading
// the file again with load, blanking the lines of the problems found so
// far, up to MaxProblems in full and the number of others. open opens
// the file afresh each time. An error that is not about one line of the
// file (first or found) ends the search; first alone is then returned
// when it was such an error.
func moreProblems(first error, file string, open func() (io.ReadCloser, error), load func(io.Reader) error) error {
	var e *suite.InputError
	if !errors.As(first, &e) || e.File != file || e.Line == 0 {
		return first
	}
	found := []*suite.InputError{e}
	blank := map[int]bool{e.Line: true}
	deadline := time.Now().Add(countBudget)
	capped := false
	for {
		if len(found) >= maxCounted || (len(found) > suite.MaxProblems && time.Now().After(deadline)) {
			capped = true
			break
		}
		rc, err := open()
		if err != nil {
			break
		}
		err = load(&blankLines{r: bufio.NewReaderSize(rc, 64<<10), blank: blank})
		rc.Close()
		var next *suite.InputError
		if !errors.As(err, &next) || next.File != file || next.Line == 0 || blank[next.Line] {
			break
		}
		found = append(found, next)
		blank[next.Line] = true
	}
	if len(found) == 1 {
		return first
	}
	slices.SortStableFunc(found, func(a, b *suite.InputError) int { return a.Line - b.Line })
	out := &suite.InputErrors{Problems: found}
	if len(found) > suite.MaxProblems {
		out.Problems, out.More = found[:suite.MaxProblems], len(found)-suite.MaxProblems
	}
	out.Uncounted = capped
	return out
}

// JoinProblems is the error of a run whose parts failed with errs (nil
// for a part that did not): the input problems of all of them, in the
// order given, up to MaxProblems in full and a count of the rest; or the
// first error that is not about input, if any is not.
func JoinProblems(errs []error) error {
	var all []*suite.InputError
	more, uncounted := 0, false
	for _, err := range errs {
		if err == nil {
			continue
		}
		ps := suite.Problems(err)
		if ps == nil {
			return err
		}
		all = append(all, ps...)
		if m, ok := err.(*suite.InputErrors); ok {
			more += m.More
			uncounted = uncounted || m.Uncounted
		}
	}
	switch {
	case len(all) == 0:
		return nil
	case len(all) == 1 && more == 0:
		return all[0]
	}
	out := &suite.InputErrors{Problems: all, More: more, Uncounted: uncounted}
	if len(all) > suite.MaxProblems {
		out.Problems, out.More = all[:suite.MaxProblems], more+len(all)-suite.MaxProblems
	}
	return out
}

// OutputProblems is err, from reading the snapshot file with Outputs,
// together with the snapshot's other problems (see moreProblems).
func OutputProblems(err error, file SnapshotFile, s *suite.Suite) error {
	return moreProblems(err, file.Path,
		func() (io.ReadCloser, error) { return file.Open() },
		func(r io.Reader) error {
			_, err := Outputs(file.Path, r, s, func(int, *suite.Output) error { return nil })
			return err
		})
}

// caseProblems is err, from reading the cases file at path with Cases,
// together with the suite's other problems (see moreProblems). named
// says the file was named on the command line rather than found in the
// data folder dir.
func caseProblems(err error, dir, path string, named bool, schema *CaseSchema, policy *suite.Policy) error {
	return moreProblems(err, path,
		func() (io.ReadCloser, error) {
			if named {
				return OpenNamed(path)
			}
			return Open(dir, path)
		},
		func(r io.Reader) error {
			_, err := Cases(path, r, schema, policy, false)
			return err
		})
}

// blankLines reads r with the lines numbered in blank left empty: their
// line ends stay, so every other line keeps its number.
type blankLines struct {
	r       *bufio.Reader
	blank   map[int]bool
	line    int // the lines read to their end
	pending []byte
	err     error
}

func (b *blankLines) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		chunk, err := b.r.ReadSlice('\n')
		ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if b.blank[b.line+1] {
			chunk = chunk[:0]
			if ended {
				chunk = []byte{'\n'}
			}
		}
		if ended {
			b.line++
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			b.err = err
		}
		b.pending = chunk
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}
