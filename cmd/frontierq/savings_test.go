package main

import (
	"encoding/json"
	stdpng "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
)

// TestSavings measures two budgets of a window of the demo hills: the
// table names both stores and the recommendation, --json holds the
// measurement, --png draws it; stores of another map are refused naming
// both, and bad flags are usage errors.
func TestSavings(t *testing.T) {
	dem, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 60, Row: 60, Width: 64, Height: 64}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := horizon.DefaultParams()
	p.Sectors, p.MaxDistance, p.LOS = 128, 1000, horizon.LOSRegion
	small, large := filepath.Join(dir, "small.pvs"), filepath.Join(dir, "large.pvs")
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem, Params: p, Outputs: []bake.Output{{Path: small, Cap: compress.Cap{Nodes: 4}}, {Path: large, Cap: compress.Cap{Nodes: 400}}}}); err != nil {
		t.Fatal(err)
	}
	args := []string{"savings", small, large, "--pairs", "100", "--players", "8", "--seconds", "5", "-q"}
	out, errOut, code := runCmd(append(args, "--recommend", "5")...)
	if code != 0 || !strings.Contains(out, "small.pvs") || !strings.Contains(out, "large.pvs") || !strings.Contains(out, "recommended: large.pvs") ||
		!strings.Contains(out, "100 player pairs within 1000 m") {
		t.Errorf("table: exit %d: %s %s", code, out, errOut)
	}
	png := filepath.Join(dir, "s.png")
	out, errOut, code = runCmd(append(args, "--json", "--png", png)...)
	var rep struct {
		Pairs  int `json:"pairs"`
		Stores []struct {
			Found      int     `json:"found"`
			NPPPackets float64 `json:"npp_packets_per_s"`
		} `json:"stores"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil || rep.Pairs != 100 || len(rep.Stores) != 2 || rep.Stores[1].NPPPackets != 8*7*20 || rep.Stores[1].Found < rep.Stores[0].Found {
		t.Errorf("--json: exit %d (%v): %s %s", code, err, out, errOut)
	}
	if f, err := os.Open(png); err != nil {
		t.Error(err)
	} else {
		defer f.Close()
		if _, err := stdpng.Decode(f); err != nil {
			t.Errorf("--png: %v", err)
		}
	}
	other := filepath.Join(dir, "other.pvs")
	dem2, err := heightmap.Load("../../data/demo-hills.tif", heightmap.Options{Window: heightmap.Window{Col: 0, Row: 0, Width: 64, Height: 64}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bake.Run(t.Context(), bake.Config{DEM: dem2, Params: p, Outputs: []bake.Output{{Path: other, Cap: compress.Cap{Nodes: 4}}}}); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := runCmd("savings", small, other, "-q"); code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "small.pvs is demo-hills.tif window 60,60,64,64") ||
		!strings.Contains(errOut, "other.pvs is demo-hills.tif window 0,0,64,64") {
		t.Errorf("different maps: exit %d: %s", code, errOut)
	}
	for _, bad := range [][]string{{"--pairs", "0"}, {"--players", "1"}, {"--hz", "200"}, {"--walk", "0"}, {"--recommend", "100"}, {"--merge", "x"}} {
		if _, errOut, code := runCmd(append([]string{"savings", small}, bad...)...); code != 2 || !strings.Contains(errOut, bad[0]) {
			t.Errorf("%v: exit %d: %s", bad, code, errOut)
		}
	}
}
