//go:build windows

package main

// openFilesAllowed is 0 (no limit known): Windows has no ulimit -n, and
// sockets are not counted against the C runtime's descriptors.
func openFilesAllowed() int { return 0 }
