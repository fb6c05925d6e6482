// Package godot holds the Godot addon (addons/frontiersets) and its
// networked demo (demo/); its test runs the demo in Godot and checks it.
package godot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/losref"
)

// TestGodotDemo (make godot-check): the addon's GDNative library, built
// over the C library, loads in Debian's godot3-server; bad input (a
// missing or corrupt store, positions off the terrain or at NaN, calls
// after close) gives Godot errors and null or false results (errors.gd);
// a headless server and 8 headless clients play 30 s at 20 Hz over ENet
// on 127.0.0.1, 64 players on data/demo-unity.raw baked with --engine
// godot (one per client, 56 walked by the server). Afterwards, from the
// server's log: the send lists equal interest.Joint's fed the same
// positions, tick for tick; no client was denied a player its own could
// see by exact line of sight between their logged positions on the
// heightmap's surface (missed); the clients received the packets (ENet,
// unreliable: at least 90% of them). It writes build/godot/report.json.
func TestGodotDemo(t *testing.T) {
	if testing.Short() || os.Getenv("FRONTIERSETS_GODOT") == "" {
		t.Skip("runs Godot for 30 s: make godot-check (FRONTIERSETS_GODOT=1)")
	}
	godot, err := exec.LookPath("godot3-server")
	if err != nil {
		t.Skip("no godot3-server (make godot-check installs it)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the demo's project lists the x86_64 Linux library")
	}
	root, _ := filepath.Abs("../..")
	proj := filepath.Join(t.TempDir(), "project")
	if out, err := exec.Command("cp", "-r", ".", proj).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	bin := filepath.Join(proj, "addons", "frontiersets", "bin", "x11")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	lib := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(bin, "libfrontiersets.so"), "./cmd/libfrontiersets")
	lib.Dir = root
	if out, err := lib.CombinedOutput(); err != nil {
		t.Fatalf("go build the C library: %v\n%s", err, out)
	}
	cc := exec.Command("cc", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-O2", "-I", filepath.Join(root, "cmd", "libfrontiersets"),
		filepath.Join("addons", "frontiersets", "src", "frontiersets_gdnative.c"), "-L", bin, "-lfrontiersets", "-Wl,-rpath,$ORIGIN",
		"-o", filepath.Join(bin, "libfrontiersets_gdnative.so"))
	if out, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("cc the GDNative library: %v\n%s", err, out)
	}
	// The terrain: Unity's demo export as a Godot heightmap at (−10200, −10200).
	opt := heightmap.Options{CellSize: 80, HeightRange: [2]float64{0, 2000}}
	dem, err := heightmap.Load(filepath.Join(root, "data", "demo-unity.raw"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if dem.Engine, err = heightmap.NewEngineFrame("godot", dem.Dx, dem.Dy, [2]float64{-10200, -10200}, false, dem.Height); err != nil {
		t.Fatal(err)
	}
	p := horizon.DefaultParams() // the region model: players anywhere in their cells
	p.Sectors = 64
	store := filepath.Join(proj, "terrain.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: store, Cap: compress.Cap{Nodes: 200}}}}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(proj, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	env := append(os.Environ(), "HOME="+proj, "LANG=en_US.UTF-8", "LC_ALL=")
	// Bad input first: Godot errors, null or false results, the engine
	// going on to its end.
	b, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(proj, "corrupt.pvs")
	if err := os.WriteFile(corrupt, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	ecmd := exec.Command(godot, "--path", proj, "-s", "res://demo/errors.gd", "--store="+store, "--corrupt="+corrupt)
	ecmd.Env = env
	eout, err := ecmd.CombinedOutput()
	if err != nil || !strings.Contains(string(eout), "errors: done") || strings.Contains(string(eout), ": False") ||
		strings.Count(string(eout), ": True") != 11 || !strings.Contains(string(eout), "ERROR: open: FrontierSets.open") {
		t.Errorf("errors.gd: %v\n%s", err, eout)
	}
	start := func(script string, args ...string) *exec.Cmd {
		cmd := exec.Command(godot, append([]string{"--path", proj, "-s", "res://demo/" + script}, args...)...)
		cmd.Env = env
		log, err := os.Create(filepath.Join(out, strings.TrimSuffix(script, ".gd")+strconv.Itoa(time.Now().Nanosecond())+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); log.Close() })
		return cmd
	}
	server := start("server.gd", "--store="+store, "--port="+port, "--out="+out, "--seconds=30")
	time.Sleep(time.Second)
	var clients []*exec.Cmd
	for range 8 {
		clients = append(clients, start("client.gd", "--port="+port, "--out="+out))
	}
	wait := make(chan error, 1)
	go func() { wait <- server.Wait() }()
	select {
	case err := <-wait:
		if err != nil {
			t.Fatalf("the server: %v (%s)", err, logs(out))
		}
	case <-time.After(3 * time.Minute):
		t.Fatalf("the server did not finish in 3 minutes (%s)", logs(out))
	}
	for _, c := range clients {
		c.Wait()
	}
	var report map[string]any
	b, err = os.ReadFile(filepath.Join(out, "server.json"))
	if err == nil {
		err = json.Unmarshal(b, &report)
	}
	if err != nil {
		t.Fatalf("server.json: %v (%s)", err, logs(out))
	}
	received, packets := 0, 0
	for c := range 8 {
		var cr struct{ Packets, Updates int }
		b, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("client-%d.json", c)))
		if err == nil {
			err = json.Unmarshal(b, &cr)
		}
		if err != nil {
			t.Fatalf("client %d: %v (%s)", c, err, logs(out))
		}
		received += cr.Updates
		packets += cr.Packets
	}
	ticks := int(report["ticks"].(float64))
	// The updates travel unreliable, as a game's state updates do: on a
	// loaded machine ENet may drop a few, which the report counts.
	report["updates_received"] = received
	report["packets_lost"] = 8*ticks - packets
	if want := int(report["updates_to_clients"].(float64)); received > want || packets > 8*ticks || packets < 8*ticks*9/10 {
		t.Errorf("the clients received %d updates in %d packets; the server sent %d in %d", received, packets, want, 8*ticks)
	}
	same, missed, checked := replay(t, store, dem, filepath.Join(out, "server.log"), 8)
	report["same_as_joint"] = same
	report["missed"] = missed
	report["visibility_checks"] = checked
	t.Logf("report: %v", report)
	if !same {
		t.Error("Godot's send lists differ from interest.Joint's on the same positions")
	}
	if missed != 0 {
		t.Errorf("%d times a client was not sent a player its own saw", missed)
	}
	if report["updates_sent"].(float64) >= report["updates_all"].(float64) {
		t.Errorf("%v updates sent, all-to-all %v", report["updates_sent"], report["updates_all"])
	}
	dst := filepath.Join(root, "build", "godot")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ = json.MarshalIndent(report, "", "  ")
	if err := os.WriteFile(filepath.Join(dst, "report.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replay reads the server's log and feeds its positions to interest.Joint
// on the store: same reports whether every tick's send lists equal
// Joint's; missed counts the pairs (a client's player i, another player
// j) that exact line of sight on the heightmap says i sees while j's
// update was not sent to i; checked the pairs looked at.
func replay(t *testing.T, storePath string, dem *heightmap.Grid, logPath string, clientPlayers int) (same bool, missed, checked int) {
	s, err := frontiersets.Open(storePath)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	params := s.Info().Params
	g := losref.Grid{Width: dem.Width, Height: dem.Height, Elev: dem.Elev}
	var jt *interest.Joint
	var players []interest.Player
	var xy [][2]float64
	var sends [][]int
	same = true
	flush := func() {
		if len(players) == 0 {
			return
		}
		if jt == nil {
			if jt, err = interest.NewJoint(s.Grower(), len(players), interest.JointOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := jt.Tick(players); err != nil {
			t.Fatal(err)
		}
		for j := range players {
			for i := range players {
				logged := false
				for _, r := range sends[j] {
					logged = logged || r == i
				}
				if i != j && jt.Sends(j, i) != logged {
					same = false
				}
				if i < clientPlayers && i != j {
					checked++
					if !logged && losref.PositionClearance(g, xy[i][0], xy[i][1], xy[j][0], xy[j][1], params.ObserverHeight, params.TargetHeight, 4) >= 0 {
						missed++
					}
				}
			}
		}
		players, xy, sends = players[:0], xy[:0], sends[:0]
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "tick ") {
			flush()
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 {
			t.Fatalf("log line %q", line)
		}
		wx, _ := strconv.ParseFloat(fields[1], 64)
		wz, _ := strconv.ParseFloat(fields[2], 64)
		x, y, err := s.WorldToPosition(wx, wz)
		if err != nil {
			t.Fatal(err)
		}
		col, row, err := s.PositionCell(x, y)
		if err != nil {
			t.Fatal(err)
		}
		players = append(players, interest.Player{Col: col, Row: row, FCol: x - float64(col), FRow: y - float64(row)})
		xy = append(xy, [2]float64{x, y})
		var to []int
		if len(fields) > 3 {
			for _, v := range strings.Split(fields[3], ",") {
				n, _ := strconv.Atoi(v)
				to = append(to, n)
			}
		}
		sends = append(sends, to)
	}
	flush()
	return same, missed, checked
}

// freePort returns a UDP port free on 127.0.0.1 now.
func freePort(t *testing.T) string {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return strconv.Itoa(c.LocalAddr().(*net.UDPAddr).Port)
}

// logs returns the Godot processes' output, for a failure's message.
func logs(dir string) string {
	var b strings.Builder
	m, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, p := range m {
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "\n== %s\n%s", filepath.Base(p), data)
	}
	return b.String()
}
