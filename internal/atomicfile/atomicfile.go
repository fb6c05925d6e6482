// Package atomicfile writes output files so that an interrupted or failed
// write never leaves a partial file under the output name.
package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write calls fill with a buffered writer on a temporary file beside path
// (mode 0644), then renames the file to path. When fill, the flush, the
// close or the rename fails, the temporary file is removed and the error
// returned; path is then untouched.
func Write(path string, fill func(w io.Writer) error) (err error) {
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
