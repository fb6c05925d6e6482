package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestParseAndExitCodes(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	var d DEMFlags
	d.Register(fs)
	if err := fs.Parse([]string{"dem.tif", "--window", "1,2,3,4", "--cell-size", "2", "--raw-size", "8x4"}); err != nil || fs.NArg() != 1 || fs.Arg(0) != "dem.tif" {
		t.Fatalf("%v %v", fs.Args(), err)
	}
	o, err := d.Options()
	if err != nil || o.Window.Width != 3 || o.CellSize != 2 || o.RawWidth != 8 || o.RawHeight != 4 {
		t.Errorf("options %+v %v", o, err)
	}
	if _, err := Parse(NewFlagSet("y", "y", io.Discard), []string{"--nope"}); ExitCode(err) != 2 {
		t.Errorf("unknown flag: %v", err)
	}
	if ExitCode(nil) != 0 || ExitCode(errors.New("x")) != 1 || ExitCode(flag.ErrHelp) != 2 || ExitCode(Usagef("u")) != 2 {
		t.Error("exit codes")
	}
	for s, want := range map[string][2]int{"5,7": {5, 7}, "12.37,40.8": {12, 41}, "4.5,-0.5": {5, 0}, "-0.6,0.49": {-1, 0}, "1e12,3": {1 << 31, 3}} {
		if c, r, err := ParseCell("at", s); err != nil || c != want[0] || r != want[1] {
			t.Errorf("ParseCell(%q): %d %d %v, want %v", s, c, r, err, want)
		}
	}
	for _, bad := range []string{"5", "5,7,9", "a,b", "", "NaN,1", "1,Inf"} {
		if _, _, err := ParseCell("at", bad); ExitCode(err) != 2 {
			t.Errorf("ParseCell(%q): %v", bad, err)
		}
	}
}

// TestFitWindow: the window the memory guard suggests fits by the guard's
// own estimate, and one cell more on each side does not.
func TestFitWindow(t *testing.T) {
	need := func(w, h int, _, _ float64) int64 { return int64(w)*int64(h)*40 + int64(w)*1000 + 80<<20 }
	for _, tc := range []struct {
		w, h  int
		limit int64
	}{{30000, 30000, 4 << 30}, {100000, 50000, 20 << 30}, {1025, 1025, 100 << 20}} {
		fw, fh := FitWindow(need, tc.w, tc.h, 1, 1, tc.limit)
		if fw < 1 || need(fw, fh, 1, 1) > tc.limit {
			t.Errorf("%d×%d in %d bytes: suggested %d×%d needs %d", tc.w, tc.h, tc.limit, fw, fh, need(fw, fh, 1, 1))
		}
		if need(fw+2, fh+2, 1, 1) <= tc.limit {
			t.Errorf("%d×%d in %d bytes: suggested %d×%d, but %d×%d fits too", tc.w, tc.h, tc.limit, fw, fh, fw+2, fh+2)
		}
		if r := float64(fw) / float64(fh); math.Abs(r-float64(tc.w)/float64(tc.h)) > 0.01 {
			t.Errorf("proportions %d×%d for %d×%d", fw, fh, tc.w, tc.h)
		}
	}
	if w, h := FitWindow(need, 100, 100, 1, 1, 1000); w != 0 || h != 0 {
		t.Errorf("nothing fits, got %d×%d", w, h)
	}
}

// TestAvailableMemoryHonoursUlimit: under ulimit -v the memory guard's
// figure is at most the address space left, where it read MemAvailable
// alone and let a 32768² raster through to die out of memory. The test runs itself again under the limit.
func TestAvailableMemoryHonoursUlimit(t *testing.T) {
	const limitKB = 3 << 20 // 3 GiB
	if os.Getenv("CLI_TEST_ULIMIT_CHILD") == "1" {
		if a := AvailableMemory(); a <= 0 || a > limitKB<<10 {
			t.Fatalf("under ulimit -v %d: %d bytes available", limitKB, a)
		}
		return
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf("ulimit -v %d && exec \"$0\" -test.run '^TestAvailableMemoryHonoursUlimit$' -test.count 1", limitKB), os.Args[0])
	cmd.Env = append(os.Environ(), "CLI_TEST_ULIMIT_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestProcFields: fields of a /proc status file in bytes, in the order
// asked, 0 for one absent or a file that cannot be read.
func TestProcFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(path, []byte("Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := procFields(path, "VmRSS:", "VmHWM:", "VmSize:"); !slices.Equal(got, []int64{1 << 20, 2 << 20, 0}) {
		t.Errorf("procFields = %v", got)
	}
	if got := procFields(filepath.Join(t.TempDir(), "none"), "VmRSS:"); !slices.Equal(got, []int64{0}) {
		t.Errorf("missing file: %v", got)
	}
}
