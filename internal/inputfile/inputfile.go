// Package inputfile checks a path before a reader opens it: opening a named
// pipe blocks until a writer comes (forever, for a pipe nobody writes), and a
// device or socket is no file to read a DEM, store or table from.
package inputfile

import (
	"errors"
	"fmt"
	"os"
)

// ErrSpecial is wrapped by Check's errors.
var ErrSpecial = errors.New("not a regular file")

// Check returns an error wrapping ErrSpecial when path names a named pipe,
// saying which (without the path: callers name it),
// a socket or a device (following symbolic links, as the open would), and
// nil otherwise: for a regular file, a folder (a few raster formats are
// folders) and a path that does not exist (the open reports it). It opens
// nothing, so it never blocks.
func Check(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	what := ""
	switch m := st.Mode(); {
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeDevice != 0:
		what = "a device"
	case m&os.ModeIrregular != 0:
		what = "a special file"
	default:
		return nil
	}
	return fmt.Errorf("%s, %w: give a file (save what a pipe carries to one first)", what, ErrSpecial)
}
