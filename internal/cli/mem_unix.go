//go:build unix

package cli

import "syscall"

// systemAvailable is the memory the system can still give (MemAvailable
// in /proc/meminfo), 0 when unknown (no /proc: macOS).
func systemAvailable() int64 { return procField("/proc/meminfo", "MemAvailable:") }

// addressSpaceLeft is the address space RLIMIT_AS leaves (the limit less
// VmSize: ulimit -v), 0 when there is no limit or it is unknown.
func addressSpaceLeft() int64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) != nil || lim.Cur >= 1<<62 /* RLIM_INFINITY */ {
		return 0
	}
	return max(int64(lim.Cur)-procField("/proc/self/status", "VmSize:"), 1)
}
