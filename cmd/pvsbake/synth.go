package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/internal/cli"
)

// synthEPSG is the CRS synthetic terrains are placed in: UTM zone 19N
// (metres), so that every tool reads their spacing without --cell-size.
const synthEPSG = 32619

func synthCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "synth --kind hills|urban -o OUT.tif", Short: "Write a deterministic synthetic terrain (hills or urban) as a GeoTIFF", Args: cli.Args()}
	fs := c.Flags()
	kind := fs.String("kind", heightmap.Hills, "terrain `kind`: hills or urban")
	size := fs.Int("size", 256, "width and height in `cells`")
	cell := fs.Float64("cell-size", 10, "cell size in `metres`")
	relief := fs.Float64("relief", 300, "height range of the hills, or the tallest building, in `metres`")
	seed := fs.Uint64("seed", 1, "random `seed`; the same seed gives the same terrain")
	asJSON := cli.JSONFlag(fs, "what was written")
	out := fs.StringP("output", "o", "", "output GeoTIFF `path`")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if *out == "" {
			return cli.Usagef("synth needs -o OUT.tif")
		}
		if *size < 1 || *size > maxSide {
			return cli.Usagef("--size %d: want 1 to %d cells (the largest terrain a store holds)", *size, maxSide)
		}
		if !(*cell >= 1e-3 && *cell <= 1e6) || !(*relief > 0 && *relief <= 1e5) {
			return cli.Usagef("--cell-size %.4g, --relief %.4g: want 0.001 to 1000000 m and up to 100000 m", *cell, *relief)
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
		if g.CRS, err = gdal.CRSFromEPSG(synthEPSG); err != nil {
			return err
		}
		// Place the terrain in the White Mountains' UTM zone, north-up.
		g.GeoTransform = [6]float64{300000, *cell, 0, 4930000, 0, -*cell}
		g.HasGeoTransform = true
		if err := gdal.WriteElevation(*out, g); err != nil {
			return err
		}
		lo, hi := g.MinMax()
		if *asJSON {
			return cli.WriteJSON(stdout, map[string]any{"path": *out, "kind": *kind, "width": g.Width, "height": g.Height,
				"dx_m": *cell, "dy_m": *cell, "min_m": round(lo, 3), "max_m": round(hi, 3), "seed": *seed})
		}
		fmt.Fprintf(stdout, "wrote %s: %s terrain, %d×%d cells of %g m, heights %.1f–%.1f m, seed %d\n", *out, *kind, g.Width, g.Height, *cell, lo, hi, *seed)
		return nil
	}
	return c
}

// maxSide is the longest side, in cells, of a terrain a store holds
// (quadpvs.NewGeometry).
const maxSide = 1 << 15
