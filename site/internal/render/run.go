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
	// SizeOf, when set, gives the size a file had when it was last
	// rendered, 0 when it is not known. A large page is then rendered
	// into a buffer of about that size and, without Reuse, handed to emit
	// as it is when it fits: grown by doubling, a buffer of a page of
	// megabytes allocated twice the page, and the copy for emit once
	// more.
	SizeOf func(path string) int
}

// largeFile is the size from which a file's buffer is sized from
// RunOptions.SizeOf and may be handed to emit.
const largeFile = 1 << 20

// sizeHint is what RunOptions.SizeOf says of the file at path when it
// is large, else 0.
func (opts RunOptions) sizeHint(path string) int {
	if opts.SizeOf == nil {
		return 0
	}
	if n := opts.SizeOf(path); n >= largeFile {
		return n
	}
	return 0
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
			data = f.buf.Bytes()
			switch {
			case opts.Reuse:
				defer r.buffers.Put(f.buf)
			case len(data) >= largeFile && cap(data)-len(data) <= len(data)/32:
				// A large page that filled its buffer: emit keeps the
				// buffer's bytes, and the buffer is not used again.
			default:
				data = bytes.Clone(data)
				r.buffers.Put(f.buf)
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
				f, err := r.make(i, jobs[i], opts.sizeHint(jobs[i].path))
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

// make runs job i into a pooled buffer, with room for size bytes and a
// little more, or into data of its own.
func (r *Renderer) make(i int, job Job, size int) (made, error) {
	if job.Made != nil {
		data, err := job.Made()
		return made{index: i, data: data}, err
	}
	b := r.buffer()
	if size > 0 {
		b.Grow(size + size/64 + 4096)
	}
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
