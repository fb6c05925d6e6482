package atomicfile

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Error("write into a missing folder succeeded")
	}
	// What a killed writer of p left goes with the next Write (a PNG, a
	// checkpoint, a viewshed: every output Write makes).
	killed := filepath.Join(dir, ".out.txt.tmp77")
	os.WriteFile(killed, []byte("x"), 0o644)
	age(t, killed)
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "two"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a killed writer's temporary file outlived the next Write: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("wrote %q", b)
	}
}

// age makes a file look older than staleAfter.
func age(t *testing.T, name string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(name, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestCreateRemovesStale: the temporary files a killed writer left (not
// locked) are removed by the next Create of the same path; a running
// writer's (locked) and other files' are not.
func TestCreateRemovesStale(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a[1].pvs")
	stale := filepath.Join(dir, ".a[1].pvs.tmp123")
	journal := filepath.Join(dir, "..a[1].pvs.commit.tmp456") // a writer killed while writing its journal
	other := filepath.Join(dir, ".b.pvs.tmp123")
	for _, n := range []string{stale, journal, other} {
		os.WriteFile(n, []byte("x"), 0o644)
		age(t, n)
	}
	live, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	age(t, live.Name())
	for _, n := range []string{stale, journal} {
		if _, err := os.Stat(n); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale temporary file %s kept: %v", n, err)
		}
	}
	second, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Abort()
	for _, n := range []string{other, live.Name()} {
		if _, err := os.Stat(n); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}

// TestCommitSweeps: a killed writer's temporary file too young for Create
// to remove (the run started within staleAfter of the kill, where files
// are not bornLocked) goes when the new writer commits; where they are,
// Create removes it at once, whatever its age (a bake killed at 2 s and
// rerun at once left its temporaries in one run of six).
func TestCommitSweeps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.pvs")
	killed := filepath.Join(dir, ".s.pvs.tmp999")
	killedIndex := killed + ".index"                 // its sidecar
	os.WriteFile(killed, []byte("x"), 0o644)         // just now
	os.WriteFile(killedIndex, []byte("x"), 0o644)    // just now
	os.WriteFile(killed+"-keep", []byte("x"), 0o644) // whatever it is, not a writer's
	os.WriteFile(killed+"9", []byte("x"), 0o644)     // another killed writer's
	w, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); bornLocked != errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a young temporary file at Create (born locked %v): %v", bornLocked, err)
	}
	for _, n := range []string{killed, killedIndex, killed + "9"} {
		if _, err := os.Stat(n); err == nil {
			age(t, n) // the bake ran for a while
		}
	}
	w.WriteString("store")
	if err := CommitAll([]*Temp{w}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{killed, killedIndex, killed + "9"} {
		if _, err := os.Stat(n); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the killed writer's %s outlived the commit: %v", n, err)
		}
	}
	if _, err := os.Stat(killed + "-keep"); err != nil {
		t.Errorf("a file named like a temporary one but not one was removed: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "store" {
		t.Errorf("committed %q", b)
	}
}

// TestCommitAll: several files appear together; after a crash between the
// journal and the renames, the next Create of any of them completes the
// commit; after a crash before the journal, nothing appears and the
// temporary files go.
func TestCommitAll(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "s-1.pvs"), filepath.Join(dir, "s-2.pvs")}
	write := func(content string) []*Temp {
		var ts []*Temp
		for _, p := range paths {
			tf, err := Create(p)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(tf, content)
			ts = append(ts, tf)
		}
		return ts
	}
	read := func() string {
		var s string
		for _, p := range paths {
			b, _ := os.ReadFile(p)
			s += string(b) + ";"
		}
		return s
	}
	if err := CommitAll(write("one")); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "one;one;" {
		t.Fatalf("after commit: %q", got)
	}
	// Killed after the journal: entries written, no rename done.
	ts := write("two")
	var entries []journalEntry
	for _, tf := range ts {
		tf.Sync()
		entries = append(entries, journalEntry{tf.Name(), tf.Path})
	}
	data, _ := json.Marshal(entries)
	if err := writeSynced(journalPath(paths[0]), data); err != nil {
		t.Fatal(err)
	}
	for _, tf := range ts {
		tf.Close() // the process dies: its locks go
	}
	if got := read(); got != "one;one;" {
		t.Fatalf("before recovery: %q", got)
	}
	tf, err := Create(paths[1]) // the next bake
	if err != nil {
		t.Fatal(err)
	}
	tf.Abort()
	if got := read(); got != "two;two;" {
		t.Errorf("after recovery: %q, want both files of the journaled commit", got)
	}
	// Killed before the journal: the old files stay, the temporary files go.
	for _, tf := range write("three") {
		tf.Close()
		age(t, tf.Name())
	}
	for _, p := range paths { // the next bake creates each of its outputs
		tf, err := Create(p)
		if err != nil {
			t.Fatal(err)
		}
		tf.Abort()
	}
	if got := read(); got != "two;two;" {
		t.Errorf("after an uncommitted write: %q", got)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

// TestCheckTarget: new paths and regular files may be written; FIFOs,
// folders and symbolic links may not, by Write and Create alike, and are
// left as they were.
func TestCheckTarget(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "file")
	os.WriteFile(regular, []byte("x"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(regular, link)
	for _, p := range []string{filepath.Join(dir, "new"), regular} {
		if err := CheckTarget(p); err != nil {
			t.Errorf("%s refused: %v", p, err)
		}
	}
	for _, p := range []string{fifo, link, dir} {
		if err := CheckTarget(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", p, err)
		}
		if err := Write(p, func(io.Writer) error { return nil }); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Write %s: %v", p, err)
		}
		if tmp, err := Create(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Create %s: %v", p, err)
			if tmp != nil {
				tmp.Abort()
			}
		}
		if st, _ := os.Lstat(p); st.Mode().IsRegular() {
			t.Errorf("%s replaced", p)
		}
	}
}

// TestSidecar: a file another library writes beside a locked temporary
// file (Sidecar) survives other writers' sweeps while its writer lives,
// is removed as a killed writer's once that writer is gone, and becomes
// the final file at CommitSidecar, which leaves nothing behind.
func TestSidecar(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.gpkg")
	first, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	side := first.Sidecar(".gpkg")
	os.WriteFile(side, []byte("layers"), 0o600)
	age(t, side)
	age(t, first.Name())
	second, err := Create(p) // sweeps: first is alive
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(side); err != nil {
		t.Fatalf("a living writer's sidecar was removed: %v", err)
	}
	first.Close() // killed: its lock is gone, its files stay
	name := second.Sidecar(".gpkg")
	os.WriteFile(name, []byte("second"), 0o600)
	if err := second.CommitSidecar(name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "second" {
		t.Errorf("committed %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
		t.Errorf("left after the commit: %v", m)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
}

// TestSweepStale: a killed writer's temporaries of every file named
// prefix…suffix go (a bake's other budgets, which a rerun does not write),
// a living writer's and other files' stay.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "s[x]")
	killed := []string{filepath.Join(dir, ".s[x]-3MB.pvs.tmp123"), filepath.Join(dir, ".s[x]-1GiB.pvs.tmp9")}
	other := filepath.Join(dir, ".t-3MB.pvs.tmp123")
	// Other outputs beside -o s[x]: "s[x]door.pvs" is no budget of it.
	others := []string{other, filepath.Join(dir, ".s[x]door.pvs.tmp77"), filepath.Join(dir, ".s[x]-2MB.pvs.tmp-keep")}
	for _, n := range append(slices.Clone(killed), others...) {
		os.WriteFile(n, []byte("x"), 0o644)
		age(t, n)
	}
	live, err := Create(prefix + "-2MB.pvs")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	age(t, live.Name())
	SweepStale(prefix+"-", ".pvs")
	for _, n := range killed {
		if _, err := os.Stat(n); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s kept: %v", n, err)
		}
	}
	for _, n := range append(others, live.Name()) {
		if _, err := os.Stat(n); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}
