package runlog

import (
	"archive/zip"
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The benchmarks import a generated log of -runlog.mb megabytes from a
// file, as a user's import would, and report the throughput (MB/s) and
// the largest heap seen while importing (peak-heap-MB): memory must stay
// flat as the log grows. With -runlog.keep DIR the logs are left there,
// to be imported by the command itself.
var (
	benchMB   = flag.Int("runlog.mb", 32, "size in MB of the logs the benchmarks import")
	benchKeep = flag.String("runlog.keep", "", "leave the generated logs in `DIR`")
)

// filler is text of the kind logs are full of: transcripts, tool output.
var filler = strings.Repeat("The quick brown fox jumps over the lazy dog; ", 40)

// writeInspectLog writes an EvalLog of about mb megabytes: samples with
// a few tool calls each, and events that make up most of their size.
func writeInspectLog(w io.Writer, mb int) {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, `{"version": 2, "status": "success", "eval": {"task": "big", "model": "openai/gpt-4.1", "created": "2026-01-01T00:00:00Z", "config": {"epochs": 3}, "revision": {"commit": "abc"}}, "samples": [`)
	written := 0
	for i := 0; written < mb<<20; i++ {
		if i > 0 {
			bw.WriteString(",\n")
		}
		s := fmt.Sprintf(`{"id": "case-%d", "epoch": %d, "input": %q, "messages": [{"role": "user", "content": %q}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "lookup", "arguments": {"id": %d, "fields": ["a", "b"]}, "type": "function"}, {"id": "c2", "function": "update", "arguments": {"id": %d, "note": %q}, "type": "function"}]}, {"role": "tool", "content": %q, "tool_call_id": "c1", "function": "lookup"}, {"role": "assistant", "content": "done"}], "events": [{"event": "model", "input": %q}, {"event": "tool", "result": %q}], "model_usage": {"openai/gpt-4.1": {"input_tokens": 1200, "output_tokens": 85, "total_cost": 0.00061}}, "total_time": 12.345, "attachments": {}}`,
			i/3, i%3+1, filler[:200], filler[:300], i, i, filler[:100], filler, filler, filler)
		bw.WriteString(s)
		written += len(s)
	}
	bw.WriteString("]}\n")
	bw.Flush()
}

// writeInspectEval writes an .eval archive whose zstd-compressed sample
// members add up to about mb megabytes, as writeInspectLog's samples.
func writeInspectEval(w io.Writer, mb int) {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zstd.ZipMethodWinZip, zstd.ZipCompressor(zstd.WithEncoderConcurrency(1)))
	add := func(name, data string) {
		f, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zstd.ZipMethodWinZip})
		io.WriteString(f, data)
	}
	written := 0
	for i := 0; written < mb<<20; i++ {
		s := fmt.Sprintf(`{"id": "case-%d", "epoch": %d, "input": %q, "messages": [{"role": "user", "content": %q}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "function": "lookup", "arguments": {"id": %d, "fields": ["a", "b"]}, "type": "function"}]}], "events": [{"event": "model", "input": %q, "seq": %d}], "model_usage": {"openai/gpt-4.1": {"input_tokens": 1200, "output_tokens": 85, "total_cost": 0.00061}}, "total_time": 12.345, "attachments": {}}`,
			i/3, i%3+1, filler[:200], filler[:300], i, filler, i)
		add(fmt.Sprintf("samples/case-%d_epoch_%d.json", i/3, i%3+1), s)
		written += len(s)
	}
	add("header.json", `{"version": 2, "status": "success", "eval": {"task": "big", "model": "openai/gpt-4.1", "created": "2026-01-01T00:00:00Z", "config": {"epochs": 3}}}`)
	zw.Close()
}

// writePromptfooExport writes a promptfoo export of about mb megabytes.
func writePromptfooExport(w io.Writer, mb int) {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, `{"evalId": "big", "results": {"version": 3, "timestamp": "2026-01-01T00:00:00Z", "results": [`)
	written := 0
	for i := 0; written < mb<<20; i++ {
		if i > 0 {
			bw.WriteString(",\n")
		}
		s := fmt.Sprintf(`{"provider": {"id": "openai:gpt-4.1", "label": "p%d"}, "promptId": "x", "promptIdx": 0, "testIdx": %d, "testCase": {"vars": {"ticket": %q}, "metadata": {"case_id": "case-%d"}}, "vars": {"ticket": %q}, "response": {"output": [{"id": "c", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\": %d}"}}], "tokenUsage": {"prompt": 300, "completion": 20}, "cost": 0.0003}, "gradingResult": {"pass": true, "reason": %q}, "latencyMs": 812, "failureReason": 0, "success": true, "score": 1}`,
			i%2, i, filler[:400], i/2, filler[:400], i, filler)
		bw.WriteString(s)
		written += len(s)
	}
	bw.WriteString("]}, \"config\": {\"description\": \"big\"}}\n")
	bw.Flush()
}

// writeOpenAIBatch writes OpenAI batch output lines, about mb megabytes.
func writeOpenAIBatch(w io.Writer, mb int) {
	bw := bufio.NewWriter(w)
	written := 0
	for i := 0; written < mb<<20; i++ {
		s := fmt.Sprintf(`{"id": "batch_req_%d", "custom_id": "case-%d", "response": {"status_code": 200, "body": {"model": "gpt-4.1-mini", "choices": [{"index": 0, "message": {"role": "assistant", "content": %q, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\": %d}"}}]}}], "usage": {"prompt_tokens": 300, "completion_tokens": 20}}}, "error": null}`+"\n",
			i, i, filler, i)
		bw.WriteString(s)
		written += len(s)
	}
	bw.Flush()
}

// peakHeap samples the heap until stop is called and returns the largest
// size seen.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			mu.Lock()
			peak = max(peak, sample[0].Value.Uint64())
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

func benchmarkImport(b *testing.B, format Format, name string, write func(io.Writer, int)) {
	dir := *benchKeep
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	write(f, *benchMB)
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	src := openSource(b, path)
	b.SetBytes(src.Size)
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for b.Loop() {
		stop := peakHeap()
		// Lines wait in a file, as the command keeps them.
		var files []*os.File
		res, err := Import(format, src, Options{NewStore: func() (Store, error) {
			f, err := os.CreateTemp(b.TempDir(), "lines-*")
			files = append(files, f)
			return &fileStore{f: f}, err
		}})
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range res.Snapshots {
			if err := s.WriteLines(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
		peak = max(peak, stop())
		for _, f := range files {
			f.Close()
			os.Remove(f.Name())
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

func BenchmarkImportInspectJSON(b *testing.B) {
	benchmarkImport(b, Inspect, "inspect-big.json", writeInspectLog)
}

// BenchmarkImportInspectEval's MB/s are of the archive; its members
// hold about -runlog.mb megabytes of JSON, compressed many times over.
func BenchmarkImportInspectEval(b *testing.B) {
	benchmarkImport(b, Inspect, "inspect-big.eval", writeInspectEval)
}

func BenchmarkImportPromptfoo(b *testing.B) {
	benchmarkImport(b, Promptfoo, "promptfoo-big.json", writePromptfooExport)
}

func BenchmarkImportOpenAIBatch(b *testing.B) {
	benchmarkImport(b, OpenAIBatch, "openai-big.jsonl", writeOpenAIBatch)
}

// fileStore is a Store in a file, written through a buffer as the
// command's store is.
type fileStore struct {
	f    *os.File
	w    *bufio.Writer
	size int64
}

func (s *fileStore) Write(p []byte) (int, error) {
	if s.w == nil {
		s.w = bufio.NewWriterSize(s.f, 256<<10)
	}
	n, err := s.w.Write(p)
	s.size += int64(n)
	return n, err
}

func (s *fileStore) ReadAt(p []byte, off int64) (int, error) {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return 0, err
		}
	}
	return s.f.ReadAt(p, off)
}
