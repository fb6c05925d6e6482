//go:build !unix && !windows

package compress

import (
	"io"
	"os"
)

// mapFile reads the size bytes of f into memory, where no mmap is at hand.
func mapFile(f *os.File, size int64) (b []byte, unmap func() error, err error) {
	b = make([]byte, size)
	if _, err := io.ReadFull(io.NewSectionReader(f, 0, size), b); err != nil {
		return nil, nil, &FormatError{0, "truncated file"}
	}
	return b, func() error { return nil }, nil
}
