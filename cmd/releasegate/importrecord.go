package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/releasegate/releasegate/internal/publish"
)

// importRecord is the file in an outputs folder where import notes the
// SHA-256 of every file it wrote there, in sha256sum's format. --force
// replaces a snapshot only when its files are still exactly as import
// wrote them: releasegate never replaces a file it cannot prove it wrote
// (docs/ownership.md). The loader skips names that start with a dot.
const importRecord = ".releasegate-imports"

// importedFiles reads the record of outDir: hash by file name. A missing
// record is an empty one.
func importedFiles(outDir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(outDir, importRecord))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if ok && len(sum) == 64 {
			files[name] = sum
		}
	}
	return files, sc.Err()
}

// provenImported reports whether the file at path is byte for byte what
// an earlier import recorded writing.
func provenImported(record map[string]string, path string) bool {
	want, ok := record[filepath.Base(path)]
	if !ok {
		return false
	}
	got, err := publish.HashFile(path)
	return err == nil && got == want
}

// noteImported adds the files at paths, as they are now, to outDir's
// record.
func noteImported(outDir string, paths []string) error {
	record, err := importedFiles(outDir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		sum, err := publish.HashFile(p)
		if err != nil {
			return err
		}
		record[filepath.Base(p)] = sum
	}
	names := make([]string, 0, len(record))
	for name := range record {
		names = append(names, name)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, name := range names {
		fmt.Fprintf(&b, "%s  %s\n", record[name], name)
	}
	return publish.File(filepath.Join(outDir, importRecord), b.Bytes())
}
