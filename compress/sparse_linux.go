//go:build linux

package compress

import (
	"os"
	"syscall"
)

// dataBytes returns how many of f's size bytes the file system holds as
// data rather than holes (SEEK_DATA and SEEK_HOLE), and false when it
// cannot tell.
func dataBytes(f *os.File, size int64) (int64, bool) {
	const seekData, seekHole = 3, 4
	fd := int(f.Fd())
	var data int64
	for off := int64(0); off < size; {
		start, err := syscall.Seek(fd, off, seekData)
		if err == syscall.ENXIO {
			break // only a hole from off to the end
		}
		if err != nil {
			return 0, false
		}
		end, err := syscall.Seek(fd, start, seekHole)
		if err != nil {
			return 0, false
		}
		data += end - start
		off = end
	}
	return data, true
}
