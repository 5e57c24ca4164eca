package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contradictedSample copies the sample data and records candidate-v3 as
// baseline-v1 was recorded, so HANDOFF.md's "candidate-v3 ships" is wrong.
func contradictedSample(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(data, os.DirFS(sampleData)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(data, "outputs", "baseline-v1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "outputs", "candidate-v3.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}

// The table row and the sentence under it.
const contradiction = "HANDOFF.md:103: calls candidate-v3 PASS, but the computed decision is BLOCK\n" +
	"releasegate build: warning: HANDOFF.md:107: calls candidate-v3 PASS (“ships”), but the computed decision is BLOCK\n"

func TestBuildWarnsAboutHandoff(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	code, stdout, stderr := runCmd(t, "build", "--data", contradictedSample(t), "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: "+contradiction) {
		t.Errorf("stderr lacks the contradiction:\n%s", stderr)
	}
	if strings.Contains(stdout, "warning") {
		t.Errorf("a warning went to stdout:\n%s", stdout)
	}
	// The sample itself agrees with its note and prints its size.
	code, stdout, stderr = runCmd(t, "build", "--data", sampleData, "--out", filepath.Join(t.TempDir(), "p"))
	if code != exitOK || strings.Contains(stderr, "warning") {
		t.Errorf("exit %d, stderr %q: want no warning", code, stderr)
	}
	if !strings.Contains(stdout, " files, ") || !strings.Contains(stdout, " MB)") {
		t.Errorf("stdout does not give the site's size:\n%s", stdout)
	}
}

func TestVerifyWarnsAboutHandoff(t *testing.T) {
	zip := filepath.Join(t.TempDir(), "b.zip")
	if code, _, stderr := runCmd(t, "bundle", "--data", contradictedSample(t), "-o", zip); code != exitOK {
		t.Fatalf("bundle: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCmd(t, "verify", zip)
	if code != exitOK {
		t.Fatalf("verify: exit %d: %s%s", code, stdout, stderr)
	}
	if want := strings.ReplaceAll(contradiction, "releasegate build:", "releasegate verify:"); !strings.Contains(stderr, "warning: "+want) {
		t.Errorf("stderr lacks the contradictions:\n%s", stderr)
	}
}

func TestSizeWarnings(t *testing.T) {
	tests := []struct {
		name      string
		files     int
		size      int64
		snapshots int
		want      []string
	}{
		{"small", 68, 1_500_000, 3, nil},
		{"over Pages", 1000, 1_200_000_000, 3, []string{"over GitHub Pages' limit of 1 GB"}},
		{"too many entries", 999_990, 100_000_000, 10, []string{"over the limit of 1000000"}},
		{"just within", 999_990 - 6 - 3, 100_000_000, 3, nil},
		{"over the bundle's size", 100, 9_000_000_000, 3, []string{"over GitHub Pages' limit of 1 GB", "that bundle and verify accept expanded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sizeWarnings(tt.files, tt.size, tt.snapshots)
			if len(got) != len(tt.want) {
				t.Fatalf("warnings %q, want %d", got, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q lacks %q", got[i], w)
				}
			}
		})
	}
}
