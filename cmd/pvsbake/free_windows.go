//go:build windows

package main

import (
	"hash/fnv"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// freeBytes returns the bytes free to this user on the volume of path
// (GetDiskFreeSpaceEx), and a number naming the volume (its root's path,
// hashed) for telling folders on one volume from those on another.
func freeBytes(path string) (int64, uint64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, 0, err
	}
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return 0, 0, err
	}
	var free, total, totalFree uint64
	if err := windows.GetDiskFreeSpaceEx(p, &free, &total, &totalFree); err != nil {
		return 0, 0, err
	}
	h := fnv.New64a()
	h.Write([]byte(strings.ToUpper(filepath.VolumeName(abs))))
	return int64(free), h.Sum64(), nil
}
