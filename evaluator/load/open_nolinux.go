//go:build !linux

package load

import "os"

// openBeneath is Linux's openat2; elsewhere the portable checks of Open
// apply.
func openBeneath(dir, path string, pathOnly bool) (*os.File, error) {
	return nil, errNoBeneath
}
