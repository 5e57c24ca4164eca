//go:build !linux

package publish

import "errors"

// exchange is not available here; Commit falls back to two renames and
// the next run recovers from a kill between them.
func exchange(a, b string) error { return errors.ErrUnsupported }
