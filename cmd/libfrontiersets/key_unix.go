//go:build unix

package main

import (
	"os"
	"syscall"
)

// keyOf returns path's file key, and false when it has none.
func keyOf(path string) (fileKey, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileKey{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.Mode().IsRegular() {
		return fileKey{}, false
	}
	return fileKey{uint64(st.Dev), uint64(st.Ino), uint64(fi.Size()), fi.ModTime().UnixNano()}, true
}
