//go:build unix

package compress

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only and shared, so that processes
// reading the same store share its pages; unmap releases the mapping.
func mapFile(f *os.File, size int64) (b []byte, unmap func() error, err error) {
	if size <= 0 {
		return nil, nil, &FormatError{0, "empty file"}
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("a %d-byte file cannot be mapped on this machine", size)
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map the file: %w", err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
