//go:build unix

package compress

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenFIFO: Open refuses a named pipe with ErrNotFile (fs_open's
// FS_EIO in C) without opening it, where the open blocked until a writer
// came.
func TestOpenFIFO(t *testing.T) {
	ff := filepath.Join(t.TempDir(), "ff")
	if err := syscall.Mkfifo(ff, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := Open(ff); !errors.Is(err, ErrNotFile) {
		t.Errorf("Open of a named pipe: %v, want ErrNotFile", err)
	}
}
