//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFOInputs: a named pipe given as a store (a query, serve, verify)
// is refused in one line (exit 1) without opening it: the open of a pipe
// nobody writes blocked forever.
func TestFIFOInputs(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(ff, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, args := range [][]string{
		{ff, "--a", "1,1", "--b", "2,2"},
		{"serve", ff},
		{"verify", ff},
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
		if code != 1 || !strings.Contains(errOut, "a named pipe, not a regular file") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}
