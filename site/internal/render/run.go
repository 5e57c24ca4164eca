package render

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// RunOptions say how Run hands files to emit.
type RunOptions struct {
	// Writers, when above zero, is the number of goroutines that call
	// emit while the render workers go on: for an emit that writes
	// files, which waits on the disk rather than the processor.
	// Otherwise emit is called by one goroutine at a time.
	Writers int
	// Reuse says that emit is done with the bytes when it returns, so
	// their buffer may hold the next file. Otherwise each file gets a
	// copy of its own, which emit may keep.
	Reuse    bool
	Progress func(done, total int)
}

// made is one file on its way to emit: in a pooled buffer, or, from a
// job's Made, in data of its own.
type made struct {
	index int
	buf   *bytes.Buffer
	data  []byte
}

// Run makes every job on GOMAXPROCS workers and hands each file to emit.
// The first error stops the work; the error of the earliest failed job in
// list order is returned.
func (r *Renderer) Run(jobs []Job, emit Emit, opts RunOptions) error {
	var (
		next     atomic.Int64
		failed   atomic.Bool
		emitMu   sync.Mutex // serialises emit when there are no writers
		doneMu   sync.Mutex // guards done and serialises progress
		done     int
		errs     = make([]error, len(jobs))
		workers  sync.WaitGroup
		writing  sync.WaitGroup
		toWriter chan made
	)
	fail := func(i int, err error) {
		errs[i] = err
		failed.Store(true)
	}
	// deliver hands a made file to emit and recycles its buffer.
	deliver := func(f made) {
		data := f.data
		if f.buf != nil {
			defer r.buffers.Put(f.buf)
			data = f.buf.Bytes()
			if !opts.Reuse {
				data = bytes.Clone(data)
			}
		}
		if err := emit(jobs[f.index].path, data); err != nil {
			fail(f.index, fmt.Errorf("site: %s: %w", jobs[f.index].path, err))
			return
		}
		if opts.Progress != nil {
			doneMu.Lock()
			done++
			opts.Progress(done, len(jobs))
			doneMu.Unlock()
		}
	}
	if opts.Writers > 0 {
		toWriter = make(chan made, 2*opts.Writers)
		for range opts.Writers {
			writing.Go(func() {
				for f := range toWriter {
					if failed.Load() {
						if f.buf != nil {
							r.buffers.Put(f.buf)
						}
						continue
					}
					deliver(f)
				}
			})
		}
	}
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		workers.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				f, err := r.make(i, jobs[i])
				if err != nil {
					fail(i, err)
					return
				}
				if toWriter != nil {
					toWriter <- f
					continue
				}
				emitMu.Lock()
				deliver(f)
				emitMu.Unlock()
			}
		})
	}
	workers.Wait()
	if toWriter != nil {
		close(toWriter)
		writing.Wait()
	}
	return firstError(errs)
}

// make runs job i into a pooled buffer, or into data of its own.
func (r *Renderer) make(i int, job Job) (made, error) {
	if job.Made != nil {
		data, err := job.Made()
		return made{index: i, data: data}, err
	}
	b := r.buffer()
	if err := job.Make(b); err != nil {
		r.buffers.Put(b)
		return made{}, err
	}
	return made{index: i, buf: b}, nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
