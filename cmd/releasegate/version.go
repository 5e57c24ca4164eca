package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

const versionHelp = `Usage:

  releasegate version

Print the version of releasegate (a release tag when installed with
"go install ...@version", "(devel)" for a build from a checkout), the
source revision when the build recorded one, and the Go version and
platform it was built for.

Examples:

  releasegate version
`

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version")
	if code := parseFlags(fs, versionHelp, args, stdout, stderr); code >= 0 {
		return code
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(info, runtime.GOOS+"/"+runtime.GOARCH))
	return exitOK
}

// versionLine describes a build: "releasegate v1.2.0 (go1.26.8 linux/amd64)"
// or "releasegate (devel) commit 1a2b3c4d5e6f, modified (go1.26.8 linux/amd64)".
// info is nil when the binary carries no build information.
func versionLine(info *debug.BuildInfo, platform string) string {
	version, goVersion := "(devel)", runtime.Version()
	var revision, modified string
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	line := "releasegate " + version
	if revision != "" {
		if len(revision) > 12 {
			revision = revision[:12]
		}
		line += " commit " + revision
		if modified == "true" {
			line += ", modified"
		}
	}
	return fmt.Sprintf("%s (%s %s)", line, goVersion, platform)
}
