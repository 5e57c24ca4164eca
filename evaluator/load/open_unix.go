//go:build unix

package load

import (
	"errors"
	"syscall"
)

// openFlags keep an open from following a link at the last step (the
// path was resolved just before) and from waiting for a FIFO's writer.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// isLinkError reports the error O_NOFOLLOW gives for a link.
func isLinkError(err error) bool { return errors.Is(err, syscall.ELOOP) }
