//go:build windows

package compress

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapFile maps the size bytes of f read-only (a file mapping and a view of
// it), so that processes reading the same store share its pages; unmap
// releases the view. Windows refuses to truncate a file while a view of
// it is mapped.
func mapFile(f *os.File, size int64) (b []byte, unmap func() error, err error) {
	if size <= 0 {
		return nil, nil, &FormatError{0, "empty file"}
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("a %d-byte file cannot be mapped on this machine", size)
	}
	h, err := windows.CreateFileMapping(windows.Handle(f.Fd()), nil, windows.PAGE_READONLY, uint32(size>>32), uint32(size), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("map the file: %w", err)
	}
	addr, err := windows.MapViewOfFile(h, windows.FILE_MAP_READ, 0, 0, uintptr(size))
	windows.CloseHandle(h) // the view keeps the mapping
	if err != nil {
		return nil, nil, fmt.Errorf("map the file: %w", err)
	}
	// SAFETY: the view spans size bytes at addr, memory Go does not
	// manage, until UnmapViewOfFile; read through the address's bits, as
	// golang.org/x/sys's own views are.
	b = unsafe.Slice(*(**byte)(unsafe.Pointer(&addr)), int(size))
	return b, func() error { return windows.UnmapViewOfFile(addr) }, nil
}
