//go:build unix && e2e

package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/internal/treecheck"
)

// The sizes of the suites the kill loops run on: evaluate --all on the
// larger, build, which writes some files per case, on the smaller, so
// that a run is long enough to be killed at many points and short
// enough for many kills.
const (
	killSuite      = 10_000
	buildKillSuite = 1_500
)

// buildBinary builds the command once for a test that runs it as a
// separate process.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "releasegate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// release is what a complete output folder holds: every file's SHA-256
// by slash path.
type release map[string]string

// readRelease fingerprints the folder out: every path, and the content of
// every file when sample is 0, else of that many files picked at random
// plus results/ and RELEASE_REPORT.md (a site of 10,000 cases is 240 MB).
func readRelease(t *testing.T, out string, sample int, r *rand.Rand) (release, error) {
	t.Helper()
	got := release{}
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(out, path)
			got[filepath.ToSlash(rel)] = ""
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range got {
			if !yield(p) {
				return
			}
		}
	}) {
		if sample > 0 && !strings.HasPrefix(p, "results/") && p != "RELEASE_REPORT.md" && p != "index.html" && r.IntN(len(got)) >= sample {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		got[p] = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	return got, nil
}

// matches reports whether got, a possibly sampled fingerprint, is the
// complete release want: the same paths, and the same content wherever
// got has it.
func (got release) matches(want release) bool {
	if len(got) != len(want) {
		return false
	}
	for p, sum := range got {
		w, ok := want[p]
		if !ok || sum != "" && sum != w {
			return false
		}
	}
	return true
}

// killLoop runs args (with the data folder switched between two gates
// each time) and SIGKILLs it at a random point, kills times; after every
// kill the output folder must be exactly the last complete release or the
// one being written: never a mix, never missing.
func killLoop(t *testing.T, bin, data, out string, args []string, kills, sample int) {
	t.Helper()
	gates := [2][]byte{}
	var err error
	if gates[0], err = os.ReadFile("../../data/gate.json"); err != nil {
		t.Fatal(err)
	}
	gates[1] = []byte(strings.Replace(string(gates[0]), "0.90", "0.50", 1))
	if string(gates[1]) == string(gates[0]) {
		t.Fatal("the second gate is the first")
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	// The person's files beside the output, look-alikes of its staging
	// names among them, stay byte-identical through every kill.
	parent := filepath.Dir(out)
	treecheck.Write(t, parent, personsFiles(filepath.Base(out)))
	mine := treecheck.Snapshot(t, parent)
	runFull := func(v int) (release, time.Duration) {
		os.WriteFile(filepath.Join(data, "gate.json"), gates[v], 0o644)
		start := time.Now()
		if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
		took := time.Since(start)
		rel, err := readRelease(t, out, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rel, took
	}
	// The two complete releases, written from scratch.
	var want [2]release
	var took time.Duration
	for v := range 2 {
		os.RemoveAll(out)
		want[v], took = runFull(v)
	}
	if want[0].matches(want[1]) {
		t.Fatal("the two releases are the same; the test could not tell them apart")
	}
	last := 1
	killed, finished := 0, 0
	for i := 0; killed < kills; i++ {
		if i > 4*kills {
			t.Fatalf("only %d of %d runs were killed before they finished", killed, i)
		}
		v := r.IntN(2)
		os.WriteFile(filepath.Join(data, "gate.json"), gates[v], 0o644)
		// Half the kills anywhere in a run, half near its end, where the
		// swap happens.
		at := time.Duration(r.Float64() * float64(took))
		if i%2 == 1 {
			at = time.Duration((0.7 + 0.3*r.Float64()) * float64(took))
		}
		cmd := exec.Command(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(at)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			// It finished first: runs are quicker than measured (the
			// machine is less busy now), so aim earlier.
			finished++
			took = at
		} else {
			killed++
		}
		got, rerr := readRelease(t, out, sample, r)
		switch {
		case rerr != nil:
			t.Fatalf("kill %d at %v: the output is unreadable or missing: %v", i, at, rerr)
		case got.matches(want[v]):
			last = v
		case got.matches(want[last]):
		default:
			t.Fatalf("kill %d at %v (run of release %d, previous %d): the output folder is neither complete release: %d files", i, at, v, last, len(got))
		}
		treecheck.Kept(t, parent, mine)
		if t.Failed() {
			t.Fatalf("kill %d at %v touched the person's files", i, at)
		}
		// Leftovers of killed runs are swept by the next run: they never
		// pile up.
		if left := staged(t, out); len(left) > 2 {
			t.Fatalf("kill %d: %d staging folders beside the output: %v", i, len(left), left)
		}
	}
	t.Logf("%v: %d runs killed, %d finished first; a full run took %v", args[0], killed, finished, took.Round(time.Millisecond))
	runFull(last)
	if left := staged(t, out); len(left) > 0 {
		t.Errorf("after a complete run, staging folders are left: %v", left)
	}
	treecheck.Kept(t, parent, mine)
}

// personsFiles are files a person keeps beside an output folder named
// out, some named like releasegate's staging folders.
func personsFiles(out string) map[string]string {
	return map[string]string{
		"notes.txt":                             "mine",
		"." + out + ".old-backup/index.html":    "my backup",
		"." + out + ".new-mine/a.txt":           "mine",
		"." + out + ".ready-0123456789abcdef/a": "mine",
		".releasegate-bundle-notes.txt":         "mine",
	}
}

// staged lists the entries beside out other than out itself and the
// person's files.
func staged(t *testing.T, out string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	mine := personsFiles(filepath.Base(out))
	for _, e := range entries {
		name := e.Name()
		if name == filepath.Base(out) || mine[name] != "" {
			continue
		}
		if _, isMine := mine[name+"/"]; isMine || hasPrefixKey(mine, name+"/") {
			continue
		}
		names = append(names, name)
	}
	return names
}

func hasPrefixKey(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// TestKillBuildIntoPersonsFolder SIGKILLs build at random points while it
// is pointed at a folder of a person's files: they stay byte-identical.
func TestKillBuildIntoPersonsFolder(t *testing.T) {
	bin := buildBinary(t)
	root := t.TempDir()
	out := filepath.Join(root, "docs")
	treecheck.Write(t, root, map[string]string{"docs/index.html": "mine", "docs/notes.txt": "mine", "docs/results/exp1.csv": "a,b"})
	treecheck.Write(t, root, personsFiles("docs"))
	before := treecheck.Snapshot(t, root)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for i := range 8 {
		cmd := exec.Command(bin, "build", "--quiet", "--data", "../../data", "--out", out)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.IntN(40)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		treecheck.Unchanged(t, root, before)
		if t.Failed() {
			t.Fatalf("run %d touched the person's files", i)
		}
	}
}

// TestKillLoop SIGKILLs evaluate --all and build at random points: the
// output folder always holds one complete release, the old or the new.
func TestKillLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command some 45 times on suites of thousands of cases")
	}
	bin := buildBinary(t)
	suiteOf := func(n int) string {
		data := filepath.Join(t.TempDir(), "data")
		if err := gensuite.Write("../../data", data, n); err != nil {
			t.Fatal(err)
		}
		return data
	}
	t.Run("evaluate --all", func(t *testing.T) {
		data := suiteOf(killSuite)
		out := filepath.Join(t.TempDir(), "public")
		killLoop(t, bin, data, out, []string{"evaluate", "--all", "--quiet", "--data", data, "--out", out}, 24, 0)
	})
	t.Run("build", func(t *testing.T) {
		data := suiteOf(buildKillSuite)
		// One snapshot keeps a run short enough for many kills.
		for _, l := range []string{"baseline-v1", "candidate-v2"} {
			os.Remove(filepath.Join(data, "outputs", l+".jsonl"))
		}
		out := filepath.Join(t.TempDir(), "public")
		killLoop(t, bin, data, out, []string{"build", "--quiet", "--data", data, "--out", out}, 16, 200)
	})
}
