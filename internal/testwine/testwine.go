// Package testwine runs Windows programs built here under Wine, for tests:
// it makes a Wine prefix of the test's own whose system32 holds a stand-in
// for bcryptprimitives.dll (standin/bcryptprimitives.c, built with mingw-w64),
// which Wine 8.0 lacks and Go's runtime loads at start (real Windows has
// it: docs/recipes.md's Windows section says so for those who test under
// Wine).
package testwine

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Mingw is Debian's cross-compiler for 64-bit Windows
// (gcc-mingw-w64-x86-64).
const Mingw = "x86_64-w64-mingw32-gcc"

//go:embed standin/bcryptprimitives.c
var standIn []byte

// Env boots a Wine prefix under dir with the stand-in in system32 and
// returns the environment to run wine in it. It skips the test where
// mingw-w64 or Wine is missing (make windows-deps installs them).
func Env(t testing.TB, dir string) []string {
	t.Helper()
	for _, tool := range []string{Mingw, "wine"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (make windows-deps installs gcc-mingw-w64-x86-64 and wine)", tool)
		}
	}
	prefix := filepath.Join(dir, "wine")
	env := append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all")
	boot := exec.Command("wine", "wineboot", "-i")
	boot.Env = env
	if out, err := boot.CombinedOutput(); err != nil {
		t.Fatalf("wineboot: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "bcryptprimitives.c")
	if err := os.WriteFile(src, standIn, 0o644); err != nil {
		t.Fatal(err)
	}
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if out, err := exec.Command(Mingw, "-shared", "-O2", src, "-ladvapi32", "-o", dll).CombinedOutput(); err != nil {
		t.Fatalf("%s bcryptprimitives.c: %v\n%s", Mingw, err, out)
	}
	return env
}

// Run runs wine with args in folder dir under env (Env), returning its
// standard output (and, when it fails, its standard error after it) with
// Windows' line ends made "\n", and its exit code.
func Run(t testing.TB, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("wine", args...)
	var stderr strings.Builder
	cmd.Env, cmd.Dir, cmd.Stderr = env, dir, &stderr
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		out = append(out, stderr.String()...)
	} else if err != nil {
		t.Fatalf("wine %s: %v", strings.Join(args, " "), err)
	}
	return strings.ReplaceAll(string(out), "\r\n", "\n"), code
}
