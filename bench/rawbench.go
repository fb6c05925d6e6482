package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// rawResult is what bench raw measures: the scale map's centred window
// baked from its GeoTIFF and from the same heights as a game engine's
// 16-bit RAW, and how far the two stores' answers differ.
type rawResult struct {
	Size           int
	HeightRange    [2]float64 // metres of samples 0 and 65535
	StepM          float64    // the quantisation step, metres
	MaxDzM         float64    // largest |RAW − GeoTIFF| height, metres
	Bake           [2]shardRow
	Observers      int     // sampled observers whose PVSs were compared
	CellPairs      int64   // observer-cell pairs compared
	PairsDiffer    int64   // of them judged otherwise by the two stores
	Pairs          int     // frontier sets grown on both stores
	SameSize       int     // of them with the same points on each side
	PointsTIF      float64 // mean frontier points, GeoTIFF store
	PointsRAW      float64 // mean frontier points, RAW store
	FrontierChecks int     // RAW-store frontier cell pairs looked up in the GeoTIFF store
	FrontierSeen   int     // of them a PVS of the GeoTIFF store lets see
}

// runRawBench is `go run ./bench raw`: the item "as a game engine exports
// it" of the game-size maps, reproducible. It writes the scale map's
// centred n² window as a headerless little-endian 16-bit RAW over its
// height range rounded out to whole metres (Unity's Terrain → Export Raw),
// bakes it with the flags a Unity user gives (--cell-size, --height-range)
// and the GeoTIFF window with the same parameters, and compares the two
// stores: every sampled observer's PVS cell by cell, frontier sets of
// random mutually invisible pairs (hierarchical, lossy, --max-steps), and
// the RAW store's frontier cells looked up in the GeoTIFF store.
func runRawBench(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("bench raw", "bench raw [--size 4097] [--budget 1GiB] [--stores DIR]", stderr)
	hgt := fs.String("hgt", "../shared/data/N44W072.hgt", "the HGT `tile` the map is warped from")
	size := fs.Int("size", 4097, "window `cells` a side (centred in the scale map's 4097² window)")
	budget := fs.String("budget", "1GiB", "store `budget`")
	encoding := fs.String("encoding", "coded", "store `encoding`")
	maxDist := fs.Float64("max-distance", 2000, "view distance in `metres`")
	los := fs.String("los", "conservative", "visibility `model` of both bakes: conservative or sector")
	observers := fs.Int("observers", 1000, "sampled `observers` whose PVSs are compared cell by cell")
	pairs := fs.Int("pairs", 1000, "mutually invisible `pairs` grown on both stores")
	maxSteps := fs.Int("max-steps", 125, "quads considered per query at most")
	seed := fs.Uint64("seed", 1, "random `seed`")
	out := fs.String("out", "bench/results", "results `folder`; a new dated subfolder is made")
	stores := fs.String("stores", filepath.Join(os.TempDir(), "pvs-scale"), "`folder` for the map, the RAW and the stores (large; not committed)")
	reuse := fs.Bool("reuse", false, "reuse the stores and bake figures of an earlier run into --stores")
	tifStore := fs.String("tif-store", "", "compare with this `store` of the GeoTIFF window (e.g. bench scale's) instead of baking it; its map, window, view distance, budget, encoding and model must match")
	if _, err := cli.Parse(fs, args); err != nil {
		return err
	}
	if *size < 64 || *size > 4097 || *observers < 1 || *pairs < 1 || *maxSteps < 0 {
		return cli.Usagef("--size from 64 to 4097, --observers ≥ 1, --pairs ≥ 1, --max-steps ≥ 0")
	}
	model, err := horizon.ParseLOS(*los)
	if err != nil {
		return cli.Usagef("--los %s: want conservative or sector", *los)
	}
	if err := os.MkdirAll(*stores, 0o755); err != nil {
		return err
	}
	bin, err := buildPvsbake(*stores, stderr)
	if err != nil {
		return err
	}
	dem, err := scaleMap(*stores, *hgt, stderr)
	if err != nil {
		return err
	}
	n := *size
	off := (4097 - n) / 2
	win := heightmap.Window{Col: scaleCorner[0] + off, Row: scaleCorner[1] + off, Width: n, Height: n}
	tif, err := heightmap.Load(dem, heightmap.Options{Window: win})
	if err != nil {
		return err
	}
	res := rawResult{Size: n}
	rawPath := filepath.Join(*stores, fmt.Sprintf("raw-%d.raw", n))
	var rangeFlag string
	if res.HeightRange, res.MaxDzM, rangeFlag, err = writeUnityRaw(rawPath, tif); err != nil {
		return err
	}
	lo, hi := res.HeightRange[0], res.HeightRange[1]
	res.StepM = (hi - lo) / 65535
	common := []string{"--max-distance", strconv.FormatFloat(*maxDist, 'f', -1, 64), "--budget", *budget, "--encoding", *encoding, "--los", model.String(), "--progress", "1m"}
	winFlag := fmt.Sprintf("%d,%d,%d,%d", win.Col, win.Row, n, n)
	bakes := [2][]string{
		append([]string{"bake", "--yes", dem, "--window", winFlag}, common...),
		append([]string{"bake", "--yes", rawPath, "--cell-size", strconv.FormatFloat(tif.Dx, 'f', -1, 64), "--height-range", rangeFlag}, common...),
	}
	var paths [2]string
	rec := filepath.Join(*stores, fmt.Sprintf("raw-%d.json", n))
	var old rawResult
	if b, err := os.ReadFile(rec); *reuse && err == nil && json.Unmarshal(b, &old) == nil {
		res.Bake = old.Bake
	}
	for k, name := range []string{"tif", "raw"} {
		paths[k] = filepath.Join(*stores, fmt.Sprintf("raw-%d-%s.pvs", n, name))
		if k == 0 && *tifStore != "" {
			if err := checkTifStore(*tifStore, dem, win, *maxDist, *budget, *encoding, model); err != nil {
				return fmt.Errorf("--tif-store %s: %w", *tifStore, err)
			}
			paths[0], res.Bake[0] = *tifStore, shardRow{}
			fmt.Fprintf(stdout, "tif: using %s\n", *tifStore)
			continue
		}
		if _, err := os.Stat(paths[k]); *reuse && err == nil && res.Bake[k].Wall > 0 {
			fmt.Fprintf(stdout, "%s: reusing %s\n", name, paths[k])
			continue
		}
		args := append(bakes[k], "-o", paths[k])
		fmt.Fprintf(stdout, "%s: pvsbake %s\n", name, strings.Join(args, " "))
		row, so, err := timed(bin, args, stderr)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, so)
		res.Bake[k] = row
	}
	if b, err := json.Marshal(res); err == nil {
		os.WriteFile(rec, b, 0o644)
	}
	if err := compareRawStores(&res, paths, *observers, *pairs, *maxSteps, *seed); err != nil {
		return err
	}
	dir, err := newResultsSubdir(*out, "raw")
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "raw.json"), b, 0o644); err != nil {
		return err
	}
	bakeText := fmt.Sprintf("bakes %.0f s GeoTIFF, %.0f s RAW (CPU %.0f, %.0f s; peak RSS %.0f, %.0f MB)",
		res.Bake[0].Wall.Seconds(), res.Bake[1].Wall.Seconds(), res.Bake[0].CPU.Seconds(), res.Bake[1].CPU.Seconds(),
		float64(res.Bake[0].PeakRSS)/1e6, float64(res.Bake[1].PeakRSS)/1e6)
	if *tifStore != "" {
		bakeText = fmt.Sprintf("GeoTIFF store %s (baked earlier, not timed here); RAW bake %.0f s (CPU %.0f s, peak RSS %.0f MB)",
			filepath.Base(*tifStore), res.Bake[1].Wall.Seconds(), res.Bake[1].CPU.Seconds(), float64(res.Bake[1].PeakRSS)/1e6)
	}
	summary := fmt.Sprintf("%d² window, heights %g–%g m in 16-bit steps of %.2f cm (largest difference %.2f cm); "+
		"%s; "+
		"%d of %d observer-cell pairs judged otherwise (%d observers); "+
		"%d of %d frontier sets the same size, %.0f against %.0f mean points (RAW, GeoTIFF); "+
		"%d of %d RAW-store frontier cell pairs visible in the GeoTIFF store\n",
		n, lo, hi, 100*res.StepM, 100*res.MaxDzM, bakeText,
		res.PairsDiffer, res.CellPairs, res.Observers, res.SameSize, res.Pairs, res.PointsRAW, res.PointsTIF,
		res.FrontierSeen, res.FrontierChecks)
	md := "# The scale map as a game engine's RAW\n\n`go run ./bench raw " + strings.Join(args, " ") + "`\n\n" + summary +
		"\nThe RAW is the window's heights as Unity's Terrain → Export Raw writes them (16-bit little-endian, samples 0–65535 over the height range); it is baked with `--cell-size` and `--height-range`, the GeoTIFF window with the same parameters. Observer-cell pairs: sampled observers' PVSs compared cell by cell. Frontier sets: hierarchical, lossy, `--max-steps`, on pairs mutually invisible in the GeoTIFF store; then cells of the RAW store's frontier sets looked up in the GeoTIFF store's PVSs both ways.\n"
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, summary)
	fmt.Fprintf(stdout, "wrote %s\n", dir)
	return nil
}

// checkTifStore returns an error unless the store at path was baked from
// window win of a map named as dem (the same file name; its folder may
// differ) with the view distance in metres, budget and encoding the RAW is
// baked with, under the visibility model los (any version: a store from
// before models were versioned is read as its model's).
func checkTifStore(path, dem string, win heightmap.Window, maxDistM float64, budget, encoding string, los horizon.LOS) error {
	s, err := compress.Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	b, err := compress.ParseBytes(budget)
	if err != nil {
		return err
	}
	h := s.Header
	l, _, err := h.Params.Model()
	if err != nil {
		return err
	}
	switch {
	case filepath.Base(h.Source) != filepath.Base(dem):
		return fmt.Errorf("baked from %s, want %s", h.Source, filepath.Base(dem))
	case h.Window != [4]int{win.Col, win.Row, win.Width, win.Height}:
		return fmt.Errorf("window %v, want %v", h.Window, [4]int{win.Col, win.Row, win.Width, win.Height})
	case h.Params.MaxDistanceM != maxDistM:
		return fmt.Errorf("view distance %g m, want %g m", h.Params.MaxDistanceM, maxDistM)
	case h.BudgetBytes != b || (h.Encoding == compress.EncodingCoded) != (encoding == "coded"):
		return fmt.Errorf("budget %d bytes, encoding %s; want %d bytes, %s", h.BudgetBytes, h.Encoding, b, encoding)
	case l != los:
		return fmt.Errorf("visibility model %s, want %s (--los)", l, los)
	}
	return nil
}

// compareRawStores fills res's comparison of the stores at paths (GeoTIFF,
// RAW).
func compareRawStores(res *rawResult, paths [2]string, observers, pairs, maxSteps int, seed uint64) error {
	var st [2]*compress.Store
	var gr [2]*grow.Grower
	for k, p := range paths {
		s, err := compress.Open(p)
		if err != nil {
			return err
		}
		defer s.Close()
		if gr[k], err = grow.New(s.Hierarchy, s.Elev, s.Nodata); err != nil {
			return err
		}
		st[k] = s
	}
	g := st[0].Hierarchy.G
	rng := rand.New(rand.NewPCG(seed, uint64(res.Size)))
	var w quadpvs.Walker
	var b0, b1 horizon.Bitmap
	for range observers {
		i := st[0].Hierarchy.QuadIndex(0, rng.IntN(g.Width), rng.IntN(g.Height))
		t0, t1 := st[0].Hierarchy.PVS(i), st[1].Hierarchy.PVS(i)
		b0, b1 = w.Bitmap(g, &t0, b0), w.Bitmap(g, &t1, b1)
		for j := range b0.Words {
			res.PairsDiffer += int64(bits.OnesCount64(b0.Words[j] ^ b1.Words[j]))
		}
		res.CellPairs += int64(g.Width) * int64(g.Height)
	}
	res.Observers = observers
	var sc grow.Scratch
	var r0, r1 grow.Result
	opt := grow.Options{Method: grow.Hierarchical, Merge: quadpvs.Lossy, MaxSteps: maxSteps}
	var pts0, pts1 float64
	for tries := 0; res.Pairs < pairs; tries++ {
		if tries > 1000*pairs {
			return fmt.Errorf("too few mutually invisible pairs")
		}
		a := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		b := [2]int{rng.IntN(g.Width), rng.IntN(g.Height)}
		if vis, err := gr[0].MutuallyVisible(a, b); err != nil || vis {
			continue
		}
		if err := gr[0].Grow(a, b, opt, &sc, &r0); err != nil {
			return err
		}
		if err := gr[1].Grow(a, b, opt, &sc, &r1); err != nil {
			return err
		}
		res.Pairs++
		pts0 += float64(r0.A.Points + r0.B.Points)
		pts1 += float64(r1.A.Points + r1.B.Points)
		if r0.A.Points == r1.A.Points && r0.B.Points == r1.B.Points {
			res.SameSize++
		}
		if r1.MutuallyVisible {
			continue
		}
		for range 10 {
			a, b := frontierCell(rng, &r1.A, g.Width, g.Height), frontierCell(rng, &r1.B, g.Width, g.Height)
			for _, ab := range [][2][2]int{{a, b}, {b, a}} {
				see, err := gr[0].MaySee(ab[0], ab[1])
				if err != nil {
					return err
				}
				res.FrontierChecks++
				if see {
					res.FrontierSeen++
				}
			}
		}
	}
	res.PointsTIF, res.PointsRAW = pts0/float64(res.Pairs), pts1/float64(res.Pairs)
	for _, s := range st {
		if err := s.Err(); err != nil {
			return fmt.Errorf("a tree failed its checks: %w", err)
		}
	}
	return nil
}

// frontierCell returns a random cell of frontier f (of a w×h grid).
func frontierCell(rng *rand.Rand, f *grow.Frontier, w, h int) [2]int {
	for {
		q := f.Quads[rng.IntN(len(f.Quads))]
		c := [2]int{q.Col() + rng.IntN(q.Size()), q.Row() + rng.IntN(q.Size())}
		if c[0] < w && c[1] < h {
			return c
		}
	}
}

// writeUnityRaw writes g's heights to path as Unity's Terrain → Export Raw
// writes a heightmap: 16-bit little-endian samples, row-major, 0–65535
// over the height range (g's lowest and highest heights rounded out to
// whole metres). It returns the range, the largest difference in metres
// between g and the RAW read back (heightmap.Load with --cell-size and
// --height-range) and pvsbake's --height-range flag for it.
func writeUnityRaw(path string, g *heightmap.Grid) (rng [2]float64, maxDzM float64, rangeFlag string, err error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, z := range g.Elev {
		lo, hi = min(lo, float64(z)), max(hi, float64(z))
	}
	lo, hi = math.Floor(lo), math.Ceil(hi)
	step := (hi - lo) / 65535
	buf := make([]byte, 2*len(g.Elev))
	for i, z := range g.Elev {
		binary.LittleEndian.PutUint16(buf[2*i:], uint16(math.Round((float64(z)-lo)/step)))
	}
	if err := os.WriteFile(path+".tmp", buf, 0o644); err != nil {
		return rng, 0, "", err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return rng, 0, "", err
	}
	raw, err := heightmap.Load(path, heightmap.Options{CellSize: g.Dx, HeightRange: [2]float64{lo, hi}})
	if err != nil {
		return rng, 0, "", err
	}
	for i := range g.Elev {
		maxDzM = max(maxDzM, math.Abs(float64(raw.Elev[i]-g.Elev[i])))
	}
	return [2]float64{lo, hi}, maxDzM, strconv.FormatFloat(lo, 'f', -1, 64) + "," + strconv.FormatFloat(hi, 'f', -1, 64), nil
}
