package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaleWarnings: scale mistakes are named before a bake
// goes on with them — a --height-range of 0.42 m (a flat, all-visible
// world), of 42 km, a cell size that makes the map 16 cm across, a RAW
// read with the wrong byte order (its samples using under 1% of the
// 16-bit range); a --height-range that makes every cell nodata is
// refused naming --height-range. A sound bake warns of nothing.
func TestScaleWarnings(t *testing.T) {
	dir := t.TempDir()
	raw := "../../data/demo-unity.raw"
	// Samples 0 to 200 of 65535: 0.3% of the range.
	small := filepath.Join(dir, "small.raw")
	b := make([]byte, 2*32*32)
	for i := range 32 * 32 {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(i%201))
	}
	if err := os.WriteFile(small, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "s.pvs")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"0.42 m of relief", []string{raw, "--cell-size", "80", "--height-range", "0,0.42", "--window", "0,0,16,16"}, 0, "--height-range 0,0.42 gives 0.42 m of relief"},
		{"42 km of relief", []string{raw, "--cell-size", "80", "--height-range", "0,42000", "--window", "0,0,16,16"}, 0, "--height-range 0,42000 gives 42000 m of relief"},
		{"every cell nodata", []string{raw, "--cell-size", "80", "--height-range", "20000,30000", "--window", "0,0,16,16"}, 1, "--height-range 20000,30000 puts every sample outside -12000 to 10000 m"},
		{"a 16 cm map", []string{raw, "--cell-size", "0.01", "--height-range", "0,2000", "--window", "0,0,16,16"}, 0, "--cell-size 0.01 makes"},
		{"a thousandth of the range", []string{small, "--cell-size", "2", "--height-range", "0,600"}, 0, "uses 0.31% of its 16-bit sample range"},
		{"sound", []string{raw, "--cell-size", "80", "--height-range", "0,2000", "--window", "0,0,16,16"}, 0, ""},
	} {
		_, errOut, code := runCmd(append([]string{"bake", "--nodes", "20", "-q", "-o", out}, tc.args...)...)
		warned := strings.Contains(errOut, "warning:") || code != 0
		if code != tc.code || !strings.Contains(errOut, tc.want) || (tc.want == "") == warned {
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		}
		os.Remove(out)
	}
}

// TestStatShowsFrame: stat gives the PVS cell in metres beside
// params.pvs_cell in heightmap cells, and the engine frame with its
// origin and axes.
func TestStatShowsFrame(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.pvs")
	if _, errOut, code := runCmd("bake", "../../data/demo-unity.raw", "--cell-size", "80", "--height-range", "0,2000", "--window", "0,0,32,32",
		"--engine", "godot", "--engine-origin", "-100,200", "--pvs-cell", "160", "--nodes", "20", "-q", "-o", out); code != 0 {
		t.Fatal(errOut)
	}
	stdout, errOut, code := runCmd("stat", out)
	if code != 0 {
		t.Fatal(errOut)
	}
	var st struct {
		PVSCellM float64 `json:"pvs_cell_m"`
		Params   struct {
			PVSCell int `json:"pvs_cell"`
		} `json:"params"`
		Engine struct {
			Engine string     `json:"engine"`
			Axes   [2]string  `json:"axes"`
			Origin [2]float64 `json:"origin"`
		} `json:"engine"`
	}
	if err := json.Unmarshal([]byte(stdout), &st); err != nil {
		t.Fatal(err)
	}
	// The PVS cell (0,0) covers samples 0 and 1: its centre 40 m along.
	if st.PVSCellM != 160 || st.Params.PVSCell != 2 || st.Engine.Engine != "godot" || st.Engine.Axes != [2]string{"x", "z"} || st.Engine.Origin != [2]float64{-60, 240} {
		t.Errorf("stat: %+v", st)
	}
}

// TestLongBakeStops: a bake projected over an hour (a 2048²
// heightmap at 1 m, every cell in view) stops with exit 2 before baking,
// listing coarser PVS cells and a shorter view with their projections,
// each timed; nothing is written (make check: its calibrations take half
// a minute).
func TestLongBakeStops(t *testing.T) {
	if testing.Short() {
		t.Skip("times five calibrations of a 2048² map (make check)")
	}
	tile, err := os.ReadFile("../../data/demo-unity.raw") // 256² samples
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 0, 2*2048*2048)
	for r := range 2048 {
		row := tile[2*256*(r%256) : 2*256*(r%256+1)]
		for range 8 {
			big = append(big, row...)
		}
	}
	dir := t.TempDir()
	raw, out := filepath.Join(dir, "big.raw"), filepath.Join(dir, "big.pvs")
	if err := os.WriteFile(raw, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCmd("bake", raw, "--cell-size", "1", "--height-range", "0,200", "--nodes", "20", "-o", out)
	for _, want := range []string{"over an hour; these bake sooner", "--pvs-cell 2 (1024×1024 PVS cells): projected", "--max-distance 2000: projected", "or --yes to bake it as asked"} {
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, want %q in:\n%s", code, want, errOut)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the stopped bake wrote its store")
	}
}
