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
