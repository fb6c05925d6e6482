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

// syncFolders: a folder opened for reading can be fsynced.
const syncFolders = true

// bornLocked: temporary files are locked before they take their names
// (createLocked), which a rename of an open file allows here.
const bornLocked = true

// renamed returns an *os.File named name for f's open file (its lock
// held throughout: a duplicate descriptor shares the open file
// description that flock locks) and closes f, whose Name is the old one.
func renamed(f *os.File, name string) (*os.File, error) {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(fd)
	nf := os.NewFile(uintptr(fd), name)
	f.Close()
	return nf, nil
}

// oNoFollow makes an open fail on a symbolic link.
const oNoFollow = syscall.O_NOFOLLOW

// inUse is false: Unix replaces a file whoever holds it open.
func inUse(error) bool { return false }
