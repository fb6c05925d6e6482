package horizon

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/golden"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/crops and testdata/golden.json from the real DEMs and this build")

// goldenCrop is a small window of one of the two real DEMs, kept in
// testdata as row-major little-endian float32 metres so that the golden
// test runs without GDAL (GOARCH=arm64 under qemu-user-static): sizes that
// are not powers of two, relief, and lines long enough to stop early.
type goldenCrop struct {
	Name   string
	DEM    string
	Window [4]int // col, row, width, height of the source raster
	Dx, Dy float64
}

var goldenCrops = []goldenCrop{
	{Name: "hgt-130x110", DEM: "N44W072.hgt", Window: [4]int{780, 810, 130, 110}},
	{Name: "dsm-120x136", DEM: "annarbor-dsm-2ft.tif", Window: [4]int{300, 280, 120, 136}},
}

// TestGoldenCrops: the crops in testdata are what GDAL reads from the real
// DEMs (with -update, it writes them).
func TestGoldenCrops(t *testing.T) {
	var manifest []goldenCrop
	for _, c := range goldenCrops {
		ter := loadWindow(t, c.DEM, heightmap.Window{Col: c.Window[0], Row: c.Window[1], Width: c.Window[2], Height: c.Window[3]})
		c.Dx, c.Dy = ter.Dx, ter.Dy
		manifest = append(manifest, c)
		raw := make([]byte, 4*len(ter.Elev))
		for i, z := range ter.Elev {
			binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(z))
		}
		path := filepath.Join("testdata", c.Name+".f32")
		if *updateGolden {
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got := readCrop(t, c.Name)
		if got.Dx != ter.Dx || got.Dy != ter.Dy || fmt.Sprint(got.Elev) != fmt.Sprint(ter.Elev) {
			t.Errorf("%s differs from %s window %v: run go test ./horizon -run Golden -update", path, c.DEM, c.Window)
		}
	}
	if *updateGolden {
		b, _ := json.MarshalIndent(manifest, "", "  ")
		if err := os.WriteFile(filepath.Join("testdata", "crops.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readCrop loads a crop of testdata without GDAL.
func readCrop(t testing.TB, name string) Terrain {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "crops.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest []goldenCrop
	if err := json.Unmarshal(b, &manifest); err != nil {
		t.Fatal(err)
	}
	for _, c := range manifest {
		if c.Name != name {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("testdata", name+".f32"))
		if err != nil {
			t.Fatal(err)
		}
		w, h := c.Window[2], c.Window[3]
		if len(raw) != 4*w*h {
			t.Fatalf("%s.f32: %d bytes for %d×%d cells", name, len(raw), w, h)
		}
		ter := Terrain{Width: w, Height: h, Elev: make([]float32, w*h), Dx: c.Dx, Dy: c.Dy}
		for i := range ter.Elev {
			ter.Elev[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		return ter
	}
	t.Fatalf("no crop %s in testdata/crops.json", name)
	return Terrain{}
}

// goldenParams are the parameter sets the golden test hashes: the thesis's
// (sector model, 1,024 sectors), one with every option that enters the
// arithmetic, the conservative model, and the region model with a view
// distance, in the versions this build bakes, on heightmap cells and on
// PVS cells of 3×3 heightmap cells. Keys name the model and its
// version (Params.ModelVersion): a change of a model's bytes fails here and needs
// a new version, so that stores, shards and checkpoints of the old bytes
// are refused instead of mixed (-update then writes the new keys).
var goldenParams = []struct {
	name string
	p    Params
}{
	{"s1024", ThesisParams()},
	{"s360-curved-margin-2km", Params{Sectors: 360, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, EarthCurvature: true, Refraction: 0.13, Margin: 0.05}},
	{"s256", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, LOS: LOSConservative}},
	{"s256-2km", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, LOS: LOSRegion}},
	{"s256-2km", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, LOS: LOSRegion, Version: 2}},
	{"s256-2km", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, LOS: LOSRegion, Version: 3}},
	{"s256-2km-pvs3", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, LOS: LOSRegion, PVSCell: 3}},
	{"s256-2km-pvs3", Params{Sectors: 256, ObserverHeight: 1.8, TargetHeight: 1.8, MaxDistance: 2000, LOS: LOSRegion, PVSCell: 3, Version: 4}},
}

// TestGolden holds SHA-256 hashes of the visibility tables, of the
// profiles (every readable slot), of viewshed bitmaps and of classified
// pyramids for sampled observers of both real crops, so that a build whose
// floating point differs — fused multiply-adds under GOAMD64=v3 or on
// arm64, another math library — fails here instead of baking other bytes
// (make test runs it for GOAMD64=v1 and v3 and, under qemu-user-static,
// for GOARCH=arm64). With -update it rewrites testdata/golden.json.
func TestGolden(t *testing.T) {
	got := map[string]string{}
	for _, c := range goldenCrops {
		ter := readCrop(t, c.Name)
		for _, gp := range goldenParams {
			if testing.Short() && gp.name != "s1024" {
				continue // make test: the thesis's parameters; make check: all
			}
			m, err := New(ter, gp.p)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Terrain() // the grid of PVS cells where PVSCell > 1
			key := fmt.Sprintf("%s/%s/%s-v%d", c.Name, gp.name, gp.p.LOS, gp.p.ModelVersion())
			got[key+"/tables"] = hashTables(m)
			prof, bits, levels := sha256.New(), sha256.New(), sha256.New()
			w := m.NewWorker()
			var bm Bitmap
			lv := NewLevels(g.Width, g.Height)
			// Conservative steps walk chords and cost several times
			// more: fewer observers keep the arm64 run (qemu) short.
			stride, every := 37, 3
			if gp.p.LOS != LOSSector {
				stride, every = 149, 11
			}
			for i := 0; i < g.Width*g.Height; i += stride {
				col, row := i%g.Width, i/g.Width
				if err := w.Classify(col, row, lv, nil); err != nil {
					t.Fatal(err)
				}
				hashLevels(levels, lv, g.Width, g.Height)
				for k := range w.n {
					start := int(m.lineStart[k])
					for j := 0; j <= m.steps(k, col, row); j++ {
						binary.Write(prof, binary.LittleEndian, math.Float32bits(w.prof[start+min(j, int(w.n[k]))]))
					}
				}
				bm, err = w.Viewshed(col, row, bm)
				if err != nil {
					t.Fatal(err)
				}
				binary.Write(bits, binary.LittleEndian, bm.Words)
			}
			got[key+"/profiles"] = sum(prof)
			got[key+"/bitmaps"] = sum(bits)
			got[key+"/pyramids"] = sum(levels)
			// The block engine, every third block: its kernels are the
			// vector ones where the build and CPU have them.
			blocks := sha256.New()
			bw := m.NewBlockWorker()
			var blk Block
			i := 0
			for row := 0; row < g.Height; row += BlockSide {
				for col := 0; col < g.Width; col += BlockSide {
					if i++; i%every != 0 {
						continue
					}
					if err := bw.Classify(col, row, nil, &blk); err != nil {
						t.Fatal(err)
					}
					for b := range Lanes + Unions {
						blocks.Write(blockCodes(&blk, b))
					}
				}
			}
			got[key+"/blocks"] = sum(blocks)
		}
	}
	checkGolden(t, "golden.json", got)
}

// hashLevels hashes the classes of every quad of a width×height pyramid
// that Classify reached: the root, then the children of each mixed quad
// inside the grid, breadth first.
func hashLevels(h hash.Hash, lv Levels, width, height int) {
	type q struct{ l, x, y int }
	top := len(lv) - 1
	cur := []q{{top, 0, 0}}
	h.Write([]byte{lv[top][0]})
	for len(cur) > 0 {
		var next []q
		for _, p := range cur {
			pc, _ := quadsAcross(width, height, p.l)
			if lv[p.l][p.y*pc+p.x] != QuadMixed {
				continue
			}
			cc, cr := quadsAcross(width, height, p.l-1)
			for k := range 4 {
				x, y := 2*p.x+k&1, 2*p.y+k>>1
				if x < cc && y < cr {
					h.Write([]byte{lv[p.l-1][y*cc+x]})
					next = append(next, q{p.l - 1, x, y})
				}
			}
		}
		cur = next
	}
}

func hashTables(m *Model) string {
	h := sha256.New()
	for k := range m.p.Sectors {
		binary.Write(h, binary.LittleEndian, []any{m.secSlope[k], m.secMax[k], math.Float32bits(m.secInv[k]), math.Float64bits(m.secStep[k]), m.secMajor[k], m.secMinor[k]})
		if m.secDrop != nil {
			binary.Write(h, binary.LittleEndian, math.Float32bits(m.secDrop[k]))
		}
	}
	for i := range m.offU {
		binary.Write(h, binary.LittleEndian, []uint32{math.Float32bits(m.offU[i]), math.Float32bits(m.offD[i]), math.Float32bits(m.offInv[i])})
		if m.offDrp != nil {
			binary.Write(h, binary.LittleEndian, math.Float32bits(m.offDrp[i]))
		}
	}
	for l := range m.zmin {
		binary.Write(h, binary.LittleEndian, m.zmin[l])
		binary.Write(h, binary.LittleEndian, m.zmax[l])
	}
	return sum(h)
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:12]) }

// checkGolden compares hashes with testdata/name, or rewrites it with
// -update.
func checkGolden(t *testing.T, name string, got map[string]string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), got, *updateGolden)
}
