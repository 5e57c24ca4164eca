package main

import (
	"fmt"
	"io"
	"regexp"
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
	fmt.Fprintln(stdout, versionLine(buildInfo(), runtime.GOOS+"/"+runtime.GOARCH))
	return exitOK
}

// buildInfo is the binary's build information with the stamped release,
// if any, as its version; nil when it carries none.
func buildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	if stampedVersion != "" {
		if info == nil {
			info = &debug.BuildInfo{}
		}
		stamped := *info
		stamped.Main.Version = stampedVersion
		info = &stamped
	}
	return info
}

// releaseOf is the release this binary was built from ("v1.2.0"), or ""
// for a development build: the version workflows written by init pin.
func releaseOf(info *debug.BuildInfo) string {
	if info == nil || !semverTag.MatchString(info.Main.Version) || pseudoVersion.MatchString(info.Main.Version) {
		return ""
	}
	return info.Main.Version
}

// semverTag matches a release tag, "v1.2.3" or "v1.2.3-rc.1", but not the
// pseudo-version of an untagged commit ("v0.0.0-20260101-abcdef").
var (
	semverTag     = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
	pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)
)

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

// stampedVersion is the release a packaged binary was built from, set by
// the linker (-X main.stampedVersion=v1.2.3, as .goreleaser.yaml does);
// empty in any other build, whose version comes from its build
// information.
var stampedVersion string
