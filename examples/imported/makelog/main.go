// Command makelog writes examples/imported/runs/support-agent.eval, the
// Inspect AI log the example's first snapshot was imported from, out of
// the log's members as written by hand in log/: header.json and one
// samples/<id>_epoch_<n>.json per sample, in the shapes of Inspect's
// EvalLog and EvalSample. Like Inspect, it compresses every member with
// zstd (zip method 93) and adds the run's journal and sample summaries.
//
//	go run ./examples/imported/makelog
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
)

// finished is the order the samples finished in, the order Inspect
// stores them in: not the dataset's.
var finished = []string{
	"small-talk_epoch_1", "order-status_epoch_1", "angry-customer_epoch_1", "refund-17_epoch_1",
	"small-talk_epoch_2", "order-status_epoch_2", "refund-17_epoch_2", "angry-customer_epoch_2",
}

func main() {
	here := filepath.Join("examples", "imported")
	if err := write(filepath.Join(here, "makelog", "log"), filepath.Join(here, "runs", "support-agent.eval")); err != nil {
		fmt.Fprintln(os.Stderr, "makelog:", err)
		os.Exit(1)
	}
}

func write(src, dst string) error {
	header, err := compactFile(filepath.Join(src, "header.json"))
	if err != nil {
		return err
	}
	var log struct {
		Version int             `json:"version"`
		Eval    json.RawMessage `json:"eval"`
		Plan    json.RawMessage `json:"plan"`
	}
	if err := json.Unmarshal(header, &log); err != nil {
		return err
	}
	start, err := json.Marshal(log)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor(zstd.WithEncoderConcurrency(1)))
	// Every entry carries the time the run ended, so the archive is the
	// same bytes each time it is made.
	ended := time.Date(2026, 5, 4, 9, 30, 41, 0, time.UTC)
	add := func(name string, data []byte) error {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zstd.ZipMethodWinZip, Modified: ended})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add("_journal/start.json", start); err != nil {
		return err
	}
	var summaries []map[string]json.RawMessage
	for _, name := range finished {
		sample, err := compactFile(filepath.Join(src, "samples", name+".json"))
		if err != nil {
			return err
		}
		if err := add("samples/"+name+".json", sample); err != nil {
			return err
		}
		summaries = append(summaries, summary(sample))
	}
	sums, err := json.Marshal(summaries)
	if err != nil {
		return err
	}
	for _, name := range []string{"_journal/summaries/1.json", "summaries.json"} {
		if err := add(name, sums); err != nil {
			return err
		}
	}
	if err := add("header.json", header); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// compactFile reads a JSON file and returns it without white space, as
// Inspect writes its members.
func compactFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out.Bytes(), nil
}

// summary is a sample's entry in summaries.json: the sample without its
// messages, output and events (EvalSampleSummary).
func summary(sample []byte) map[string]json.RawMessage {
	var s map[string]json.RawMessage
	json.Unmarshal(sample, &s)
	out := map[string]json.RawMessage{}
	for _, k := range []string{"id", "epoch", "input", "target", "scores", "model_usage", "total_time", "working_time", "uuid"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	if e, ok := s["error"]; ok {
		var err struct {
			Message string `json:"message"`
		}
		json.Unmarshal(e, &err)
		out["error"], _ = json.Marshal(err.Message)
	}
	out["completed"] = json.RawMessage("true")
	return out
}
