package main

import (
	"net"
	"strings"
	"testing"
)

func TestServeRefusals(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"port taken", []string{"serve", "--data", sampleData, "--addr", busy}, exitFail,
			"releasegate: " + busy + " is already in use; pick another with --addr\n"},
		{"no data folder", []string{"serve", "--data", "no-such-folder", "--addr", "127.0.0.1:0"}, exitFail,
			"releasegate: no-such-folder: no such folder — run from the folder that holds no-such-folder/, or give the data folder with --data DIR\n"},
		{"web folder without templates", []string{"serve", "--data", sampleData, "--web", sampleData, "--addr", "127.0.0.1:0"}, exitFail,
			"releasegate: --web " + sampleData + ": it has no templates/ folder\n"},
		{"unknown flag", []string{"serve", "--port", "80"}, exitUsage, "flag provided but not defined: -port"},
		{"stray argument", []string{"serve", "data"}, exitUsage, `unexpected argument "data"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tt.code, tt.stderr)
			}
		})
	}
}
