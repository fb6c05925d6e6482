package bake

import (
	"runtime/debug"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// TestPeakMemory: the resident memory now grows by the bake's additions
// (8 bytes a point, each output's bit per quad and 2 MiB, 16 MiB of trees)
// times the collector's headroom; a higher peak so far stands.
func TestPeakMemory(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	dem := &heightmap.Grid{Width: 300, Height: 200, Elev: make([]float32, 300*200), Dx: 1, Dy: 1}
	cfg := Config{DEM: dem, Params: horizon.DefaultParams(), Outputs: []Output{{Cap: compress.Cap{Nodes: 9}}, {Cap: compress.Cap{Nodes: 90}}}}
	g, err := quadpvs.NewGeometry(300, 200)
	if err != nil {
		t.Fatal(err)
	}
	add := int64(8*300*200) + 2*(int64(g.QuadCount())/8+2<<20) + 16<<20
	if got, want := PeakMemory(cfg, 100<<20, 0), int64(100<<20)+2*add; got != want {
		t.Errorf("GOGC 100: %d, want %d", got, want)
	}
	if got := PeakMemory(cfg, 100<<20, 1<<30); got != 1<<30 {
		t.Errorf("a peak of 1 GiB so far: %d", got)
	}
	debug.SetGCPercent(50)
	if got, want := PeakMemory(cfg, 100<<20, 0), int64(100<<20)+add*3/2; got != want {
		t.Errorf("GOGC 50: %d, want %d", got, want)
	}
	if got := PeakMemory(cfg, 0, 0); got <= add*3/2 {
		t.Errorf("unknown resident memory: %d, want Go's own and more than %d", got, add*3/2)
	}
}
