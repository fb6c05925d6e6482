// Command release packs the release archives that make release stages:
// for each target folder STAGE/OS-ARCH holding pvsbake and frontierq (and,
// for some, the C library), an archive OUT/frontiersets-VERSION-OS-ARCH
// (.zip for Windows, .tar.gz elsewhere) with the programs, the C library
// and its header where built, README.md, LICENSE and docs/commands; the
// Unity package with the native libraries of every target that has one
// (frontiersets-VERSION-unity.zip); and OUT/SHA256SUMS. Archives are the
// same bytes for the same inputs: entries in name order, one fixed time,
// modes 0755 for programs and 0644 otherwise, no owner names.
//
// Usage: go run ./deploy/release -version V -stage DIR -out DIR
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/frontiersets/frontiersets/internal/atomicfile"
)

// stamp is every entry's modification time: the archives must not depend
// on when they were packed.
var stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// entry is one file of an archive: its path inside, its bytes, whether it
// runs.
type entry struct {
	name string
	data []byte
	exec bool
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fset := flag.NewFlagSet("release", flag.ContinueOnError)
	version := fset.String("version", "", "the release's `version`, e.g. v0.9.0")
	stage := fset.String("stage", "build/release/stage", "`folder` of the built targets, one OS-ARCH folder each")
	out := fset.String("out", "build/release", "`folder` the archives and SHA256SUMS are written to")
	root := fset.String("root", ".", "the repository's `root` (README.md, LICENSE, docs/commands, bindings/unity)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *version == "" || strings.ContainsAny(*version, `/\ `) {
		return fmt.Errorf("-version %q: want a version such as v0.9.0", *version)
	}
	common, err := commonFiles(*root)
	if err != nil {
		return err
	}
	targets, err := os.ReadDir(*stage)
	if err != nil {
		return err
	}
	var written []string
	unity := map[string][]byte{} // Plugins path → library
	for _, t := range targets {
		if !t.IsDir() || !strings.Contains(t.Name(), "-") {
			continue
		}
		goos, goarch, _ := strings.Cut(t.Name(), "-")
		files, err := os.ReadDir(filepath.Join(*stage, t.Name()))
		if err != nil {
			return err
		}
		base := fmt.Sprintf("frontiersets-%s-%s-%s", *version, goos, goarch)
		var es []entry
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(*stage, t.Name(), f.Name()))
			if err != nil {
				return err
			}
			exec := !strings.Contains(f.Name(), ".") || strings.HasSuffix(f.Name(), ".exe")
			es = append(es, entry{path.Join(base, f.Name()), b, exec})
			if lib := unityPlugin(goos, goarch, f.Name()); lib != "" {
				unity[lib] = b
			}
		}
		for _, c := range common {
			es = append(es, entry{path.Join(base, c.name), c.data, false})
		}
		name := base + ".tar.gz"
		pack := tarGz
		if goos == "windows" {
			name, pack = base+".zip", zipped
		}
		if err := writeArchive(filepath.Join(*out, name), es, pack); err != nil {
			return err
		}
		written = append(written, name)
	}
	if len(written) == 0 {
		return fmt.Errorf("no OS-ARCH folders in %s: run make release", *stage)
	}
	if len(unity) > 0 {
		es, err := unityPackage(*root, *version, unity)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("frontiersets-%s-unity.zip", *version)
		if err := writeArchive(filepath.Join(*out, name), es, zipped); err != nil {
			return err
		}
		written = append(written, name)
	}
	return writeSums(*out, written)
}

// commonFiles are the files every archive holds: README.md, LICENSE and
// the commands' reference pages.
func commonFiles(root string) ([]entry, error) {
	var es []entry
	for _, name := range []string{"README.md", "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return nil, err
		}
		es = append(es, entry{name: name, data: b})
	}
	err := filepath.WalkDir(filepath.Join(root, "docs", "commands"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		es = append(es, entry{name: filepath.ToSlash(rel), data: b})
		return nil
	})
	return es, err
}

// unityPlugin names where a target's C library goes in the Unity
// package's Plugins folder, "" for any other file.
func unityPlugin(goos, goarch, file string) string {
	arch := map[string]string{"amd64": "x86_64", "arm64": "arm64"}[goarch]
	switch {
	case arch == "":
		return ""
	case goos == "linux" && file == "libfrontiersets.so", goos == "windows" && file == "frontiersets.dll":
		return path.Join("Plugins", goos, arch, file)
	}
	return ""
}

// packageVersion is package.json's version field.
var packageVersion = regexp.MustCompile(`"version":\s*"[^"]*"`)

// unityPackage is the Unity package (bindings/unity) with the native
// libraries built for it, its package.json's version the release's
// (without a leading v).
func unityPackage(root, version string, libs map[string][]byte) ([]entry, error) {
	dir := filepath.Join(root, "bindings", "unity")
	var es []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "Plugins" {
				return filepath.SkipDir // the ones built here go in below
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "package.json" {
			b = packageVersion.ReplaceAll(b, []byte(`"version": "`+strings.TrimPrefix(version, "v")+`"`))
		}
		es = append(es, entry{name: path.Join("com.frontiersets.frontiersets", rel), data: b})
		return nil
	})
	// The native libraries with their .meta files, and their folders'.
	folders := map[string]bool{}
	for name, b := range libs {
		es = append(es, entry{name: path.Join("com.frontiersets.frontiersets", name), data: b},
			entry{name: path.Join("com.frontiersets.frontiersets", name+".meta"), data: unityMeta(name, false)})
		for d := path.Dir(name); d != "."; d = path.Dir(d) {
			folders[d] = true
		}
	}
	for d := range folders {
		es = append(es, entry{name: path.Join("com.frontiersets.frontiersets", d+".meta"), data: unityMeta(d, true)})
	}
	return es, err
}

// writeArchive packs es, sorted by name, into path through a temporary
// file renamed into place.
func writeArchive(path string, es []entry, pack func(io.Writer, []entry) error) error {
	slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	if err := pack(&buf, es); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFile(path, buf.Bytes())
}

func tarGz(w io.Writer, es []entry) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, e := range es {
		mode := int64(0o644)
		if e.exec {
			mode = 0o755
		}
		h := &tar.Header{Name: e.name, Mode: mode, Size: int64(len(e.data)), ModTime: stamp, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	return errors.Join(tw.Close(), gz.Close())
}

func zipped(w io.Writer, es []entry) error {
	zw := zip.NewWriter(w)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: stamp}
		mode := fs.FileMode(0o644)
		if e.exec {
			mode = 0o755
		}
		h.SetMode(mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes OUT/SHA256SUMS for the archives named, in
// sha256sum's format.
func writeSums(out string, names []string) error {
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(data), n)
	}
	return writeFile(filepath.Join(out, "SHA256SUMS"), []byte(b.String()))
}

// writeFile writes data to path through a temporary file beside it
// (atomicfile.Write), making its folder first.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}
