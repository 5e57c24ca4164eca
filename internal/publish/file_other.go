//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package publish

import (
	"os"
	"path/filepath"
)

// removeFiles removes the files of f.
func removeFiles(f folder) {
	for _, name := range f.files {
		os.Remove(filepath.Join(f.path, name))
	}
}
