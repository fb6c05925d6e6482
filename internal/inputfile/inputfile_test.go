//go:build unix

package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCheck: a named pipe is refused, without blocking, also behind a
// symbolic link; regular files, folders and missing paths are left to the
// open.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ff")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(fifo, link)
	regular := filepath.Join(dir, "r")
	os.WriteFile(regular, []byte("x"), 0o644)
	for _, p := range []string{fifo, link, "/dev/null"} {
		if err := Check(p); !errors.Is(err, ErrSpecial) {
			t.Errorf("%s: %v, want ErrSpecial", p, err)
		}
	}
	for _, p := range []string{regular, dir, filepath.Join(dir, "missing")} {
		if err := Check(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
