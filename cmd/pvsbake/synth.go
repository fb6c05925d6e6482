package main

import (
	"fmt"
	"io"

	"frontiersets/heightmap"
	"frontiersets/internal/cli"
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
