//go:build unix

package cli

import (
	"os/signal"
	"syscall"
)

// IgnoreFileSizeLimit makes a file size limit (ulimit -f) fail writes, as
// a full disk does, rather than kill the process (SIGXFSZ).
func IgnoreFileSizeLimit() { signal.Ignore(syscall.SIGXFSZ) }
