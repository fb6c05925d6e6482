// Package atomicfile writes output files so that an interrupted or failed
// write never leaves a partial file under the output name.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/frontiersets/frontiersets/internal/inputfile"
)

// Write calls fill with a buffered writer on a locked temporary file
// beside path (Create: what a killed writer of path left is removed), then
// renames the file to path with mode 0644 (CommitAll, which sweeps what
// was too young to remove at the start). When fill, the flush or the
// commit fails, the temporary file is removed and the error returned;
// path is then untouched. A path naming anything but a regular file is
// refused (CheckTarget).
func Write(path string, fill func(w io.Writer) error) (err error) {
	t, err := Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(t)
	if err = fill(bw); err == nil {
		err = bw.Flush()
	}
	if err != nil {
		t.Abort()
		return err
	}
	return CommitAll([]*Temp{t})
}

// ErrNotRegular is wrapped by CheckTarget's errors: an output path naming
// something other than a regular file, which renaming a new file over would
// replace (a device such as /dev/null, a FIFO, a directory, a symbolic
// link).
var ErrNotRegular = errors.New("not a regular file")

// ErrInUse is wrapped by the errors of a commit that Windows refused
// because another process holds the final file open (a frontierq serve,
// a game or an editor reading the store): the old file is kept, and the
// temporary file removed.
var ErrInUse = errors.New("it is open in another program (a frontierq serve, a game, an editor), which Windows does not let a file be replaced under; close it there and run again (the old file is kept)")

// replaceErr turns Windows' refusal to rename over an open file into
// ErrInUse; other errors pass unchanged.
func replaceErr(err error) error {
	if err != nil && inUse(err) {
		return fmt.Errorf("%w (%v)", ErrInUse, err)
	}
	return err
}

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
	return fmt.Errorf("%s is %s, %w: write to a new or regular file", path, inputfile.Kind(st.Mode()), ErrNotRegular)
}
