//go:build unix

package main

import "syscall"

// openFilesAllowed is RLIMIT_NOFILE's soft limit (ulimit -n), 0 when
// unknown.
func openFilesAllowed() int {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil || lim.Cur > 1<<30 {
		return 0
	}
	return int(lim.Cur)
}
