// Package deploy holds the recipes that run a sharded bake on outside
// batch engines (Kubernetes, Slurm, one machine with xargs); see README.md.
// Its tests decode the manifests strictly with the Kubernetes API types and
// run every recipe's commands on this machine against a single bake.
package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// testFlags make the recipes' bakes small enough for a test: a window of the
// repository's demo terrain and few sectors.
var testFlags = []string{"--window", "20,30,48,40", "--sectors", "64"}

// fixture is a built pvsbake, a DEM at a fixed path and the stores of a
// single bake of it with the recipes' budgets, to compare joins against.
type fixture struct {
	dir, bin, dem string
	want          map[string][]byte // store file name suffix (-<budget>.pvs) → bytes
}

// pvsbake is the binary the tests run, built once by TestMain.
var pvsbake string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "deploy-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pvsbake = filepath.Join(dir, "pvsbake")
	if out, err := exec.Command("go", "build", "-o", pvsbake, "../cmd/pvsbake").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func newFixture(t *testing.T, budgets string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{dir: dir, bin: pvsbake, dem: filepath.Join(dir, "data", "in", "dem.tif")}
	demo, err := os.ReadFile("../data/demo-hills.tif")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(f.dem), 0o755)
	if err := os.WriteFile(f.dem, demo, 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single", "dem")
	os.MkdirAll(filepath.Dir(single), 0o755)
	f.run(t, nil, append([]string{f.bin, "bake", f.dem, "-o", single, "--budget", budgets, "--quiet"}, testFlags...)...)
	f.want = map[string][]byte{}
	stores, _ := filepath.Glob(single + "-*.pvs")
	for _, s := range stores {
		f.want[strings.TrimPrefix(s, single)], _ = os.ReadFile(s)
	}
	if len(f.want) != len(strings.Split(budgets, ",")) {
		t.Fatalf("single bake wrote %v", stores)
	}
	return f
}

// run runs a command with extra environment variables; it fails the test on
// a non-zero exit.
func (f *fixture) run(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Dir(f.bin)+":"+os.Getenv("PATH")), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String()
}

// checkJoined compares the stores of prefix with the single bake's.
func (f *fixture) checkJoined(t *testing.T, prefix string) {
	t.Helper()
	for suffix, want := range f.want {
		got, err := os.ReadFile(prefix + suffix)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s%s differs from the single bake's store (%d vs %d bytes, %v)", prefix, suffix, len(got), len(want), err)
		}
	}
}

// decodeStrict decodes a one-document manifest into v, refusing unknown or
// duplicate fields.
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

var shardArgRE = regexp.MustCompile(`^\$\(SHARD\)/(\d+)$`)

// TestKubernetes decodes the manifests with the Kubernetes API types, checks
// that they fit together (the shard count, the completion index, the
// volume, the partials' folder, the image), and runs the containers'
// commands here with /data mapped to a temporary folder and $(SHARD)
// expanded as the kubelet does: the joined stores must equal a single
// bake's.
func TestKubernetes(t *testing.T) {
	var pvc corev1.PersistentVolumeClaim
	var shards, join batchv1.Job
	decodeStrict(t, "kubernetes/volume.yaml", &pvc)
	decodeStrict(t, "kubernetes/bake-shards.yaml", &shards)
	decodeStrict(t, "kubernetes/join.yaml", &join)
	if pvc.Kind != "PersistentVolumeClaim" || shards.Kind != "Job" || join.Kind != "Job" || shards.APIVersion != "batch/v1" {
		t.Fatalf("kinds %s, %s, %s", pvc.Kind, shards.Kind, join.Kind)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Error("the volume must be ReadWriteMany: every shard's pod writes to it")
	}
	sp := shards.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion || sp.Completions == nil || sp.Parallelism == nil {
		t.Fatal("bake-shards.yaml: want an Indexed Job with completions and parallelism")
	}
	for _, job := range []*batchv1.Job{&shards, &join} {
		pod := job.Spec.Template.Spec
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q, want Never", job.Name, pod.RestartPolicy)
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			if c.Image != shards.Spec.Template.Spec.Containers[0].Image {
				t.Errorf("%s/%s: image %s differs", job.Name, c.Name, c.Image)
			}
			for _, m := range c.VolumeMounts {
				i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
				if i < 0 || pod.Volumes[i].PersistentVolumeClaim == nil || pod.Volumes[i].PersistentVolumeClaim.ClaimName != pvc.Name || m.MountPath != "/data" {
					t.Errorf("%s/%s: mount %s is not the claim %s at /data", job.Name, c.Name, m.Name, pvc.Name)
				}
			}
		}
	}
	shard := shards.Spec.Template.Spec.Containers[0]
	if len(shard.Env) != 1 || shard.Env[0].Name != "SHARD" || shard.Env[0].ValueFrom == nil || shard.Env[0].ValueFrom.FieldRef == nil ||
		shard.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Fatalf("shard container env %+v: want SHARD from the completion index annotation", shard.Env)
	}
	i := slices.Index(shard.Args, "--shard")
	if i < 0 || i+1 >= len(shard.Args) {
		t.Fatal("shard container has no --shard")
	}
	m := shardArgRE.FindStringSubmatch(shard.Args[i+1])
	n, _ := strconv.Atoi(m[1])
	if m == nil || n != int(*sp.Completions) || *sp.Parallelism > *sp.Completions {
		t.Fatalf("--shard %s with completions %d, parallelism %d: N must be the completions", shard.Args[i+1], *sp.Completions, *sp.Parallelism)
	}
	b := slices.Index(shard.Args, "--budget")
	f := newFixture(t, shard.Args[b+1])
	mapData := func(s string) string { return strings.ReplaceAll(s, "/data/", filepath.Join(f.dir, "data")+"/") }
	for _, c := range shards.Spec.Template.Spec.InitContainers {
		args := append(slices.Clone(c.Command), c.Args...)
		for j := range args {
			args[j] = mapData(args[j])
		}
		f.run(t, nil, args...)
	}
	for idx := range n {
		args := []string{f.bin}
		for _, a := range shard.Args {
			args = append(args, mapData(strings.ReplaceAll(a, "$(SHARD)", strconv.Itoa(idx))))
		}
		f.run(t, nil, append(args, testFlags...)...)
	}
	jc := join.Spec.Template.Spec.Containers[0]
	if len(jc.Command) != 2 || jc.Command[0] != "/bin/sh" || len(jc.Args) != 1 {
		t.Fatalf("join container: command %v args %v, want /bin/sh -c SCRIPT", jc.Command, jc.Args)
	}
	f.run(t, nil, "/bin/sh", "-c", mapData(jc.Args[0]))
	out := regexp.MustCompile(`join -o (\S+)`).FindStringSubmatch(jc.Args[0])
	if out == nil {
		t.Fatalf("join script %q has no join -o", jc.Args[0])
	}
	f.checkJoined(t, mapData(out[1]))
}

// TestSlurm runs the array script as three array tasks and the join script
// after them, as Slurm would (the #SBATCH lines are comments to bash), and
// submit.sh against a stand-in sbatch that records how it chains the jobs.
func TestSlurm(t *testing.T) {
	budgets := "1MB,4MB"
	f := newFixture(t, budgets)
	parts := filepath.Join(f.dir, "parts")
	env := []string{"PVSBAKE=" + f.bin, "DEM=" + f.dem, "PARTS=" + parts, "BUDGETS=" + budgets,
		"BAKEFLAGS=" + strings.Join(testFlags, " "), "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=0", "SLURM_CPUS_PER_TASK=1"}
	for _, i := range []int{0, 2} {
		f.run(t, append(env, fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i)), "bash", "slurm/bake.sbatch")
	}
	// Shard 1 as a rerun of some of the shards: an array of one task
	// (--array=1) with SHARDS=3.
	f.run(t, append(slices.Clone(env), "SHARDS=3", "SLURM_ARRAY_TASK_COUNT=1", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_ID=1"), "bash", "slurm/bake.sbatch")
	out := filepath.Join(f.dir, "out", "dem")
	f.run(t, append(env, "OUT="+out), "bash", "slurm/join.sbatch")
	f.checkJoined(t, out)

	cmd := exec.Command("bash", "slurm/bake.sbatch")
	cmd.Env = append(os.Environ(), append(env, "SLURM_ARRAY_TASK_ID=1", "SLURM_ARRAY_TASK_MIN=1")...)
	if o, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(o), "0 to N-1") {
		t.Errorf("an array from 1 was accepted: %v %s", err, o)
	}
	cmd = exec.Command("bash", "slurm/bake.sbatch")
	cmd.Env = append(os.Environ(), append(env, "SHARDS=3", "SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=5")...)
	if o, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(o), "array task 5 is not a shard of 3") {
		t.Errorf("task 5 of SHARDS=3 was accepted: %v %s", err, o)
	}

	// A stand-in sbatch: logs its arguments, answers job ids 101, 102.
	fake := filepath.Join(f.dir, "fakebin")
	os.MkdirAll(fake, 0o755)
	log := filepath.Join(f.dir, "sbatch.log")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nn=$(wc -l < " + log + ")\necho $((100 + n))\n"
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("bash", "slurm/submit.sh")
	cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"), "DEM="+f.dem, "OUT="+out, "SHARDS=64")
	o, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, o)
	}
	calls, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "--array=0-63") || !strings.HasSuffix(lines[0], "bake.sbatch") ||
		!strings.Contains(lines[1], "--dependency=afterok:101") || !strings.HasSuffix(lines[1], "join.sbatch") {
		t.Errorf("submit.sh called sbatch as:\n%s", calls)
	}
}

// TestLocal runs the one-machine recipe (xargs -P over the shards) and
// checks that it leaves finished shards alone when rerun.
func TestLocal(t *testing.T) {
	budgets := "1MB,4MB"
	f := newFixture(t, budgets)
	out := filepath.Join(f.dir, "local", "dem")
	args := append([]string{"sh", "local/bake-sharded.sh", "5", "2", f.dem, out, "--budget", budgets}, testFlags...)
	env := []string{"PVSBAKE=" + f.bin}
	f.run(t, env, args...)
	f.checkJoined(t, out)
	part := out + ".parts/part-3"
	st, err := os.Stat(part)
	if err != nil {
		t.Fatal(err)
	}
	f.run(t, env, args...)
	if st2, _ := os.Stat(part); !st2.ModTime().Equal(st.ModTime()) {
		t.Error("a rerun baked a finished shard again")
	}
	f.checkJoined(t, out)
	// Paths with spaces and shell syntax in them are paths, not commands.
	hostile := filepath.Join(f.dir, "a dir;touch PWNED;#|e", "dem")
	os.MkdirAll(filepath.Dir(hostile), 0o755)
	args = append([]string{"sh", "local/bake-sharded.sh", "5", "2", f.dem, hostile, "--budget", budgets}, testFlags...)
	parts := filepath.Join(f.dir, "parts $(touch PWNED2);x")
	f.run(t, append(env, "PARTS="+parts), args...)
	f.checkJoined(t, hostile)
	for _, p := range []string{"PWNED", "PWNED2", filepath.Join(f.dir, "PWNED")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the recipe ran text of a path as a command: %s exists", p)
		}
	}
	if _, err := exec.LookPath("shellcheck"); err == nil {
		if out, err := exec.Command("shellcheck", "local/bake-sharded.sh", "slurm/submit.sh", "slurm/bake.sbatch", "slurm/join.sbatch").CombinedOutput(); err != nil {
			t.Errorf("shellcheck: %v\n%s", err, out)
		}
	} else {
		t.Log("shellcheck not installed: the scripts' lint skipped")
	}
}

// TestDockerfile checks that the image builds with the Go release go.mod
// asks for and ships the commands the manifests run.
func TestDockerfile(t *testing.T) {
	df, _ := os.ReadFile("Dockerfile")
	mod, _ := os.ReadFile("../go.mod")
	m := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if m == nil || !bytes.Contains(df, []byte("FROM golang:"+string(m[1])+"-")) {
		t.Errorf("Dockerfile does not build with Go %s", m[1])
	}
	for _, want := range []string{"./cmd/pvsbake", "libgdal", `ENTRYPOINT ["pvsbake"]`} {
		if !bytes.Contains(df, []byte(want)) {
			t.Errorf("Dockerfile lacks %s", want)
		}
	}
}
