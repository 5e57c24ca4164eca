package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "releasegate (devel) (" + runtime.Version() + " linux/amd64)"},
		{"installed release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}},
			"releasegate v1.2.0 (go1.26.8 linux/amd64)"},
		{"checkout build", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d"}, {Key: "vcs.modified", Value: "true"}}},
			"releasegate (devel) commit 1a2b3c4d5e6f, modified (go1.26.8 linux/amd64)"},
		{"clean checkout", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			"releasegate (devel) commit abc (go1.26.8 linux/amd64)"},
	}
	for _, tt := range tests {
		if got := versionLine(tt.info, "linux/amd64"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "releasegate ") || !strings.Contains(out, runtime.Version()) || !strings.HasSuffix(out, "\n") {
		t.Errorf("version printed %q", out)
	}
	if code := run([]string{"version", "extra"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("version with an argument: exit %d, want %d", code, exitUsage)
	}
}

func TestReleaseOf(t *testing.T) {
	tests := []struct{ version, want string }{
		{"v1.2.0", "v1.2.0"},
		{"v1.3.0-rc.1", "v1.3.0-rc.1"},
		{"(devel)", ""},
		{"", ""},
		{"v0.0.0-20260101120000-abcdef123456", ""},
		{"v1.2.1-0.20260101120000-abcdef123456", ""},
		{"v1.2.0+dirty", ""},
	}
	for _, tt := range tests {
		if got := releaseOf(&debug.BuildInfo{Main: debug.Module{Version: tt.version}}); got != tt.want {
			t.Errorf("releaseOf(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
	if got := releaseOf(nil); got != "" {
		t.Errorf("releaseOf(nil) = %q", got)
	}
}

// TestVersionFlag: --version is the version command, as in most tools.
func TestVersionFlag(t *testing.T) {
	for _, flag := range []string{"--version", "-version"} {
		var a, b, stderr bytes.Buffer
		run([]string{"version"}, &a, &stderr)
		if code := run([]string{flag}, &b, &stderr); code != exitOK || a.String() != b.String() {
			t.Errorf("%s: exit %d, printed %q, want %q", flag, code, b.String(), a.String())
		}
	}
}
