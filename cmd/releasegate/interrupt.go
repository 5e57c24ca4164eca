package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// interruptible is a context that is done at the first Ctrl-C or
// SIGTERM, so a command can stop writing and remove what it staged
// before it exits. A second signal stops the program at once; the next
// run removes what that leaves.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	return ctx, stop
}
