// Package atomicfile writes output files so that an interrupted or failed
// write never leaves a partial file under the output name.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write calls fill with a buffered writer on a temporary file beside path
// (mode 0644), then renames the file to path. When fill, the flush, the
// close or the rename fails, the temporary file is removed and the error
// returned; path is then untouched. A path naming anything but a regular
// file is refused (CheckTarget).
func Write(path string, fill func(w io.Writer) error) (err error) {
	if err := CheckTarget(path); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ErrNotRegular is wrapped by CheckTarget's errors: an output path naming
// something other than a regular file, which renaming a new file over would
// replace (a device such as /dev/null, a FIFO, a directory, a symbolic
// link).
var ErrNotRegular = errors.New("not a regular file")

// CheckTarget returns an error wrapping ErrNotRegular when path exists and
// is not a regular file; a new path or a regular file is fine. Every writer
// of this package calls it first, and writers that rename their own
// temporary files should too.
func CheckTarget(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return nil // a new path (or one Create will report)
	}
	if st.Mode().IsRegular() {
		return nil
	}
	what := "a special file"
	switch m := st.Mode(); {
	case m&os.ModeDevice != 0:
		what = "a device"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m.IsDir():
		what = "a folder"
	case m&os.ModeSymlink != 0:
		what = "a symbolic link"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%s is %s, %w: write to a new or regular file", path, what, ErrNotRegular)
}
