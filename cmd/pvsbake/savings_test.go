package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBakeSavings: bake --savings measures the stores it wrote, of PVS
// cells coarser than the heightmap, on the heightmap it baked (the table
// after what was written; with --json, beside the stores); it refuses
// --shard.
func TestBakeSavings(t *testing.T) {
	dir := t.TempDir()
	bake := []string{"bake", "../../data/demo-hills.tif", "--window", "20,20,120,120", "--los", "region", "--pvs-cell", "40", "--max-distance", "1000",
		"--nodes", "4,200", "-o", filepath.Join(dir, "h"), "--savings", "-q"}
	out, errOut, code := runCmd(bake...)
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 7 || !strings.HasPrefix(lines[0], "wrote ") || !strings.HasPrefix(lines[3], "demo-hills.tif window 20,20,120,120 at 10 m: 1000 player pairs within 1000 m") ||
		!strings.Contains(lines[5], "saved vs NPP") || !strings.Contains(lines[6], "h-n4.pvs") || !strings.Contains(lines[7], "h-n200.pvs") {
		t.Errorf("exit %d: %s %s", code, out, errOut)
	}
	if _, errOut, code := runCmd("bake", "../../data/demo-hills.tif", "--nodes", "40", "-o", filepath.Join(dir, "s.part"), "--shard", "0/2", "--savings"); code != 2 || !strings.Contains(errOut, "--savings") {
		t.Errorf("--shard: exit %d: %s", code, errOut)
	}
	if testing.Short() {
		return
	}
	out, errOut, code = runCmd(append(bake, "--json")...)
	var rep struct {
		Stores  []struct{ Path string } `json:"stores"`
		Savings struct {
			Pairs  int `json:"pairs"`
			Stores []struct {
				Store    string  `json:"store"`
				PVSCellM float64 `json:"pvs_cell_m"`
				Found    int     `json:"found"`
			} `json:"stores"`
		} `json:"savings"`
	}
	if err := json.Unmarshal([]byte(out), &rep); code != 0 || err != nil {
		t.Fatalf("--json: exit %d (%v): %s %s", code, err, out, errOut)
	}
	sv := rep.Savings
	if len(rep.Stores) != 2 || len(sv.Stores) != 2 || sv.Pairs != 1000 || sv.Stores[0].Store != rep.Stores[0].Path || sv.Stores[1].PVSCellM != 40 ||
		sv.Stores[1].Found < sv.Stores[0].Found || sv.Stores[1].Found == 0 {
		t.Errorf("--json: savings %+v of stores %+v", sv, rep.Stores)
	}
}
