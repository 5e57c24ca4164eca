package serve

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// A live server holds one site and, while it rebuilds, the pages of the
// next. Left to itself the runtime lets the heap grow to twice what is
// live before it collects, which on a large suite is hundreds of MiB
// that the server never needs. The server therefore sets a soft memory
// limit a little above what its last full build left live, unless the
// user set one with GOMEMLIMIT: the collector then runs as the limit
// nears, and the runtime gives memory back to stay below it.

// memoryHeadroom is how far above the live heap the limit lies: half of
// it, and at least minHeadroom, so that a rebuild's pages and scratch fit
// without a collection at every step (each marks the whole site).
func memoryHeadroom(live uint64) uint64 { return max(live/2, minHeadroom) }

const minHeadroom = 256 << 20

// userMemoryLimit reports whether the user chose the memory limit.
func userMemoryLimit() bool { return os.Getenv("GOMEMLIMIT") != "" }

// fitMemoryLimit returns what a full build left to the system and sets
// the soft memory limit above what is live now. It is called after a
// full build, whose garbage is a whole site.
func fitMemoryLimit() {
	debug.FreeOSMemory() // collects first, so the live heap is current
	if userMemoryLimit() {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := sample[0].Value.Uint64()
	debug.SetMemoryLimit(int64(live + memoryHeadroom(live)))
}

// startMemoryLimit sets the soft memory limit a watching server builds
// its first site under, before that build has shown what the site needs
// (firstBuildMemoryLimit), unless the user set one.
func startMemoryLimit() {
	if !userMemoryLimit() {
		debug.SetMemoryLimit(firstBuildMemoryLimit)
	}
}

// firstBuildMemoryLimit is what a server's first build runs under.
// Without a limit, the first build of 100,000 cases × 3 peaked at 1.2 GiB
// of resident memory; under this one, at 0.8 GiB, answering as soon. It
// is above the build command's (site.BuildMemoryLimit): a server keeps
// every output whole, to judge it again when its case changes, and its
// release alone is about 470 MiB at that size.
const firstBuildMemoryLimit = 768 << 20

// keepMemoryLimit returns a function that restores the memory limit as it
// is now, for a server to call when it stops.
func keepMemoryLimit() (restore func()) {
	prev := debug.SetMemoryLimit(-1) // a negative limit only reads it
	return func() {
		if !userMemoryLimit() {
			debug.SetMemoryLimit(prev)
		}
	}
}
