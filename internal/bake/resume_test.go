package bake

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestResume: a resumable bake interrupted half-way keeps its finished
// tiles; started again with other parameters it refuses the folder; with
// the same ones it bakes only the tiles missing and writes the stores a
// single bake writes, byte for byte, then empties the folder.
func TestResume(t *testing.T) {
	defer func(n int) { pointsPerTile = n }(pointsPerTile)
	pointsPerTile = 1000
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 96, Height: 80})
	p := horizon.ThesisParams()
	p.Sectors = 64
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	outputs := func(prefix string) []Output {
		return []Output{
			{Path: filepath.Join(dir, prefix+"-a.pvs"), Label: "a", Cap: compress.Cap{Nodes: 60}},
			{Path: filepath.Join(dir, prefix+"-b.pvs"), Label: "b", Cap: compress.Cap{Codes: 400, MinLoss: true}},
		}
	}
	if _, err := Run(context.Background(), Config{DEM: dem, Params: p, Outputs: outputs("single")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	baked := 0
	_, err := Resume(ctx, Config{DEM: dem, Params: p, Outputs: outputs("resumed"), Progress: func(done, total int) {
		baked = done
		if 2*done > total {
			cancel()
		}
	}}, ckpt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	tiles, _ := filepath.Glob(filepath.Join(ckpt, "tile-*.part"))
	n := TileCount(mustGeometry(t, dem), dem.Width*dem.Height)
	if len(tiles) == 0 || len(tiles) >= n {
		t.Fatalf("%d of %d tiles kept after the interruption", len(tiles), n)
	}
	other := p
	other.Sectors = 128
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: other, Outputs: outputs("resumed")}, ckpt); !errors.Is(err, ErrOtherBake) {
		t.Fatalf("resumed with other parameters: %v", err)
	}
	first := -1
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: p, Outputs: outputs("resumed"), Progress: func(done, _ int) {
		if first < 0 {
			first = done
		}
	}}, ckpt); err != nil {
		t.Fatal(err)
	}
	if first <= 0 || first > baked {
		t.Errorf("the resumed bake's first progress at %d points, want past the tiles kept and at most %d", first, baked)
	}
	for i, o := range outputs("single") {
		a, err := os.ReadFile(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(outputs("resumed")[i].Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the resumed bake's store differs from the single bake's", o.Label)
		}
	}
	if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
		t.Errorf("checkpoint folder left: %v", err)
	}
}

func mustGeometry(t *testing.T, dem *heightmap.Grid) quadpvs.Geometry {
	t.Helper()
	g, err := quadpvs.NewGeometry(dem.Width, dem.Height)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestResumeCoded: a coded bake with --resume, interrupted right after a
// checkpoint and again in the middle of a tile (its store in the folder
// longer than the checkpoint), refuses another bake's parameters and a
// flat bake in its folder, then finishes with the store a bake without
// checkpoints writes, byte for byte, and leaves no folder.
func TestResumeCoded(t *testing.T) {
	defer func(n int) { pointsPerTile = n }(pointsPerTile)
	// 19,500 points cross a pricing checkpoint (checkpointJobs); -short
	// bakes 7,680 points, which do not.
	pointsPerTile = 2500
	win := heightmap.Window{Col: 300, Row: 300, Width: 150, Height: 130}
	if testing.Short() {
		pointsPerTile, win.Width, win.Height = 1000, 96, 80
	}
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", win)
	p := horizon.ThesisParams()
	p.Sectors = 64
	quads := mustGeometry(t, dem).QuadCount()
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	const budget = 2_400_000
	output := func(name string) []Output {
		return []Output{{Path: filepath.Join(dir, name), Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true}}
	}
	if _, err := Run(context.Background(), Config{DEM: dem, Params: p, Outputs: output("single.pvs")}); err != nil {
		t.Fatal(err)
	}
	// Interrupted once the first checkpoint is written.
	ctx, cancel := context.WithCancel(context.Background())
	var saved []int
	afterCheckpoint = func(job int) { saved = append(saved, job); cancel() }
	defer func() { afterCheckpoint = nil }()
	if _, err := Resume(ctx, Config{DEM: dem, Params: p, Outputs: output("resumed.pvs")}, ckpt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	if len(saved) != 1 {
		t.Fatalf("checkpoints %v, want one", saved)
	}
	for _, name := range []string{checkpointName, codedStoreName(0)} {
		if _, err := os.Stat(filepath.Join(ckpt, name)); err != nil {
			t.Fatalf("after the interruption: %v", err)
		}
	}
	// Interrupted again past the next checkpoint, in the middle of a tile.
	afterCheckpoint = func(job int) { saved = append(saved, job) }
	ctx, cancel = context.WithCancel(context.Background())
	first := -1
	if _, err := Resume(ctx, Config{DEM: dem, Params: p, Outputs: output("resumed.pvs"), Progress: func(done, total int) {
		if first < 0 {
			first = done
		}
		if len(saved) >= 2 && 10*done > 7*total {
			cancel()
		}
	}}, ckpt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted again: %v", err)
	}
	if len(saved) < 2 || first <= 0 || saved[1] <= saved[0] {
		t.Fatalf("checkpoints at jobs %v; the second run's first progress at %d points", saved, first)
	}
	other := p
	other.Sectors = 128
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: other, Outputs: output("resumed.pvs")}, ckpt); !errors.Is(err, ErrOtherBake) {
		t.Fatalf("resumed with other parameters: %v", err)
	}
	flat := []Output{{Path: filepath.Join(dir, "flat.pvs"), Label: "f", Cap: compress.Cap{Nodes: 60}}}
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: p, Outputs: flat}, ckpt); !errors.Is(err, ErrOtherBake) {
		t.Fatalf("a flat bake in a coded bake's folder: %v", err)
	}
	if _, err := Resume(context.Background(), Config{DEM: dem, Params: p, Outputs: output("resumed.pvs")}, ckpt); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "single.pvs"))
	b, err := os.ReadFile(filepath.Join(dir, "resumed.pvs"))
	if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("the resumed coded store differs from the single bake's (%d and %d bytes, %v)", len(a), len(b), err)
	}
	if _, err := os.Stat(ckpt); !os.IsNotExist(err) {
		t.Errorf("checkpoint folder left: %v", err)
	}
	t.Logf("checkpoints at jobs %v of %d tiles", saved, TileCount(mustGeometry(t, dem), dem.Width*dem.Height))
}

// TestResumePlantedLinks: links planted in a resumable bake's folder, under
// the names its files take (the coded store's index spill too), are refused, naming the file, and what they
// point to is left as it was (the bake followed them and overwrote their
// targets with store bytes).
func TestResumePlantedLinks(t *testing.T) {
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 64, Height: 48})
	p := horizon.ThesisParams()
	p.Sectors = 64
	quads := mustGeometry(t, dem).QuadCount()
	const budget = 2_400_000
	tiles := TileCount(mustGeometry(t, dem), dem.Width*dem.Height-dem.NodataCount)
	for _, name := range []string{codedStoreName(0), codedAddsName(0), codedStoreName(0) + ".index", checkpointName, fmt.Sprintf("tile-0000-of-%04d.part", tiles)} {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim.txt")
		if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		ckpt := filepath.Join(dir, "ckpt")
		if err := os.Mkdir(ckpt, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(ckpt, name)); err != nil {
			t.Fatal(err)
		}
		out := []Output{{Path: filepath.Join(dir, "s.pvs"), Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true}}
		if strings.HasPrefix(name, "tile-") { // a flat bake's partial
			out = []Output{{Path: filepath.Join(dir, "s.pvs"), Cap: compress.Cap{Nodes: 40}}}
		}
		_, err := Resume(context.Background(), Config{DEM: dem, Params: p, Outputs: out}, ckpt)
		if !errors.Is(err, atomicfile.ErrNotRegular) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s planted: %v, want an error naming it", name, err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep me" {
			t.Errorf("%s planted: its target now holds %d bytes", name, len(b))
		}
		if _, err := os.Stat(filepath.Join(dir, "s.pvs")); err == nil {
			t.Errorf("%s planted: the store was written", name)
		}
	}
}

// interruptedCoded bakes a small coded store resumably in a new folder
// and stops it once its first checkpoint is written; it returns the
// folder and a function resuming the bake there.
func interruptedCoded(t *testing.T) (ckpt string, resume func() error) {
	t.Helper()
	defer func(n int) { pointsPerTile = n }(pointsPerTile)
	pointsPerTile = 1000
	dem := loadWindow(t, "annarbor-dsm-2ft.tif", heightmap.Window{Col: 300, Row: 300, Width: 96, Height: 80})
	p := horizon.ThesisParams()
	p.Sectors = 64
	quads := mustGeometry(t, dem).QuadCount()
	dir := t.TempDir()
	ckpt = filepath.Join(dir, "ckpt")
	const budget = 2_400_000
	cfg := Config{DEM: dem, Params: p, Outputs: []Output{{Path: filepath.Join(dir, "s.pvs"), Budget: budget, Cap: compress.Cap{Codes: compress.CodedCeiling(budget, quads), MinLoss: true}, Coded: true}}}
	ctx, cancel := context.WithCancel(context.Background())
	afterCheckpoint = func(int) { cancel() }
	defer func() { afterCheckpoint = nil }()
	if _, err := Resume(ctx, cfg, ckpt); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	return ckpt, func() error {
		n := pointsPerTile
		pointsPerTile = 1000
		defer func() { pointsPerTile = n }()
		_, err := Resume(context.Background(), cfg, ckpt)
		return err
	}
}

// TestResumeChecksWhatItContinues: a byte flipped in the folder's store
// or adds list is refused, naming the file, where the bake went on from it
// and wrote a store that failed its checksums.
func TestResumeChecksWhatItContinues(t *testing.T) {
	for _, name := range []string{codedStoreName(0), codedAddsName(0)} {
		ckpt, resume := interruptedCoded(t)
		path := filepath.Join(ckpt, name)
		b, err := os.ReadFile(path)
		if err != nil || len(b) < 16 {
			t.Fatalf("%s: %d bytes, %v", name, len(b), err)
		}
		b[len(b)/2] ^= 0x10
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := resume(); err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "remove the folder") {
			t.Errorf("%s with a byte flipped: %v", name, err)
		}
	}
}

// TestResumeTamperedCheckpoint: a checkpoint whose numbers no bake writes
// (a negative Used, a step past the price ladder, more quads than the
// level has) or whose gob claims a 2^31-byte message is refused in one
// error, without a panic or a large allocation.
func TestResumeTamperedCheckpoint(t *testing.T) {
	read := func(ckpt string) checkpointState {
		f, err := os.Open(filepath.Join(ckpt, checkpointName))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, _ := zstd.NewReader(f)
		defer zr.Close()
		var st checkpointState
		if err := gob.NewDecoder(zr).Decode(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	write := func(ckpt string, raw []byte) {
		zw, _ := zstd.NewWriter(nil)
		if err := os.WriteFile(filepath.Join(ckpt, checkpointName), zw.EncodeAll(raw, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		tamper func(st *checkpointState)
	}{
		{"negative used", func(st *checkpointState) { st.Outputs[0].Used = -4611686018425535687 }},
		{"step past the ladder", func(st *checkpointState) { st.Outputs[0].Sched[0] = 1<<31 - 1 }},
		{"quads past the level", func(st *checkpointState) { st.Outputs[0].Done[0] = 1 << 31 }},
		{"points past the grid", func(st *checkpointState) { st.Done = 1 << 40 }},
	} {
		ckpt, resume := interruptedCoded(t)
		st := read(ckpt)
		c.tamper(&st)
		var b bytes.Buffer
		if err := gob.NewEncoder(&b).Encode(&st); err != nil {
			t.Fatal(err)
		}
		write(ckpt, b.Bytes())
		if err := resume(); err == nil || !strings.Contains(err.Error(), "remove the folder") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	ckpt, resume := interruptedCoded(t)
	write(ckpt, []byte{0xfc, 0x80, 0, 0, 0, 1, 2, 3}) // a message of 2^31 bytes, 3 given
	if err := resume(); err == nil || !strings.Contains(err.Error(), "not a checkpoint") {
		t.Errorf("a 2^31-byte message: %v", err)
	}
}
