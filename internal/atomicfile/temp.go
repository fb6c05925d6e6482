package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Temp is a temporary file written beside its final path, named
// ".BASE.tmpDIGITS". Its writer holds an exclusive flock on it for as long
// as the file is open, so that Create can tell the temporary files of a
// killed writer (unlocked: the kernel drops a dead process's locks) from
// those of one still running. On Unix the file is locked before it takes
// that name (createLocked), so an unlocked one is a killed writer's
// whatever its age. A Temp is not safe for concurrent use.
type Temp struct {
	*os.File
	Path string // the final path
}

// Create removes what an earlier, killed writer of path left behind — it
// first completes a multi-file commit whose journal names path (CommitAll),
// then removes unlocked ".BASE.tmp*" files — and creates a new locked
// temporary file for path. Errors name path.
func Create(path string) (*Temp, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
	if err := recoverCommits(path); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	removeStale(path)
	f, err := createLocked(filepath.Dir(path), "."+filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return &Temp{File: f, Path: path}, nil
}

// createLocked creates and locks a new file named base+".tmp"+DIGITS in
// dir. Where bornLocked, it is created under base+".new"+DIGITS, locked,
// then renamed, so that no sweep ever sees it unlocked under its name.
func createLocked(dir, base string) (*os.File, error) {
	if !bornLocked {
		f, err := os.CreateTemp(dir, base+".tmp*")
		if err != nil {
			return nil, err
		}
		if err := tryLock(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("cannot lock %s: %w", f.Name(), err)
		}
		return f, nil
	}
	for {
		f, err := os.CreateTemp(dir, base+".new*")
		if err != nil {
			return nil, err
		}
		if err = tryLock(f); err != nil {
			err = fmt.Errorf("cannot lock %s: %w", f.Name(), err)
		}
		name := filepath.Join(dir, base+".tmp"+strings.TrimPrefix(filepath.Base(f.Name()), base+".new"))
		if _, serr := os.Lstat(name); err == nil && serr == nil {
			f.Close() // the name is taken: another draw
			os.Remove(f.Name())
			continue
		}
		if err == nil {
			err = os.Rename(f.Name(), name)
		}
		if err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		nf, err := renamed(f, name)
		if err != nil {
			f.Close()
			os.Remove(name)
			return nil, err
		}
		return nf, nil
	}
}

// Abort closes and removes the temporary file.
func (t *Temp) Abort() {
	t.Close()
	os.Remove(t.Name())
}

// staleAfter is how old a file must be to be taken for a killed writer's
// where no lock can tell: a journal's temporary file, a file killed
// between its creation and its lock (createLocked's ".new" name), and,
// where files are not bornLocked, any unlocked temporary file.
const staleAfter = 5 * time.Second

// removeStale removes the temporary files of path that no living writer
// holds locked (where not bornLocked, only those older than staleAfter),
// and the temporary files of its commit journal (never locked: a journal
// is written in one go, so one older than staleAfter belongs to a writer
// killed while writing it, whose commit never started). A file whose name
// extends a locked one's (Sidecar: a file another library writes by name
// beside a locked temporary file) belongs to that living writer and is
// kept. Only names of the form ".BASE.tmpDIGITS…" are temporary files:
// ".BASE.tmp-keep" is someone else's.
func removeStale(path string) {
	sweep(filepath.Dir(path), globEscape(filepath.Base(path)))
}

// SweepStale removes what killed writers left of every file named prefix,
// any text, then suffix (a bake's stores "out-<budget>.pvs"), as Create
// does for its own path: the temporary files no living writer holds that
// are older than staleAfter. A command calls it for outputs that a rerun
// with other flags may not write again.
func SweepStale(prefix, suffix string) {
	sweep(filepath.Dir(prefix), globEscape(filepath.Base(prefix))+"*"+globEscape(suffix))
}

// sweep is removeStale for the final names matching base, a glob, in dir.
func sweep(dir, base string) {
	journals, _ := filepath.Glob(filepath.Join(dir, ".."+base+".commit.tmp[0-9]*"))
	unlocked, _ := filepath.Glob(filepath.Join(dir, "."+base+".new[0-9]*"))
	for _, name := range append(journals, unlocked...) {
		if st, err := os.Stat(name); err == nil && time.Since(st.ModTime()) >= staleAfter {
			os.Remove(name)
		}
	}
	m, _ := filepath.Glob(filepath.Join(dir, "."+base+".tmp[0-9]*"))
	var live, free []string
	for _, name := range m {
		if !tempName.MatchString(name) {
			continue // ".BASE.tmp9-keep": not a writer's
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if tryLock(f) == nil {
			free = append(free, name)
		} else {
			live = append(live, name)
		}
		f.Close()
	}
	for _, name := range free {
		if st, err := os.Stat(name); !bornLocked && (err != nil || time.Since(st.ModTime()) < staleAfter) {
			continue // maybe a writer between creating and locking it
		}
		if slices.ContainsFunc(live, func(l string) bool { return strings.HasPrefix(name, l) }) {
			continue // a living writer's sidecar
		}
		os.Remove(name) // nobody writes it
	}
}

// Sidecar returns the name of a file for another writer (a library that
// creates its output by name, such as GDAL's vector drivers) beside t: t's
// name followed by suffix. While t is open, Create and CommitAll of the
// same path keep it; once t is closed and staleAfter has passed, they
// remove it as a killed writer's.
func (t *Temp) Sidecar(suffix string) string { return t.Name() + suffix }

// CommitSidecar makes the sidecar file name (Sidecar) t's final file with
// mode 0644 and removes t itself, then what killed writers of the path
// left. On an error both are removed. Errors name the final path.
func (t *Temp) CommitSidecar(name string) error {
	defer removeStale(t.Path)
	err := os.Chmod(name, 0o644)
	if err == nil {
		err = os.Rename(name, t.Path)
	}
	if err != nil {
		os.Remove(name)
		t.Abort()
		return fmt.Errorf("write %s: %w", t.Path, replaceErr(err))
	}
	t.Abort()
	return syncDir(filepath.Dir(t.Path))
}

// tempName matches the names of temporary files (".tmp" and decimal
// digits, as os.CreateTemp draws them) and of their sidecars (a suffix
// after a dot).
var tempName = regexp.MustCompile(`\.tmp[0-9]+(\..*)?$`)

// globEscape escapes the metacharacters of filepath.Match in s.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// journalEntry is one rename of a multi-file commit.
type journalEntry struct {
	Temp string `json:"temp"`
	Path string `json:"path"`
}

// CommitAll makes several temporary files their final files, all or none:
// each is synced and closed after chmod 0644; then, for more than one, a
// journal ".BASE.commit" (BASE: the first file's) listing the renames is
// written atomically and synced before the renames, and removed after
// them. A writer killed after the journal is written leaves the commit to
// the next Create of any of its paths, which completes it; killed before,
// it leaves only temporary files, which that Create removes. On an error
// before the journal every temporary file is removed. Errors name the
// file.
func CommitAll(temps []*Temp) error {
	for i, t := range temps {
		err := t.Chmod(0o644)
		if err == nil {
			err = t.Sync()
		}
		if err != nil {
			for _, u := range temps {
				u.Abort()
			}
			return fmt.Errorf("write %s: %w", temps[i].Path, err)
		}
	}
	// What a writer killed shortly before this one started left (too young
	// then for Create to tell from a writer about to lock its file) is
	// stale by now.
	defer func() {
		for _, t := range temps {
			removeStale(t.Path)
		}
	}()
	if !bornLocked {
		// Windows renames no file a process holds open: close them first
		// (their locks go; sweeps spare them as younger than staleAfter).
		for _, t := range temps {
			t.Close()
		}
	}
	if len(temps) == 1 {
		t := temps[0]
		err := os.Rename(t.Name(), t.Path)
		t.Close()
		if err != nil {
			os.Remove(t.Name())
			return fmt.Errorf("write %s: %w", t.Path, replaceErr(err))
		}
		return syncDir(filepath.Dir(t.Path))
	}
	entries := make([]journalEntry, len(temps))
	for i, t := range temps {
		entries[i] = journalEntry{Temp: t.Name(), Path: t.Path}
	}
	journal := journalPath(temps[0].Path)
	data, _ := json.Marshal(entries)
	if err := writeSynced(journal, data); err != nil {
		for _, u := range temps {
			u.Abort()
		}
		return fmt.Errorf("write %s: %w", journal, err)
	}
	err := applyJournal(journal, entries)
	for _, t := range temps {
		t.Close()
	}
	return err
}

// journalPath is the journal of a commit whose first file is path.
func journalPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".commit")
}

// applyJournal renames every temporary file of entries still present into
// place, syncs the folder and removes the journal.
func applyJournal(journal string, entries []journalEntry) error {
	for _, e := range entries {
		if err := os.Rename(e.Temp, e.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("write %s: %w", e.Path, replaceErr(err))
		}
	}
	if err := syncDir(filepath.Dir(journal)); err != nil {
		return err
	}
	return os.Remove(journal)
}

// recoverCommits completes every journal in path's folder that names path.
func recoverCommits(path string) error {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*.commit"))
	for _, journal := range m {
		data, err := os.ReadFile(journal)
		if err != nil {
			continue
		}
		var entries []journalEntry
		if json.Unmarshal(data, &entries) != nil {
			continue // not ours
		}
		for _, e := range entries {
			if e.Path == path {
				if err := applyJournal(journal, entries); err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// writeSynced writes data to path through a synced temporary file and a
// rename, then syncs the folder.
func writeSynced(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return syncDir(filepath.Dir(path))
}

// syncDir syncs a folder, so that renames in it survive a crash (where
// folders can be synced: not on Windows, whose file systems journal them).
func syncDir(dir string) error {
	if !syncFolders {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// OpenRegular opens path with flag and perm like os.OpenFile, but never
// through a symbolic link (O_NOFOLLOW) and only as a regular file, for the
// files the project writes in place beside its outputs (a resumable bake's
// checkpoint files): a link, folder, device or pipe planted at path is
// refused with CheckTarget's error (wrapping ErrNotRegular, naming it)
// before anything is read or written, so a writer cannot be made to
// clobber another file. Lstat comes first, so that a pipe or device is
// never opened (which could block).
func OpenRegular(path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|oNoFollow, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link, %w", path, ErrNotRegular)
	} else if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s is not a regular file, %w", path, ErrNotRegular)
	}
	return f, nil
}
