//go:build linux

package load

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/releasegate/releasegate/evaluator/suite"
)

// TestOpenBeneathRefusesEveryLinkLeadingOut opens through links in a
// middle component of the path, which O_NOFOLLOW alone does not cover:
// those staying inside the data folder are followed, those leading out
// are refused by the kernel itself.
func TestOpenBeneathRefusesEveryLinkLeadingOut(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for _, d := range []string{filepath.Join(dir, "real", "deep"), filepath.Join(outside, "deep")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "real", "f.jsonl"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(dir, "real", "deep", "f.jsonl"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.jsonl"), []byte("outside"), 0o644)
	os.WriteFile(filepath.Join(outside, "deep", "f.jsonl"), []byte("outside"), 0o644)
	links := map[string]string{
		"in-rel":      "real",
		"in-abs":      filepath.Join(dir, "real"),
		"in-dotdot":   filepath.Join("real", "deep", ".."),
		"out-abs":     outside,
		"out-rel":     filepath.Join("..", filepath.Base(outside)),
		"proc-out":    "/proc/self/root" + outside,
		"proc-in":     "/proc/self/root" + dir + "/real",
		"in-then-out": "out-abs",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path    string // below dir
		refused bool
	}{
		{"real/f.jsonl", false},
		{"in-rel/f.jsonl", false},
		{"in-rel/deep/f.jsonl", false},
		{"in-abs/f.jsonl", false},
		{"in-abs/deep/f.jsonl", false},
		{"in-dotdot/f.jsonl", false},
		{"out-abs/f.jsonl", true},
		{"out-abs/deep/f.jsonl", true},
		{"out-rel/f.jsonl", true},
		{"out-rel/deep/f.jsonl", true},
		{"in-then-out/f.jsonl", true},
		{"proc-out/f.jsonl", true},
		{"proc-in/f.jsonl", false}, // followed to its end, which is inside
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			path := filepath.Join(dir, filepath.FromSlash(tt.path))
			f, err := openBeneath(dir, path, false)
			if errors.Is(err, errNoBeneath) {
				t.Skip("openat2 is not available here")
			}
			if tt.refused {
				var bad *suite.InputError
				if !errors.As(err, &bad) || err.Error() != path+": "+notInside {
					t.Fatalf("openBeneath: %v, want %q", err, path+": "+notInside)
				}
			} else if err != nil {
				t.Fatalf("openBeneath: %v", err)
			} else {
				f.Close()
			}
			// What every reader uses says the same.
			b, err := ReadFile(dir, path, 1<<10)
			switch {
			case tt.refused && (err == nil || err.Error() != path+": "+notInside):
				t.Errorf("ReadFile: %q, %v; want %q", b, err, path+": "+notInside)
			case !tt.refused && (err != nil || string(b) != "inside"):
				t.Errorf("ReadFile: %q, %v", b, err)
			}
			// Without a race, the portable checks agree.
			if f, err := openResolved(dir, path); (err != nil) != tt.refused {
				t.Errorf("openResolved: %v; refused %v", err, tt.refused)
			} else if err == nil {
				f.Close()
			}
			err = Check(dir, path)
			switch {
			case tt.refused && (err == nil || err.Error() != path+": "+notInside):
				t.Errorf("Check: %v, want %q", err, path+": "+notInside)
			case !tt.refused && err != nil:
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestOpenSurvivesAFolderSwappedMidRun exchanges a folder of the path
// with a link leading out of the data folder, again and again, while the
// file is opened: no open ever reads the file outside. Resolving the path
// and then opening it (the portable checks) does, now and then, since the
// folder checked can be the link by the time it is opened.
func TestOpenSurvivesAFolderSwappedMidRun(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	sub, alt := filepath.Join(dir, "outputs"), filepath.Join(dir, ".alt")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "f.jsonl"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.jsonl"), []byte("outside"), 0o644)
	if err := os.Symlink(outside, alt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sub, "f.jsonl")
	if f, err := openBeneath(dir, path, false); errors.Is(err, errNoBeneath) {
		t.Skip("openat2 is not available here")
	} else if err == nil {
		f.Close()
	}
	if err := unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE: %v", err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		// The path always exists: as the folder or as the link out.
		for !stop.Load() {
			unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, alt, unix.RENAME_EXCHANGE)
		}
	})
	defer wg.Wait()
	defer stop.Store(true)
	read, refused := 0, 0
	for range 3000 {
		b, err := ReadFile(dir, path, 1<<10)
		switch {
		case err == nil && string(b) == "inside":
			read++
		case err == nil:
			t.Fatalf("read %q from outside the data folder (after %d reads inside)", b, read)
		case strings.Contains(err.Error(), notInside):
			refused++
		case errors.Is(err, fs.ErrNotExist):
			// Between the two halves of an exchange as another step sees it.
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	t.Logf("%d opens read the file inside, %d were refused", read, refused)
}
