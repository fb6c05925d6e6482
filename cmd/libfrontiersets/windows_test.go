package main

import (
	"debug/pe"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/internal/testwine"
)

// mingw is Debian's cross-compiler for 64-bit Windows
// (gcc-mingw-w64-x86-64).
const mingw = testwine.Mingw

// TestWindowsDLL cross-compiles the library into frontiersets.dll (and its
// import library) as make lib-windows does, checks that it needs only
// Windows' own system libraries, and runs the C example and the hostile
// input test, cross-compiled the same way, under Wine: the example prints
// what it prints on Linux, byte for byte, and every hostile call gives
// Linux's code, in a Wine prefix of its own (internal/testwine: Wine 8.0
// lacks bcryptprimitives.dll, which Go's runtime loads at start). It
// needs mingw-w64 and Wine (make windows-deps installs them).
func TestWindowsDLL(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the library and runs it under Wine (make check)")
	}
	dir := t.TempDir()
	env := testwine.Env(t, dir)
	store := buildLib(t, dir) // the Linux library, for comparison, and the demo store
	win := filepath.Join(dir, "win")
	if err := os.MkdirAll(win, 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("../..")
	build := exec.Command("go", "build", "-buildmode=c-shared",
		"-ldflags", "-extldflags=-Wl,--out-implib,"+filepath.Join(win, "frontiersets.lib"),
		"-o", filepath.Join(win, "frontiersets.dll"), "./cmd/libfrontiersets")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=1", "CC="+mingw)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-compile: %v\n%s", err, out)
	}
	f, err := pe.Open(filepath.Join(win, "frontiersets.dll"))
	if err != nil {
		t.Fatal(err)
	}
	// debug/pe lists imported symbols as "name:DLL" (its
	// ImportedLibraries is empty).
	syms, err := f.ImportedSymbols()
	f.Close()
	var libs []string
	for _, sym := range syms {
		if _, l, ok := strings.Cut(sym, ":"); ok && !slices.Contains(libs, l) {
			libs = append(libs, l)
		}
	}
	slices.Sort(libs)
	if err != nil || !slices.Equal(libs, []string{"KERNEL32.dll", "msvcrt.dll"}) {
		t.Errorf("the DLL imports %v (%v), want Windows' own KERNEL32 and msvcrt", libs, err)
	}
	cc := func(out string, args ...string) string {
		t.Helper()
		exe := filepath.Join(win, out)
		args = append([]string{"-Wall", "-Wextra", "-Werror", "-I", dir}, args...)
		if b, err := exec.Command(mingw, append(args, "-o", exe)...).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", mingw, strings.Join(args, " "), err, b)
		}
		return exe
	}
	lib := filepath.Join(win, "frontiersets.lib")
	example := cc("frontier.exe", "../../examples/c/frontier.c", lib)
	hostileExe := cc("hostile.exe", "testdata/hostile.c", lib)
	run := func(args ...string) (string, int) { // the DLL beside the programs
		t.Helper()
		return testwine.Run(t, env, win, args...)
	}
	s, err := frontiersets.Open(store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range examplePairs {
		out, code := run(example, store, fmt.Sprint(p[0]), fmt.Sprint(p[1]), fmt.Sprint(p[2]), fmt.Sprint(p[3]))
		if want := exampleOutput(t, s, store, p); code != 0 || out != want {
			t.Errorf("frontier.exe %v under Wine: exit %d\n%s\nwant, as on Linux,\n%s", p, code, out, want)
		}
	}
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	half, cut := filepath.Join(dir, "hostile.pvs"), filepath.Join(dir, "cut.pvs")
	if err := os.WriteFile(half, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := run(hostileExe, store, half, cut)
	if code != 0 {
		t.Fatalf("hostile.exe under Wine: exit %d\n%s", code, out)
	}
	checkHostile(t, out, true)
}
