// Package floor measures the least work any evaluation of a data folder
// must do: read every input file and check that it is valid JSON, without
// decoding anything. Evaluation speed is reported as a multiple of this
// floor, measured on the same files in the same run (docs/design.md,
// "Scale: streaming evaluation").
package floor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Files are the inputs of the data folder dir that evaluation reads as
// JSON: cases.jsonl, gate.json and every outputs/*.jsonl.
func Files(dir string) ([]string, error) {
	outputs, err := filepath.Glob(filepath.Join(dir, "outputs", "*.jsonl"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(dir, "cases.jsonl"), filepath.Join(dir, "gate.json")}, outputs...), nil
}

// Check reads every file, one goroutine per file as evaluation judges
// one snapshot per goroutine, and checks that each holds a sequence of
// valid JSON values. It returns the bytes read.
func Check(files []string) (int64, error) {
	sizes := make([]int64, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { sizes[i], errs[i] = checkFile(f) })
	}
	wg.Wait()
	var total int64
	for _, n := range sizes {
		total += n
	}
	return total, errors.Join(errs...)
}

func checkFile(path string) (int64, error) {
	if filepath.Ext(path) != ".jsonl" {
		b, err := os.ReadFile(path)
		if err == nil && !jsontext.Value(b).IsValid() {
			err = fmt.Errorf("%s: not valid JSON", path)
		}
		return int64(len(b)), err
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var n int64
	for line := 1; ; line++ {
		text, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := bytes.Clone(text)
			for errors.Is(err, bufio.ErrBufferFull) {
				text, err = r.ReadSlice('\n')
				long = append(long, text...)
			}
			text = long
		}
		n += int64(len(text))
		if t := bytes.TrimSpace(text); len(t) > 0 && !jsontext.Value(t).IsValid() {
			return n, fmt.Errorf("%s:%d: not valid JSON", path, line)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
