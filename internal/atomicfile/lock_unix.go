//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive advisory lock on f without waiting (flock):
// nil when taken, an error when another open file holds it.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// oNoFollow makes an open fail on a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW
