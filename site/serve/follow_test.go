package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The probes of a stale watch, as they were found: the data folder
// replaced by another (mv, git checkout), and a file behind a link
// changed. Each must be rebuilt within a second.

// sampleIn copies the sample to parent/data and returns that path.
func sampleIn(t *testing.T) (parent, data string) {
	t.Helper()
	parent = t.TempDir()
	data = filepath.Join(parent, "data")
	if err := os.Rename(copyDir(t, sampleData), data); err != nil {
		t.Fatal(err)
	}
	return parent, data
}

// blocked is candidate-v3 with only its first three outputs: BLOCK.
func blocked(t *testing.T, data string) []byte {
	t.Helper()
	b, err := os.ReadFile(outputsPath(data, "candidate-v3"))
	if err != nil {
		t.Fatal(err)
	}
	return firstLines(b, 3)
}

// shows reports whether the served overview lists label with decision.
func (ts *testServer) shows(label, decision string) bool {
	return bytes.Contains(ts.page("/"), []byte(label+"/\">"+label+"</a> "+decision))
}

// settledLog waits until the log has not grown for quiet (at most ten
// seconds) and returns how many lines it has.
func (ts *testServer) settledLog(quiet time.Duration) int {
	ts.t.Helper()
	lines := strings.Count(ts.log.String(), "\n")
	since := time.Now()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		time.Sleep(quiet / 10)
		if n := strings.Count(ts.log.String(), "\n"); n != lines {
			lines, since = n, time.Now()
		} else if time.Since(since) >= quiet {
			return lines
		}
	}
	ts.t.Fatalf("the log never went quiet:\n%s", ts.log.String())
	return lines
}

// within1s waits for cond, failing when it takes a second or more, and
// returns how long it took.
func within1s(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) >= time.Second {
			t.Fatalf("%s: not within a second", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Since(start)
}

func TestWatchFollowsAReplacedDataFolder(t *testing.T) {
	parent, data := sampleIn(t)
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake, data: data})
	if !ts.shows("candidate-v3", "PASS") {
		t.Fatal("candidate-v3 does not start as PASS")
	}
	// A new version of the folder, prepared beside it and swapped in.
	next := filepath.Join(parent, "next")
	if err := os.CopyFS(next, os.DirFS(data)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, outputsPath(next, "candidate-v3"), blocked(t, data))
	if err := os.Rename(data, filepath.Join(parent, "data.old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, data); err != nil {
		t.Fatal(err)
	}
	took := within1s(t, "the swapped-in folder", func() bool { return ts.shows("candidate-v3", "BLOCK") })
	t.Logf("folder swap rebuilt in %s", took)

	// The new folder is the one watched now: an edit in it is seen, and
	// one in the old folder is not.
	original, _ := os.ReadFile(outputsPath(filepath.Join(parent, "data.old"), "candidate-v3"))
	writeFile(t, outputsPath(data, "candidate-v3"), original)
	within1s(t, "an edit inside the swapped-in folder", func() bool { return ts.shows("candidate-v3", "PASS") })
	// The edit may be shown by the rebuild that followed the swap, and
	// rebuilt once more for its own event: count from when all is quiet.
	before := ts.settledLog(3 * FollowInterval)
	writeFile(t, outputsPath(filepath.Join(parent, "data.old"), "candidate-v3"), original[:0])
	time.Sleep(3 * FollowInterval)
	if after := strings.Count(ts.log.String(), "\n"); after != before {
		t.Errorf("an edit in the old folder caused a rebuild:\n%s", ts.log.String())
	}
}

func TestWatchFollowsADataFolderLink(t *testing.T) {
	parent, data := sampleIn(t)
	// data is a link to one release folder, switched to another by
	// replacing the link, as deploy scripts do.
	v1, v2 := filepath.Join(parent, "release-1"), filepath.Join(parent, "release-2")
	if err := os.Rename(data, v1); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(v2, os.DirFS(v1)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, outputsPath(v2, "candidate-v3"), blocked(t, v1))
	if err := os.Symlink("release-1", data); err != nil {
		t.Fatal(err)
	}
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake, data: data})
	if !ts.shows("candidate-v3", "PASS") {
		t.Fatal("candidate-v3 does not start as PASS")
	}
	tmp := filepath.Join(parent, "data.new")
	if err := os.Symlink("release-2", tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, data); err != nil {
		t.Fatal(err)
	}
	t.Logf("link switch rebuilt in %s", within1s(t, "the folder behind the switched link", func() bool { return ts.shows("candidate-v3", "BLOCK") }))
}

func TestWatchSeesAChangeBehindALink(t *testing.T) {
	_, data := sampleIn(t)
	// outputs/candidate-v3.jsonl is a link to a file kept elsewhere in
	// the data folder; the file is edited, the link is not touched.
	store := filepath.Join(data, "recorded")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(store, "v3.jsonl")
	if err := os.Rename(outputsPath(data, "candidate-v3"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "recorded", "v3.jsonl"), outputsPath(data, "candidate-v3")); err != nil {
		t.Fatal(err)
	}
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake, data: data})
	if !ts.shows("candidate-v3", "PASS") {
		t.Fatal("candidate-v3 does not start as PASS")
	}
	original, _ := os.ReadFile(target)
	writeFile(t, target, firstLines(original, 3))
	t.Logf("edit behind a link rebuilt in %s", within1s(t, "the edit behind the link", func() bool { return ts.shows("candidate-v3", "BLOCK") }))
	// Replaced by rename, as editors save.
	replaceFile(t, target, original)
	within1s(t, "the rename behind the link", func() bool { return ts.shows("candidate-v3", "PASS") })
}

func TestLostWatchIsShownAndLogged(t *testing.T) {
	parent, data := sampleIn(t)
	fake, _ := fakeRenderers()
	ts := startServer(t, serverOptions{renderer: fake, data: data})
	const banner = `id="releasegate-watch-lost"`
	if bytes.Contains(ts.page("/"), []byte(banner)) {
		t.Fatal("banner shown while watching")
	}
	away := filepath.Join(parent, "away")
	if err := os.Rename(data, away); err != nil {
		t.Fatal(err)
	}
	within1s(t, "the banner", func() bool { return bytes.Contains(ts.page("/"), []byte(banner)) })
	page := string(ts.page("/"))
	if !strings.Contains(page, "Not watching for changes") || !strings.Contains(page, data) {
		t.Errorf("the banner does not say what is lost: %s", page)
	}
	if !strings.Contains(ts.log.String(), "watch lost: the data folder "+data+" is gone") {
		t.Errorf("the log does not say the watch is lost:\n%s", ts.log.String())
	}
	// The folder comes back, changed: watched and rebuilt again.
	writeFile(t, outputsPath(away, "candidate-v3"), blocked(t, away))
	if err := os.Rename(away, data); err != nil {
		t.Fatal(err)
	}
	within1s(t, "the folder back", func() bool {
		p := ts.page("/")
		return !bytes.Contains(p, []byte(banner)) && ts.shows("candidate-v3", "BLOCK")
	})
	if !strings.Contains(ts.log.String(), "watching "+data+" again") {
		t.Errorf("the log does not say the watch is back:\n%s", ts.log.String())
	}
}
