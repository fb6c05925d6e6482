package main

import (
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/atomicfile"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/render"
)

// viewshedStyle colours the viewshed GeoTIFF: visible green, hidden grey.
var viewshedStyle = &gdal.MaskStyle{Colors: map[uint8]color.RGBA{0: {70, 70, 70, 255}, 255: {60, 190, 70, 255}}, Nodata: viewshedNodata, HasNodata: true}

// viewshedNodata marks the cells the DEM has no data for in a viewshed
// GeoTIFF (its nodata value, drawn transparent).
const viewshedNodata = 1

// viewshedCmd is `pvsbake viewshed`, which writes one observer's visibility (§3.1) as a byte GeoTIFF on
// the DEM's (window's) grid: 255 visible, 0 hidden, like gdal_viewshed.
// --at is in cells of the loaded grid (of the window when one is given).
func viewshedCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "viewshed DEM --at col,row -o OUT.tif", Short: "Write one observer's visibility as a byte GeoTIFF (255 visible, 0 hidden)", Args: cli.Args("DEM")}
	fs := c.Flags()
	var dem cli.DEMFlags
	var vis cli.VisFlags
	dem.Register(fs)
	vis.Register(fs)
	var at cli.PointFlags
	at.Register(fs, "at", "the observer's")
	var engine cli.EngineFlags
	engine.Register(fs, "place the heightmap in a game engine's world, for --at-world")
	out := fs.StringP("output", "o", "", "output byte GeoTIFF `path` (255 visible, 0 hidden, 1 no data: the file's nodata value)")
	pngOut := fs.String("png", "", "also draw a hillshade with hidden cells tinted to this PNG `path`")
	asJSON := cli.JSONFlag(fs, "the observer and what it sees")
	hzOut := fs.String("horizon", "", "also write the per-sector horizon (azimuth_rad, elevation_rad, distance_m) to this CSV `path`")
	c.RunE = func(_ *cobra.Command, pos []string) (err error) {
		if !at.Given() || *out == "" {
			return cli.Usagef("viewshed needs the observer (%s) and -o OUT.tif", at.Flags())
		}
		if err := cli.CheckOutputs([]cli.File{{Flag: "DEM", Path: pos[0]}},
			[]cli.File{{Flag: "-o", Path: *out}, {Flag: "--png", Path: *pngOut}, {Flag: "--horizon", Path: *hzOut}}); err != nil {
			return err
		}
		p, err := vis.Checked()
		if err != nil {
			return err
		}
		if err := engine.Checked(); err != nil {
			return err
		}
		if at.WorldGiven() && engine.Engine() == "" {
			return cli.Usagef("--at-world takes a world position: place the heightmap in the engine's world with --engine unity, unreal or godot (and --engine-origin, --engine-flip as for bake)")
		}
		dem.Need = func(w, h int, dx, dy float64) int64 {
			return cli.LoadBytes(w, h, dx, dy) + horizon.TableBytes(w, h, dx, dy, p) + 2*int64(w)*int64(h)
		}
		g, err := dem.LoadDEM("pvsbake", pos[0], stderr)
		if err != nil {
			return err
		}
		if err := engine.Place(g); err != nil {
			return err
		}
		col, row, err := at.Cell(g.Georef, g.Width, g.Height)
		if err != nil {
			return err
		}
		if err := cli.CheckStandable("observer", g, col, row); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		m, err := horizon.New(bake.Terrain(g), p)
		if err != nil {
			return err
		}
		wk := m.NewWorker()
		bm, err := wk.Viewshed(col, row, horizon.Bitmap{})
		if err != nil {
			return err
		}
		mask := make([]byte, g.Width*g.Height)
		for r := range g.Height {
			for c := range g.Width {
				switch {
				case g.IsNodata(r*g.Width + c):
					mask[r*g.Width+c] = viewshedNodata
				case bm.Visible(c, r):
					mask[r*g.Width+c] = 255
				}
			}
		}
		if err := gdal.WriteMask(*out, g.Georef, g.Width, g.Height, mask, viewshedStyle); err != nil {
			return err
		}
		n := bm.CountVisible()
		text := stdout // the lines --json replaces
		if *asJSON {
			text = io.Discard
			defer func() {
				if err == nil {
					err = cli.WriteJSON(stdout, viewshedJSON{Observer: cli.Locate(g.Georef, g.Width, g.Elev, col, row), Visible: n, Cells: len(mask), Path: *out, PNG: *pngOut, Horizon: *hzOut})
				}
			}()
		}
		fmt.Fprintf(text, "observer (%d,%d) sees %d of %d cells (%.1f%%); wrote %s\n", col, row, n, len(mask), 100*float64(n)/float64(len(mask)), *out)
		if *hzOut != "" {
			if err := writeHorizon(*hzOut, wk.Horizon(nil)); err != nil {
				return fmt.Errorf("write %s: %w", *hzOut, err)
			}
			fmt.Fprintf(text, "wrote %s\n", *hzOut)
		}
		if *pngOut != "" {
			img := render.Hillshade(g.Elev, g.Width, g.Height, g.Dx, g.Dy)
			hidden, eye := color.RGBA{30, 60, 200, 255}, color.RGBA{220, 30, 30, 255}
			for i, v := range mask {
				if v == 0 {
					render.Tint(img, i%g.Width, i/g.Width, hidden, 0.45)
				}
			}
			big, sx, sy, err := render.Metric(img, g.Dx, g.Dy, 2)
			if err != nil {
				return fmt.Errorf("--png %s: %w", *pngOut, err)
			}
			render.Marker(big, int((float64(col)+0.5)*sx), int((float64(row)+0.5)*sy), 4, eye)
			p := m.Params()
			items := []render.LegendItem{
				{Swatch: eye, Label: fmt.Sprintf("observer (%d,%d), eye %.3g m above the ground", col, row, p.ObserverHeight)},
				{Swatch: hidden, Label: fmt.Sprintf("hidden from it (target %.3g m tall): %.1f%% of cells", p.TargetHeight, 100-100*float64(n)/float64(len(mask)))},
				{Label: fmt.Sprintf("%d sectors, cells %.3g × %.3g m", p.Sectors, g.Dx, g.Dy)},
			}
			if err := render.WritePNG(*pngOut, render.WithLegend(big, items, g.Dx/sx)); err != nil {
				return fmt.Errorf("write %s: %w", *pngOut, err)
			}
			fmt.Fprintf(text, "wrote %s\n", *pngOut)
		}
		return nil
	}
	return c
}

// viewshedJSON is viewshed --json's report.
type viewshedJSON struct {
	Observer cli.Location `json:"observer"`
	Visible  int          `json:"visible_cells"`
	Cells    int          `json:"cells"`
	Path     string       `json:"path"`
	PNG      string       `json:"png,omitempty"`
	Horizon  string       `json:"horizon,omitempty"`
}

// writeHorizon writes one CSV row per sector, atomically: azimuth clockwise
// from grid north and horizon elevation angle in radians, distance to the
// horizon cell in metres.
func writeHorizon(path string, sectors []horizon.Sector) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write([]string{"azimuth_rad", "elevation_rad", "distance_m"})
		for _, s := range sectors {
			w.Write([]string{
				strconv.FormatFloat(s.Azimuth, 'f', 6, 64),
				strconv.FormatFloat(s.Elevation, 'f', 6, 64),
				strconv.FormatFloat(s.Distance, 'f', 2, 64),
			})
		}
		w.Flush()
		return w.Error()
	})
}
