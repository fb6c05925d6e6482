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
	if m := st.Mode(); m.IsRegular() || m.IsDir() {
		return nil
	}
	return fmt.Errorf("%s, %w: give a file (save what a pipe carries to one first)", Kind(st.Mode()), ErrSpecial)
}

// Kind names what a file of mode m is for messages: "a named pipe", "a
// device", "a folder", "a symbolic link", "a socket", "a regular file" or
// "a special file".
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
