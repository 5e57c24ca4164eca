package bundle

import (
	"context"
	"io"
	"io/fs"

	"github.com/releasegate/releasegate/site"
)

// loadSite is site.Load that returns as soon as ctx is done: evaluating a
// large suite takes seconds, and an interrupted command should not wait
// for it before removing what it staged. The evaluation left running
// only reads, and its result is closed and dropped when it ends.
func loadSite(ctx context.Context, dir string) (*site.Input, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type loaded struct {
		in  *site.Input
		err error
	}
	done := make(chan loaded, 1)
	go func() {
		in, err := site.Load(dir)
		done <- loaded{in, err}
	}()
	select {
	case l := <-done:
		return l.in, l.err
	case <-ctx.Done():
		go func() { // the files the dropped release holds open
			if l := <-done; l.in != nil {
				l.in.Release.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// contextFS stops every open once ctx is done, so packing a large tree
// ends at the next file.
type contextFS struct {
	ctx context.Context
	fs.FS
}

func (c contextFS) Open(name string) (fs.File, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	return c.FS.Open(name)
}

// contextWriter fails every write once ctx is done.
type contextWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c contextWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
