package publish

import "golang.org/x/sys/unix"

// exchange swaps the folders at a and b in one step: every reader sees
// one or the other, never neither.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
