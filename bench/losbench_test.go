package main

import (
	"encoding/csv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLOSBench runs the line-of-sight benchmark on 32-cell windows: ten
// rows (five crops, two modes), the conservative stores hiding no cell
// that exact line of sight sees and no adversarial violation, and hiding
// at least 95% as many cells as the sector model's (and some, on most
// crops). They may hide a few more: a cell is judged against its own
// wedge's profile, where the sector model takes the lower of two.
func TestLOSBench(t *testing.T) {
	if testing.Short() {
		t.Skip("bakes ten small stores")
	}
	if _, err := exec.LookPath("gdalwarp"); err != nil {
		t.Skip("gdalwarp not installed (apt-get install gdal-bin)")
	}
	open, urban := realDEMs(t)
	out := t.TempDir()
	if err := run([]string{"los", "--open", open, "--urban", urban,
		"--size", "32", "--observers", "3", "--pairs", "20", "--out", out}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "los.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 11 {
		t.Fatalf("%d rows, %v", len(recs), err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var sectorHidden, withHidden int
	for _, r := range recs[1:] {
		hidden, _ := strconv.Atoi(r[col["hidden"]])
		if r[col["mode"]] == "sector" {
			sectorHidden = hidden
			continue
		}
		if hidden > 0 {
			withHidden++
		}
		if r[col["false_hidden"]] != "0" || r[col["violations"]] != "0" {
			t.Errorf("%s conservative: %s of %s checked hidden cells exactly visible, %s violations", r[col["crop"]], r[col["false_hidden"]], r[col["checked_hidden"]], r[col["violations"]])
		}
		if float64(hidden) < 0.95*float64(sectorHidden) {
			t.Errorf("%s: conservative hides %d cells, the sector model %d", r[col["crop"]], hidden, sectorHidden)
		}
	}
	if withHidden < 3 {
		t.Errorf("conservative stores hide cells on %d crops of 5", withHidden)
	}
	md, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil || !strings.Contains(string(md), "| DSM → 1.5 m |") {
		t.Errorf("README (%v):\n%s", err, md)
	}
}
