//go:build !unix

package load

// openFlags: without O_NOFOLLOW and O_NONBLOCK, the check after opening
// (a regular file) is what refuses other kinds of file.
const openFlags = 0

func isLinkError(error) bool { return false }
