package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/interest"
)

// TestCInterestExample: examples/c/interest.c, compiled against the
// library, walks 256 players in world coordinates and prints the updates
// the joint frontier sends; the same walk replayed through the Go
// packages (interest.Joint) gives the same line.
func TestCInterestExample(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	bin := compileC(t, dir, "interest", "../../examples/c/interest.c")
	out, code := runC(t, dir, bin, store, "256", "200")
	t.Log(strings.TrimSpace(out))
	if want := interestWalk(t, store, 256, 200); code != 0 || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, out, want)
	}
	if out, code := runC(t, dir, bin, store, "0"); code != 2 || !strings.HasPrefix(out, "usage:") {
		t.Errorf("0 walkers: exit %d, %q", code, out)
	}
	if out, code := runC(t, dir, bin, filepath.Join(dir, "none.pvs")); code != 1 || strings.Count(out, "\n") != 1 {
		t.Errorf("missing store: exit %d, %q", code, out)
	}
}

// interestWalk is examples/c/interest.c's walk through the Go packages:
// the line it prints.
func interestWalk(t *testing.T, path string, walkers, ticks int) string {
	s, err := frontiersets.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	state := uint64(0x9E3779B97F4A7C15)
	rnd := func() uint32 {
		state ^= state >> 12
		state ^= state << 25
		state ^= state >> 27
		return uint32((state * 0x2545F4914F6CDD1D) >> 32)
	}
	const r = 0.7071067811865476
	heading := [8][2]float64{{1, 0}, {r, r}, {0, 1}, {-r, r}, {-1, 0}, {-r, -r}, {0, -1}, {r, -r}}
	a0, b0, err := s.CellToWorld(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, h := s.Size()
	a1, b1, err := s.CellToWorld(w-1, h-1)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := [2]float64{min(a0, a1), min(b0, b1)}, [2]float64{max(a0, a1), max(b0, b1)}
	jt, err := interest.NewJoint(s.Grower(), walkers, interest.JointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	world := make([]float64, 2*walkers)
	dir := make([]int, walkers)
	for i := range walkers {
		world[2*i] = lo[0] + (hi[0]-lo[0])*float64(rnd()%1024)/1024
		world[2*i+1] = lo[1] + (hi[1]-lo[1])*float64(rnd()%1024)/1024
		dir[i] = int(rnd() % 8)
	}
	const step = 8.0 / 20
	players := make([]interest.Player, walkers)
	var sent, packets int64
	open := 0
	for range ticks {
		for i := range walkers {
			if rnd()%32 == 0 {
				dir[i] = int(rnd() % 8)
			}
			for k := range 2 {
				v := world[2*i+k] + float64(step*heading[dir[i]][k])
				if v < lo[k] || v > hi[k] {
					dir[i] = (dir[i] + 4) % 8
					v = world[2*i+k]
				}
				world[2*i+k] = v
			}
		}
		for i := range walkers {
			x, y, err := s.WorldToPosition(world[2*i], world[2*i+1])
			if err != nil {
				t.Fatal(err)
			}
			col, row, err := s.PositionCell(x, y)
			if err != nil {
				t.Fatal(err)
			}
			players[i] = interest.Player{Col: col, Row: row, FCol: x - float64(col), FRow: y - float64(row)}
		}
		res, err := jt.Tick(players)
		if err != nil {
			t.Fatal(err)
		}
		packets += int64(res.Packets())
		open = res.Open
		for i := range walkers {
			for j := range walkers {
				if i != j && jt.Sends(i, j) {
					sent++
				}
			}
		}
	}
	return fmt.Sprintf("%d walkers, %d ticks: %d updates sent (all-to-all %d), %d packets, %d pairs open at the end\n",
		walkers, ticks, sent, int64(walkers)*int64(walkers-1)*int64(ticks), packets, open)
}

// TestUnityPackage: the Unity package's Store and InterestManager
// (bindings/unity/Runtime, compiled with mono's mcs without UnityEngine;
// its UnityEngine-only files and Samples~ against a stub of UnityEngine)
// run 100,000 ticks of 64 players, each with its 64 SendsTo calls, and
// allocate nothing (no gen-0 collection, 0 bytes by
// GC.GetAllocatedBytesForCurrentThread); a position off the terrain, a
// store closed under its manager, a disposed manager, a corrupt store and
// a missing one give the .NET exceptions frontiersets' C# promises.
func TestUnityPackage(t *testing.T) {
	dir := t.TempDir()
	store := buildLib(t, dir)
	if _, err := exec.LookPath("mcs"); err != nil {
		t.Skip("no mcs (make check installs mono-mcs and mono-runtime)")
	}
	runtime, _ := filepath.Glob("../../bindings/unity/Runtime/*.cs")
	exe := filepath.Join(dir, "UnityCheck.exe")
	if out, err := exec.Command("mcs", append(runtime, "testdata/UnityCheck.cs", "-out:"+exe)...).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	// The UnityEngine-only files (the Vector3 overloads, the sample
	// component) against a stub of the UnityEngine types they use.
	sample, _ := filepath.Glob("../../bindings/unity/Samples~/*/*.cs")
	args := append(append(runtime, sample...), "testdata/UnityEngineStub.cs", "-target:library", "-define:UNITY_5_3_OR_NEWER", "-out:"+filepath.Join(dir, "WithUnity.dll"))
	if out, err := exec.Command("mcs", args...).CombinedOutput(); err != nil {
		t.Fatalf("mcs (with UnityEngine's types): %v\n%s", err, out)
	}
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.pvs") // cut in half
	if err := os.WriteFile(corrupt, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("mono", exe, store, corrupt, filepath.Join(dir, "none.pvs"), "64", "100000")
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("UnityCheck.exe: %v\n%s%s", err, out, stderr.String())
	}
	t.Log(strings.TrimSpace(stderr.String()))
	want := "store 48x40, x 1000 to 1470, z 2000 to 2390\n" +
		"100000 ticks of 64 players and 6400000 SendsTo calls: 0 gen-0 collections, 0 bytes allocated\n" +
		"off the terrain: ArgumentOutOfRangeException, bounds named\n" +
		"store with a manager: InvalidOperationException, not closed\n" +
		"disposed: ObjectDisposedException\n" +
		"corrupt: FormatException\n" +
		"missing: FileNotFoundException\n"
	if string(out) != want {
		t.Errorf("UnityCheck.exe printed\n%s\nwant\n%s", out, want)
	}
}
