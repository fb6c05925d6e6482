package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File is a path a command reads or writes, named by the flag or argument
// that gave it ("-o", "--png", "DEM").
type File struct {
	Flag, Path string
}

// CheckOutputs refuses outputs that would destroy an input or each other
// before any work starts: an output naming the same file as an input (the
// same path, or an existing file that is the same inode, through links),
// or two outputs naming the same file. Empty paths are ignored. The error is
// a *UsageError naming both flags.
func CheckOutputs(inputs, outputs []File) error {
	same := func(a, b string) bool {
		if a == "" || b == "" {
			return false
		}
		if pa, err1 := filepath.Abs(a); err1 == nil {
			if pb, err2 := filepath.Abs(b); err2 == nil && filepath.Clean(pa) == filepath.Clean(pb) {
				return true
			}
		}
		sa, err1 := os.Stat(a)
		sb, err2 := os.Stat(b)
		return err1 == nil && err2 == nil && os.SameFile(sa, sb)
	}
	for k, o := range outputs {
		for _, in := range inputs {
			if same(o.Path, in.Path) {
				return Usagef("%s %s is the input %s; write the output elsewhere", o.Flag, o.Path, strings.TrimPrefix(in.Flag, "-"))
			}
		}
		for _, p := range outputs[:k] {
			if same(o.Path, p.Path) {
				return Usagef("%s and %s both write %s; give them different paths", p.Flag, o.Flag, o.Path)
			}
		}
	}
	return nil
}

// Within reports an error unless path, cleaned, stays inside dir: for
// output names built from data (a partial file's labels), which must not
// climb out of the folder the user chose.
func Within(dir, path string) error {
	d, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(d, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is outside %s", path, dir)
	}
	return nil
}
