// Command scale measures releasegate at scale beside the floor: it
// generates a suite of N cases × 3 snapshots (once, kept in --dir), then
// times the JSON-validity floor and each command on the same files, runs
// times each, and prints the best run and the spread. See docs/design.md,
// "Scale: streaming evaluation".
//
//	go run ./internal/cmd/scale -cases 300000
//	go run ./internal/cmd/scale -cases 100000 -commands evaluate,build
//	go run ./internal/cmd/scale -cases 100000 -shuffled
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/releasegate/releasegate/evaluator/gensuite"
	"github.com/releasegate/releasegate/internal/floor"
)

func main() {
	// Run as a child, the floor is measured in a process of its own, as
	// the commands are.
	if len(os.Args) == 3 && os.Args[1] == "-floor" {
		files, err := floor.Files(os.Args[2])
		if err == nil {
			_, err = floor.Check(files)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	cases := flag.Int("cases", 100_000, "generate `N` cases in each of 3 snapshots")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "releasegate-scale"), "keep generated suites and outputs under `DIR`")
	runs := flag.Int("runs", 3, "run each measurement `K` times")
	commands := flag.String("commands", "evaluate", "measure these commands, comma separated: evaluate, build")
	bin := flag.String("bin", "", "measure the releasegate binaries at `PATHS`, comma separated, side by side (default: build ./cmd/releasegate)")
	sample := flag.String("sample", "data", "generate suites from the sample data folder `DIR`")
	shuffled := flag.Bool("shuffled", false, "put each snapshot's lines in a random order, as an agent run in parallel writes them")
	flag.Parse()
	if err := run(*sample, *cases, *shuffled, *dir, *runs, strings.Split(*commands, ","), *bin); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// measurement is one run of one process.
type measurement struct {
	user, wall time.Duration
	peakMB     float64
}

func run(sample string, n int, shuffled bool, dir string, runs int, commands []string, bin string) error {
	data := filepath.Join(dir, fmt.Sprintf("data-%d", n))
	if shuffled {
		data += "-shuffled"
	}
	if _, err := os.Stat(filepath.Join(data, "gate.json")); err != nil {
		fmt.Printf("generating %d cases × 3 snapshots in %s\n", n, data)
		os.RemoveAll(data + ".tmp")
		if err := gensuite.Write(sample, data+".tmp", n); err != nil {
			return err
		}
		if shuffled {
			if err := gensuite.Shuffle(data+".tmp", 1); err != nil {
				return err
			}
		}
		if err := os.Rename(data+".tmp", data); err != nil {
			return err
		}
	}
	if bin == "" {
		bin = filepath.Join(dir, "releasegate")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/releasegate").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	bins := strings.Split(bin, ",")
	self, err := os.Executable()
	if err != nil {
		return err
	}
	type job struct {
		name string
		args []string
	}
	jobs := []job{{"floor", []string{self, "-floor", data}}}
	for _, c := range commands {
		for _, b := range bins {
			name := c
			if len(bins) > 1 {
				name += " " + filepath.Base(b)
			}
			out := filepath.Join(dir, "public-"+c+"-"+filepath.Base(b))
			switch c {
			case "evaluate":
				jobs = append(jobs, job{name, []string{b, "evaluate", "--all", "--data", data, "--out", out, "--quiet"}})
			case "build":
				jobs = append(jobs, job{name, []string{b, "build", "--data", data, "--out", out, "--quiet"}})
			default:
				return fmt.Errorf("no command %q to measure: use evaluate or build", c)
			}
		}
	}
	results := make([][]measurement, len(jobs))
	// Interleave the jobs so that a noisy moment hits them alike.
	for range runs {
		for j, jb := range jobs {
			m, err := measure(jb.args)
			if err != nil {
				return fmt.Errorf("%s: %w", jb.name, err)
			}
			results[j] = append(results[j], m)
		}
	}
	floorUser := best(results[0], func(m measurement) float64 { return m.user.Seconds() })
	order := ""
	if shuffled {
		order = ", lines shuffled"
	}
	fmt.Printf("%d cases × 3 snapshots%s, best of %d (spread)\n", n, order, runs)
	fmt.Printf("%-28s %22s %22s %24s %8s\n", "", "user s", "wall s", "peak RSS MB", "× floor")
	for j, jb := range jobs {
		user := stat(results[j], func(m measurement) float64 { return m.user.Seconds() })
		wall := stat(results[j], func(m measurement) float64 { return m.wall.Seconds() })
		rss := stat(results[j], func(m measurement) float64 { return m.peakMB })
		ratio := best(results[j], func(m measurement) float64 { return m.user.Seconds() }) / floorUser
		fmt.Printf("%-28s %22s %22s %24s %8.2f\n", jb.name, user, wall, rss, ratio)
	}
	return nil
}

// measure runs args and reports its user time, wall time and peak RSS.
func measure(args []string) (measurement, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return measurement{}, err
	}
	m := measurement{user: cmd.ProcessState.UserTime(), wall: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.peakMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	return m, nil
}

func best(ms []measurement, f func(measurement) float64) float64 {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	return slices.Min(v)
}

// stat is the best of ms and, beside it, the range they spread over.
func stat(ms []measurement, f func(measurement) float64) string {
	v := make([]float64, len(ms))
	for i, m := range ms {
		v[i] = f(m)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", slices.Min(v), slices.Min(v), slices.Max(v))
}
