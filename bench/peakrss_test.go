package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestPeakRSSHelper is the child of TestRunPeakRSS: it touches
// PEAKRSS_MB megabytes and holds them a moment.
func TestPeakRSSHelper(t *testing.T) {
	mb, err := strconv.Atoi(os.Getenv("PEAKRSS_MB"))
	if err != nil {
		t.Skip("a child of TestRunPeakRSS")
	}
	b := make([]byte, mb<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	time.Sleep(100 * time.Millisecond)
	runtime.KeepAlive(b)
}

// TestRunPeakRSS: a small child of a large process is measured small, a
// child larger than its parent at its size.
func TestRunPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	big := make([]byte, 384<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	child := func(mb int) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPeakRSSHelper$")
		cmd.Env = append(os.Environ(), "PEAKRSS_MB="+strconv.Itoa(mb))
		return cmd
	}
	small, err := runPeakRSS(child(8))
	if err != nil {
		t.Fatal(err)
	}
	if small > 128<<20 {
		t.Errorf("a child touching 8 MB beside a parent of 384 MB: peak %d MB, want its own (under 128)", small>>20)
	}
	large, err := runPeakRSS(child(640))
	if err != nil {
		t.Fatal(err)
	}
	if large < 640<<20 || large > 900<<20 {
		t.Errorf("a child touching 640 MB: peak %d MB", large>>20)
	}
	runtime.KeepAlive(big)
	t.Logf("peaks %d MB and %d MB", small>>20, large>>20)
}
