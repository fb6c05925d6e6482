//go:build windows

package atomicfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive lock on f's first byte without waiting
// (LockFileEx): nil when taken, an error when another handle holds it.
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// syncFolders is false: Windows refuses to flush a folder's handle
// (access denied), and NTFS journals the renames itself.
const syncFolders = false

// bornLocked is false: Windows does not rename a file this process holds
// open, so a temporary file is locked after its creation under its name,
// and sweeps spare unlocked ones younger than staleAfter.
const bornLocked = false

// renamed is not called where files are not bornLocked.
func renamed(f *os.File, name string) (*os.File, error) {
	return nil, errors.New("atomicfile: renaming an open file")
}

// oNoFollow is 0: CheckTarget's Lstat refuses links before the open.
const oNoFollow = 0

// inUse reports whether err is Windows refusing to replace or remove a
// file that another process holds open.
func inUse(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
