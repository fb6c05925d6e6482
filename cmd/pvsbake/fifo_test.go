//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInputs: a named pipe given as a DEM, a RAW heightmap, a store or
// a shard's partial file is refused in one line (exit 1), without opening
// it: the open of a pipe nobody writes blocked forever.
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	ff, raw := filepath.Join(dir, "ff"), filepath.Join(dir, "ff.raw")
	for _, p := range []string{ff, raw} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	out := filepath.Join(dir, "x.pvs")
	for _, args := range [][]string{
		{"bake", ff, "-o", out, "--budget", "1MB"},
		{"bake", raw, "--cell-size", "1", "--height-range", "0,100", "-o", out, "--budget", "1MB"},
		{"info", ff},
		{"stat", ff},
		{"join", "-o", out, ff, ff},
		{"viewshed", ff, "--at", "1,1", "-o", filepath.Join(dir, "v.tif")},
	} {
		done := make(chan struct{})
		var errOut string
		var code int
		go func() {
			_, errOut, code = runCmd(args...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: still blocked after 20 s", args)
		}
		if code != 1 || !strings.Contains(errOut, "a named pipe, not a regular file") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}
