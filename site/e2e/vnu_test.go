//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// vnuReport is the JSON the Nu Html Checker writes with --format json.
type vnuReport struct {
	Messages []vnuMessage `json:"messages"`
}

type vnuMessage struct {
	Type      string `json:"type"` // "error", "info" or "non-document-error"
	URL       string `json:"url"`
	LastLine  int    `json:"lastLine"`
	FirstCol  int    `json:"firstColumn"`
	Message   string `json:"message"`
	Extract   string `json:"extract"`
	SubType   string `json:"subType"`
	FirstLine int    `json:"firstLine"`
}

func (m vnuMessage) String() string {
	return fmt.Sprintf("line %d col %d: %s [%s]", m.LastLine, m.FirstCol, m.Message, strings.TrimSpace(m.Extract))
}

// invalidPage has a misnested element, an error vnu always reports.
const invalidPage = `<!doctype html><html lang="en"><head><title>canary</title></head><body><p><div>misnested</p></body></html>`

// TestHTMLIsValid runs the Nu Html Checker once over every page of the
// sample site and of the hostile site: a page whose escaping slips shows up
// here as invalid markup even when no script runs.
func TestHTMLIsValid(t *testing.T) {
	t.Parallel()
	java := shared.needJava(t)
	shared.needFile(t, "the Nu Html Checker (npm vnu-jar)", vnuJar)
	real, err := realSites()
	if err != nil {
		t.Fatal(err)
	}
	sites := []struct{ name, dir string }{
		{"sample", shared.sampleSite(t)},
		{"hostile", shared.hostileSite(t)},
		{"airline", airlineDir(t)},
		{"real ids", real[0]},
		{"real ids, grouped", real[1]},
	}
	var files []string
	type page struct{ site, rel string }
	pages := map[string]page{} // by the file: URL vnu reports
	for _, s := range sites {
		rels, err := htmlFiles(s.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, rel := range rels {
			abs, err := filepath.Abs(filepath.Join(s.dir, filepath.FromSlash(rel)))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, abs)
			pages[(&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()] = page{s.name, rel}
		}
	}

	// A page with a known error proves that the checker really checked.
	canary := filepath.Join(t.TempDir(), "canary.html")
	if err := os.WriteFile(canary, []byte(invalidPage), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, canary)
	pages[(&url.URL{Scheme: "file", Path: filepath.ToSlash(canary)}).String()] = page{"canary", "canary.html"}

	report, err := runVNU(t, java, files)
	if err != nil {
		t.Fatal(err)
	}
	byPage := map[page][]vnuMessage{}
	for _, m := range report.Messages {
		if m.Type == "info" {
			continue
		}
		p, ok := pages[m.URL]
		if !ok {
			// vnu spells file URLs as file:/path; map both spellings.
			p, ok = pages["file://"+strings.TrimPrefix(m.URL, "file:")]
		}
		if !ok {
			t.Errorf("vnu: %s: %s", m.URL, m)
			continue
		}
		byPage[p] = append(byPage[p], m)
	}
	if len(byPage[page{"canary", "canary.html"}]) == 0 {
		t.Errorf("vnu reported no error for %s, which has one: the checker did not run as expected", canary)
	}
	for _, s := range sites {
		rels, _ := htmlFiles(s.dir)
		for _, rel := range rels {
			t.Run(s.name+"/"+rel, func(t *testing.T) {
				for _, m := range byPage[page{s.name, rel}] {
					t.Errorf("%s: %s", rel, m)
				}
			})
		}
	}
}

// runVNU checks files in one Java process, which starts once for all of
// them, and returns what it reported. vnu exits 1 when it finds errors, so
// the exit status alone means nothing; a report that does not parse does.
func runVNU(t *testing.T, java string, files []string) (*vnuReport, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"-jar", vnuJar, "--errors-only", "--format", "json"}, files...)
	cmd := exec.CommandContext(ctx, java, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("vnu checked %d pages in %s", len(files), time.Since(start).Round(time.Millisecond))
	var report vnuReport
	if err := json.Unmarshal(stderr.Bytes(), &report); err != nil {
		return nil, fmt.Errorf("vnu: %v; output: %s%s (exit: %v)", err, stdout.Bytes(), stderr.Bytes(), runErr)
	}
	return &report, nil
}
