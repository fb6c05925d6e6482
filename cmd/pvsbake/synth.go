package main

import (
	"fmt"
	"io"
	"math"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// synthEPSG is the CRS synthetic terrains are placed in: UTM zone 19N
// (metres), so that every tool reads their spacing without --cell-size.
const synthEPSG = 32619

func runSynth(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("synth", "pvsbake synth --kind hills|urban [--size N] [--cell-size M] [--relief M] [--seed S] -o OUT.tif", stderr)
	kind := fs.String("kind", heightmap.Hills, "terrain `kind`: hills or urban")
	size := fs.Int("size", 256, "width and height in `cells`")
	cell := fs.Float64("cell-size", 10, "cell size in `metres`")
	relief := fs.Float64("relief", 300, "height range of the hills, or the tallest building, in `metres`")
	seed := fs.Uint64("seed", 1, "random `seed`; the same seed gives the same terrain")
	out := fs.String("o", "", "output GeoTIFF `path`")
	pos, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *out == "" {
		fs.Usage()
		return cli.Usagef("synth takes no arguments and needs -o OUT.tif")
	}
	if *size < 1 || *size > maxSide {
		return cli.Usagef("--size %d: want 1 to %d cells (the largest terrain a store holds)", *size, maxSide)
	}
	if math.IsInf(*cell, 0) || math.IsInf(*relief, 0) {
		return cli.Usagef("--cell-size %g, --relief %g: want finite lengths", *cell, *relief)
	}
	if need, avail := cli.LoadBytes(*size, *size, 0, 0), cli.AvailableMemory(); avail > 0 && need > avail/10*9 {
		w, _ := cli.FitWindow(cli.LoadBytes, *size, *size, 0, 0, avail/10*9)
		return fmt.Errorf("a %d² terrain needs about %s of memory and %s is available; give --size %d or less",
			*size, compress.FormatBytes(need), compress.FormatBytes(avail), w)
	}
	g, err := heightmap.Synthetic(heightmap.SynthOptions{Kind: *kind, Width: *size, Height: *size, CellSize: *cell, Relief: *relief, Seed: *seed})
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if g.CRS, err = heightmap.CRSFromEPSG(synthEPSG); err != nil {
		return err
	}
	// Place the terrain in the White Mountains' UTM zone, north-up.
	g.GeoTransform = [6]float64{300000, *cell, 0, 4930000, 0, -*cell}
	g.HasGeoTransform = true
	if err := heightmap.WriteElevation(*out, g); err != nil {
		return err
	}
	lo, hi := g.MinMax()
	fmt.Fprintf(stdout, "wrote %s: %s terrain, %d×%d cells of %g m, heights %.1f–%.1f m, seed %d\n", *out, *kind, g.Width, g.Height, *cell, lo, hi, *seed)
	return nil
}

// maxSide is the longest side, in cells, of a terrain a store holds
// (quadpvs.NewGeometry).
const maxSide = 1 << 15
