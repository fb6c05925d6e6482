package compress

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/golden"
	"github.com/frontiersets/frontiersets/quadpvs"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/golden.json from this build")

// goldenStore bakes a window of horizon's HGT crop (read without GDAL) the
// way internal/bake does — every point classified, encoded, merged up the
// hierarchy, capped, written — into an in-memory store at the given cap.
func goldenStore(t *testing.T, cp Cap, blocks bool) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "horizon", "testdata", "hgt-130x110.f32"))
	if err != nil {
		t.Fatal(err)
	}
	const cropW, col0, row0, w, h = 130, 40, 30, 45, 38
	elev := make([]float32, w*h)
	for r := range h {
		for c := range w {
			i := (row0+r)*cropW + col0 + c
			elev[r*w+c] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	const dx, dy = 66.52383144887773, 92.59808488374033 // testdata/crops.json
	p := horizon.ThesisParams()
	p.Sectors = 256
	m, err := horizon.New(horizon.Terrain{Width: w, Height: h, Elev: elev, Dx: dx, Dy: dy}, p)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := quadpvs.NewGeometry(w, h)
	var f memFile
	hd := Header{Width: w, Height: h, DxM: dx, DyM: dy, Source: "golden", Params: FromHorizon(p), Cap: cp}
	wr, err := NewWriter(&f, hd, g.QuadCount(), elev, nil)
	if err != nil {
		t.Fatal(err)
	}
	hier := quadpvs.NewHierarchy(g)
	var capper quadpvs.Capper
	var capped quadpvs.Tree
	var tally Tally
	b := quadpvs.NewHierarchyBuilder(g, func(l, x, y int, tr *quadpvs.Tree) error {
		c := cp.Apply(&capper, g, &capped, tr)
		tally.Tree(c)
		return wr.Add(hier.QuadIndex(l, x, y), c)
	})
	wk, enc, lv := m.NewWorker(), quadpvs.NewEncoder(g), horizon.NewLevels(w, h)
	var tr quadpvs.Tree
	if blocks { // the bake's path: the block engine, the builder from level 2
		bw := m.NewBlockWorker()
		var blk horizon.Block
		var trees [horizon.Lanes + horizon.Unions]quadpvs.Tree
		var pts [quadpvs.BlockPoints]*quadpvs.Tree
		var l1 [4]*quadpvs.Tree
		for i := range pts {
			pts[i] = &trees[i]
		}
		for j := range l1 {
			l1[j] = &trees[horizon.Lanes+j]
		}
		for _, q32 := range g.MortonQuads(2, nil) {
			q := [2]int{int(q32[0]), int(q32[1])}
			if err := bw.Classify(4*q[0], 4*q[1], nil, &blk); err != nil {
				t.Fatal(err)
			}
			enc.EncodeBlockTrees(&blk, blk.Points, 1<<horizon.Unions-1, &trees)
			if err := b.AddBlock(q[0], q[1], &pts, &l1, &trees[horizon.Lanes+4]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c32 := range b.Order()[:len(b.Order())*btoi(!blocks)] {
		c := [2]int{int(c32[0]), int(c32[1])}
		if err := wk.Classify(c[0], c[1], lv, nil); err != nil {
			t.Fatal(err)
		}
		if err := enc.EncodeLevels(lv, &tr); err != nil {
			t.Fatal(err)
		}
		if err := b.Add(c[0], c[1], &tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(tally.Stats()); err != nil {
		t.Fatal(err)
	}
	return f.b
}

// TestGoldenStore holds the SHA-256 of stores baked from a real crop,
// uncapped and capped both ways, so that a build computing other bits —
// fused multiply-adds (GOAMD64=v3, arm64), another zstd path — fails here:
// shards baked on mixed machines must join byte for byte. make test runs it
// for GOAMD64=v1 and v3 and, under qemu-user-static, for GOARCH=arm64.
func TestGoldenStore(t *testing.T) {
	got := map[string]string{}
	for name, cp := range map[string]Cap{
		"uncapped":     {},
		"codes-400":    {Codes: 400},
		"nodes-90-min": {Nodes: 90, MinLoss: true},
	} {
		s := sha256.Sum256(goldenStore(t, cp, false))
		got[name] = hex.EncodeToString(s[:12])
		if b := sha256.Sum256(goldenStore(t, cp, true)); b != s {
			t.Errorf("store %s: the block engine's path writes other bytes than the per-point path", name)
		}
	}
	golden.Check(t, filepath.Join("testdata", "golden.json"), got, *updateGolden)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
