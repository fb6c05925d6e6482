//go:build unix

package main

import (
	"os"
	"syscall"
)

// freeBytes returns the bytes free to this user on the file system of
// path, and the file system's device number.
func freeBytes(path string) (int64, uint64, error) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return 0, 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	dev := uint64(0)
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		dev = uint64(sys.Dev)
	}
	return int64(fs.Bavail) * int64(fs.Bsize), dev, nil
}
