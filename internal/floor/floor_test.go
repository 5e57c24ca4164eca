package floor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	files, err := Files("../../data")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("files = %v, want cases, gate and three snapshots", files)
	}
	n, err := Check(files)
	if err != nil || n == 0 {
		t.Fatalf("Check(sample) = %d, %v", n, err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, wantErr string }{
		{"good.jsonl", "{\"a\": 1}\n\n[2]\n", ""},
		{"bad.jsonl", "{\"a\": 1}\n{\"a\":\n", "bad.jsonl:2: not valid JSON"},
		{"good.json", "{\n  \"a\": 1\n}\n", ""},
		{"bad.json", "{\n  \"a\": \n}\n", "bad.json: not valid JSON"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Check([]string{path})
		if got := ""; err != nil {
			got = err.Error()
			if tc.wantErr == "" || !strings.HasSuffix(got, tc.wantErr) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
			}
		} else if tc.wantErr != "" {
			t.Errorf("%s: no error, want %q", tc.name, tc.wantErr)
		}
	}
}
