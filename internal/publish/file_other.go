//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package publish

import (
	"os"
	"path/filepath"
)

// writeNew creates the file at path, which no one else writes, with data.
func writeNew(path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

// removeFiles removes the files of f.
func removeFiles(f folder) {
	for _, name := range f.files {
		os.Remove(filepath.Join(f.path, name))
	}
}
