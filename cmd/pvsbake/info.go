package main

import (
	"encoding/json"
	"io"
	"math"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/internal/cli"
)

// demInfo is the JSON object `pvsbake info` prints.
type demInfo struct {
	Path    string  `json:"path"`
	Driver  string  `json:"driver"`
	Width   int     `json:"width"`  // cells
	Height  int     `json:"height"` // cells
	Window  [4]int  `json:"window"` // col, row, width, height in the source raster, cells (as in pvsbake stat)
	DxM     float64 `json:"dx_m"`   // metres between columns
	DyM     float64 `json:"dy_m"`   // metres between rows
	Spacing string  `json:"spacing"`
	CRS     string  `json:"crs"` // "EPSG:4326", a CRS name, or "" when none
	MinM    float64 `json:"min_m"`
	MaxM    float64 `json:"max_m"`
	Nodata  int     `json:"nodata"` // cells without data
	ZScale  float64 `json:"z_scale"`
}

func infoCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "info DEM", Short: "Print a DEM's size, cell spacing (metres), CRS, height range and nodata count as JSON", Args: cli.Args("DEM")}
	c.Example = `  pvsbake info data/mount-washington.tif
  pvsbake info terrain.r16 --cell-size 1 --height-range -256,256`
	fs := c.Flags()
	dem := cli.DEMFlags{AssumeScales: true}
	dem.Register(fs)
	fs.Bool("json", true, "print JSON (always; accepted like every command's --json)")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		g, err := dem.LoadDEM("pvsbake", pos[0], stderr)
		if err != nil {
			return err
		}
		lo, hi := g.MinMax()
		out := demInfo{
			Path: pos[0], Driver: g.Driver, Width: g.Width, Height: g.Height, Window: [4]int{g.Window.Col, g.Window.Row, g.Window.Width, g.Window.Height},
			DxM: round(g.Dx, 6), DyM: round(g.Dy, 6), Spacing: string(g.Spacing), CRS: g.CRSName,
			MinM: round(lo, 3), MaxM: round(hi, 3), Nodata: g.NodataCount, ZScale: g.ZScale,
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return c
}

// round rounds v to d decimals, for readable JSON.
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}
