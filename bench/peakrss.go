package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runPeakRSS runs cmd (not started yet) to its end and returns its peak
// resident set size in bytes (0 where the system reports none).
//
// The child's rusage alone overstates it: Go starts children with
// clone(CLONE_VM|CLONE_VFORK), so until its exec the child runs in this
// process's memory, and Linux's exec keeps the high-water mark of the
// memory it leaves in the child's ru_maxrss — a bake started after the
// benchmark has opened and queried large stores reported the benchmark's
// size (a 1025² coded bake "peaked" at 1,140 MB; alone, 308 MB). So on
// Linux the child's own high-water mark (VmHWM of /proc/PID/status) is
// read every 20 ms while it runs, and ru_maxrss is taken only where it
// exceeds this process's own high-water mark at the start, which it then
// cannot be.
func runPeakRSS(cmd *exec.Cmd) (int64, error) {
	parent := vmHWM("self")
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	done, polled := make(chan struct{}), make(chan int64, 1)
	go func() {
		var peak int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, vmHWM(pid))
			select {
			case <-done:
				polled <- peak
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	own := <-polled
	var ru int64
	if r, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		ru = r.Maxrss << 10
	}
	if parent == 0 || own == 0 || ru > parent+16<<20 {
		return max(ru, own), err
	}
	return own, err
}

// vmHWM returns the peak resident set size, in bytes, /proc/PID/status
// reports for pid ("self" for this process); 0 where it cannot be read.
func vmHWM(pid string) int64 {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
