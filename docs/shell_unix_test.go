//go:build unix

package docs

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shell returns a bash running script in its own process group, killed
// whole — bash and every command it started — 30 s before the test's
// deadline (go test -timeout): a recipe cut short leaves no baker running
// behind it to slow what follows.
func shell(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	d, ok := t.Deadline()
	if !ok {
		d = time.Now().Add(24 * time.Hour)
	}
	return shellUntil(t, script, d.Add(-30*time.Second))
}

// shellUntil is shell with the group killed at deadline.
func shellUntil(t *testing.T, script string, deadline time.Time) *exec.Cmd {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// TestShellKillsGroup: a script past its deadline is killed with the
// commands it started, in the background too.
func TestShellKillsGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cmd := shellUntil(t, "sleep 300 & echo $!; sleep 300", time.Now().Add(500*time.Millisecond))
	start := time.Now()
	out, err := cmd.Output()
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("script ran %v, err %v; want it killed after 0.5 s", time.Since(start), err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("background pid %q: %v", out, err)
	}
	for range 50 {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(b), ") Z ") {
			return // killed, its parent gone before reaping it
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("background sleep %d outlived its script", pid)
}
