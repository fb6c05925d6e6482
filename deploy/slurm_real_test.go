package deploy

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRealSlurm runs the Slurm recipe on a real one-node Slurm cluster
// started for the test — munged, slurmctld and slurmd on this machine, with
// a generated configuration and key under a temporary folder, on free
// ports — submits deploy/slurm/submit.sh for a 4-shard bake of a window of
// the real Mount Washington crop, waits for the join job, checks every
// array task and the join COMPLETED and the joined stores equal a single
// bake's byte for byte, and stops the daemons by PID. It runs only with
// PVS_SLURM=1 (make test-slurm, which installs Debian's slurm-wlm), and
// skips with the daemons' logs where they cannot start.
func TestRealSlurm(t *testing.T) {
	if os.Getenv("PVS_SLURM") != "1" {
		t.Skip("a real Slurm cluster: make test-slurm (PVS_SLURM=1)")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed (Debian's slurm-wlm; make test-slurm installs it)", bin)
		}
	}
	// Not t.TempDir: the job steps' slurmstepd may still be closing files
	// in the spool when the test ends; the folder goes once they have.
	dir, err := os.MkdirTemp("", "slurm-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !poll(15*time.Second, func() bool { return os.RemoveAll(dir) == nil }) {
			t.Logf("%s not removed: %v", dir, os.RemoveAll(dir))
		}
	})
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"state", "spool", "log", "work"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	key := make([]byte, 1024)
	if f, err := os.Open("/dev/urandom"); err == nil {
		f.Read(key)
		f.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, "munge.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	ctldPort, dPort := freePort(t), freePort(t)
	conf := filepath.Join(dir, "slurm.conf")
	p := func(name string) string { return filepath.Join(dir, name) }
	cfg := fmt.Sprintf(`ClusterName=pvstest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s
SlurmdSpoolDir=%[6]s
SlurmctldPidFile=%[7]s
SlurmdPidFile=%[8]s
SlurmctldLogFile=%[9]s
SlurmdLogFile=%[10]s
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[11]d RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, ctldPort, dPort, p("munge.sock"), p("state"), p("spool"), p("slurmctld.pid"), p("slurmd.pid"),
		p("log/slurmctld.log"), p("log/slurmd.log"), max(1, min(2, runtime.NumCPU())))
	if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "SLURM_CONF="+conf)
	logs := func() string {
		var b strings.Builder
		for _, l := range []string{"log/munged.log", "log/slurmctld.log", "log/slurmd.log", "log/ctld.out", "log/d.out"} {
			if data, err := os.ReadFile(p(l)); err == nil {
				fmt.Fprintf(&b, "--- %s\n%s", l, tail(string(data), 2000))
			}
		}
		return b.String()
	}
	// munged daemonizes; it is stopped by the PID it writes.
	munge := exec.Command("munged", "--force", "-S", p("munge.sock"), "--key-file="+p("munge.key"),
		"--log-file="+p("log/munged.log"), "--pid-file="+p("munged.pid"), "--seed-file="+p("munged.seed"))
	if out, err := munge.CombinedOutput(); err != nil {
		t.Skipf("munged cannot start here: %v %s", err, out)
	}
	t.Cleanup(func() { killPIDFile(p("munged.pid")) })
	start := func(name string, args ...string) {
		out, err := os.Create(p("log/" + name))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
		if err := cmd.Start(); err != nil {
			t.Skipf("%s cannot start here: %v", args[0], err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
			}
			out.Close()
		})
	}
	start("ctld.out", "slurmctld", "-D", "-c", "-f", conf)
	time.Sleep(time.Second)
	start("d.out", "slurmd", "-D", "-f", conf)
	slurm := func(args ...string) (string, error) {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if !poll(30*time.Second, func() bool {
		out, err := slurm("sinfo", "-h", "-o", "%T")
		return err == nil && strings.Contains(out, "idle")
	}) {
		t.Skipf("the one-node cluster did not come up:\n%s", logs())
	}

	// The bake: 4 shards of a 96×80 window of the real crop, two budgets.
	dem, err := filepath.Abs("../data/mount-washington.tif")
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"--window", "60,90,96,80", "--sectors", "128"}
	budgets := "1MB,2MB"
	work := p("work")
	single := filepath.Join(work, "single", "st")
	os.MkdirAll(filepath.Dir(single), 0o755)
	if out, err := exec.Command(pvsbake, append([]string{"bake", dem, "-o", single, "--budget", budgets, "-q"}, flags...)...).CombinedOutput(); err != nil {
		t.Fatalf("single bake: %v\n%s", err, out)
	}
	submit := exec.Command("bash", mustAbs(t, "slurm/submit.sh"))
	submit.Dir = work
	out := filepath.Join(work, "out", "st")
	submit.Env = append(env, "DEM="+dem, "OUT="+out, "SHARDS=4", "PARTS="+filepath.Join(work, "parts"), "BUDGETS="+budgets,
		"BAKEFLAGS="+strings.Join(flags, " "), "PVSBAKE="+pvsbake, "SBATCHFLAGS=--cpus-per-task=1 --mem=500M")
	so, err := submit.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s\n%s", err, so, logs())
	}
	m := regexp.MustCompile(`queued shards as job (\d+), the join as job (\d+)`).FindStringSubmatch(string(so))
	if m == nil {
		t.Fatalf("submit.sh said %q", so)
	}
	array, join := m[1], m[2]
	state := func(job string) string {
		out, _ := slurm("scontrol", "show", "job", "-o", job)
		if s := regexp.MustCompile(`JobState=(\S+)`).FindStringSubmatch(out); s != nil {
			return s[1]
		}
		return "UNKNOWN"
	}
	if !poll(3*time.Minute, func() bool {
		switch state(join) {
		case "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL":
			return true
		}
		return false
	}) {
		t.Fatalf("the join job %s did not finish in 3 minutes: %s\n%s", join, state(join), logs())
	}
	if s := state(join); s != "COMPLETED" {
		shardLogs, _ := filepath.Glob(filepath.Join(work, "*.log"))
		var b strings.Builder
		for _, l := range shardLogs {
			data, _ := os.ReadFile(l)
			fmt.Fprintf(&b, "--- %s\n%s", l, tail(string(data), 1500))
		}
		t.Fatalf("the join job %s ended %s\n%s%s", join, s, b.String(), logs())
	}
	// Every task of the array completed: one record per task.
	tasks, _ := slurm("scontrol", "show", "job", "-o", array)
	completed := strings.Count(tasks, "JobState=COMPLETED")
	if completed != 4 || strings.Count(tasks, "ArrayJobId="+array) != 4 {
		t.Errorf("array job %s: %d of 4 tasks completed:\n%s", array, completed, tasks)
	}
	for _, b := range strings.Split(budgets, ",") {
		want, err1 := os.ReadFile(single + "-" + b + ".pvs")
		got, err2 := os.ReadFile(out + "-" + b + ".pvs")
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Errorf("%s store: the Slurm bake's (%d bytes, %v) differs from the single bake's (%d bytes, %v)", b, len(got), err2, len(want), err1)
		}
	}
	t.Logf("Slurm array %s (4 tasks) and join %s completed; stores equal the single bake's", array, join)
}

// freePort returns a TCP port free on loopback just now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// poll calls ok every 200 ms until it reports true or d passes.
func poll(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return ok()
}

// killPIDFile stops the process whose PID the file holds and waits up to
// 5 s for it to go.
func killPIDFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		syscall.Kill(pid, syscall.SIGTERM)
		poll(5*time.Second, func() bool { return syscall.Kill(pid, 0) != nil })
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
