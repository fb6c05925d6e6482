// Command frontierq answers frontier-set queries on a baked PVS store
// (thesis §3.5): for two players' cells, two regions such that no point of
// one sees any point of the other.
//
//	frontierq STORE --a col,row --b col,row [--method hierarchical|simple] [--merge lossless|lossy]
//	          [--grow-larger] [--queue fifo|ground] [--neighbours 4|8] [--json] [--png out.png] [--mask out.tif]
//	frontierq verify STORE --dem DEM [--pairs 100] [--sample 64] [--seed 1]
//	frontierq sim STORE [--bots 16] [--minutes 5] …
//	frontierq serve STORE [--addr 127.0.0.1:8080]
//
// Exit status: 0 on success (mutually visible points included), 1 on a
// failure or a verification that found violations, 2 on a usage error.
package main

import (
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/internal/render"
	"github.com/frontiersets/frontiersets/quadpvs"
)

func main() {
	cli.IgnoreFileSizeLimit()
	os.Exit(cli.Report("frontierq", run(os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// run executes one frontierq command; errors are returned for main to print.
func run(args []string, stdout, stderr io.Writer) (err error) {
	// A store file cut or changed while a command reads it in place is
	// an error wrapping fault.ErrFault, not the process's end (SIGBUS);
	// the goroutines a command starts arm their own.
	defer fault.Recover(&err, fault.Arm())
	return cli.Execute(newRoot(stdout, stderr), args, stdout, stderr)
}

// newRoot builds the command tree; output goes to stdout and stderr.
func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := queryCmd(stdout, stderr)
	root.AddCommand(verifyCmd(stdout, stderr), savingsCmd(stdout, stderr), simCmd(stdout, stderr), serveCmd(stdout, stderr), pvsCmd(stdout, stderr), cumulativeCmd(stdout, stderr))
	return root
}

// growFlags are the options of grow.Options.
type growFlags struct {
	method, merge, queue string
	larger               bool
	neighbours, maxSteps int
}

func (f *growFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.method, "method", "hierarchical", "growing `method`: hierarchical (§3.5) or simple (point by point, §4.1)")
	fs.StringVar(&f.merge, "merge", "lossless", "PVS `merge`: lossless or lossy (§3.3)")
	fs.StringVar(&f.queue, "queue", "fifo", "queue `order`: fifo or ground (lowest ground first)")
	fs.BoolVar(&f.larger, "grow-larger", false, "step 3: keep growing the frontier that can, without merging")
	fs.IntVar(&f.neighbours, "neighbours", 4, "quad adjacency: 4 or 8 `neighbours`")
	fs.IntVar(&f.maxSteps, "max-steps", grow.DefaultMaxSteps, "stop growing after this many quads considered and keep the (smaller, valid) frontier set grown so far, saying so (--json: \"truncated\": true); bounds the worst case to milliseconds (0: no bound, as the thesis grows)")
}

func (f *growFlags) options() (grow.Options, error) {
	var o grow.Options
	switch f.method {
	case "hierarchical":
	case "simple":
		o.Method = grow.Simple
	default:
		return o, cli.Usagef("--method %q: want hierarchical or simple", f.method)
	}
	switch f.merge {
	case "lossless":
	case "lossy":
		o.Merge = quadpvs.Lossy
	default:
		return o, cli.Usagef("--merge %q: want lossless or lossy", f.merge)
	}
	switch f.queue {
	case "fifo":
	case "ground":
		o.Order = grow.Ground
	default:
		return o, cli.Usagef("--queue %q: want fifo or ground", f.queue)
	}
	if f.neighbours != 4 && f.neighbours != 8 {
		return o, cli.Usagef("--neighbours %d: want 4 or 8", f.neighbours)
	}
	if f.maxSteps < 0 || f.maxSteps > 1e9 {
		return o, cli.Usagef("--max-steps %d: want 0 (no bound) to 1000000000", f.maxSteps)
	}
	o.Neighbours, o.GrowLarger, o.MaxSteps = f.neighbours, f.larger, f.maxSteps
	if f.maxSteps == 0 {
		o.MaxSteps = grow.Unbounded
	}
	return o, nil
}

// frontierJSON is one frontier in --json output: its player's cell (with map
// coordinates, lon/lat and elevation where the store has them), its size
// and its quads.
type frontierJSON struct {
	cli.Location
	Points int      `json:"points"`
	Quads  [][3]int `json:"quads"` // [col,row,size]: top-left cell and side in cells
}

type resultJSON struct {
	MutuallyVisible bool         `json:"mutually_visible"`
	A               frontierJSON `json:"a"`
	B               frontierJSON `json:"b"`
	ElapsedMS       float64      `json:"elapsed_ms"`
	Truncated       bool         `json:"truncated,omitempty"` // --max-steps stopped the growth
	Wrote           []string     `json:"wrote,omitempty"`     // files written (--png, --mask, --geojson)
}

// storeRef is a store's georeferencing.
func storeRef(s *compress.Store) heightmap.Georef {
	return s.Header.Georef()
}

func toJSON(s *compress.Store, f *grow.Frontier) frontierJSON {
	return frontierJSON{Location: cli.Locate(storeRef(s), s.Width, s.Elev, f.Col, f.Row), Points: f.Points, Quads: quadsJSON(f)}
}

// quadsJSON lists f's quads as [col,row,size] in cells.
func quadsJSON(f *grow.Frontier) [][3]int {
	out := make([][3]int, 0, len(f.Quads))
	for _, q := range f.Quads {
		out = append(out, [3]int{q.Col(), q.Row(), q.Size()})
	}
	return out
}

// frontierStyle colours frontierq --mask: A blue, B red, elsewhere no data.
var frontierStyle = &gdal.MaskStyle{Colors: map[uint8]color.RGBA{1: {30, 90, 230, 255}, 2: {220, 40, 40, 255}}, HasNodata: true}

func queryCmd(stdout, stderr io.Writer) *cobra.Command {
	c := cli.NewRoot("frontierq", "Answer frontier-set queries on a baked PVS store",
		"frontierq answers, for two players' cells on a store baked by pvsbake, a frontier\n"+
			"set (thesis §3.5): two regions, one around each player, such that no point of\n"+
			"one sees any point of the other. While both players stay inside, their peers\n"+
			"need not exchange updates.")
	c.Use = "frontierq STORE --a col,row --b col,row"
	c.Example = `  frontierq mw.pvs --a 40,128 --b 215,128
  frontierq mw.pvs --a-lonlat -71.35,44.27 --b-lonlat -71.22,44.30 --merge lossy --geojson f.geojson
  frontierq mw.pvs --a 40,128 --b 215,128 --max-steps 125 --json`
	c.Args = cli.Args("STORE")
	fs := c.Flags()
	var gf growFlags
	gf.register(fs)
	var aFlag, bFlag cli.PointFlags
	aFlag.Register(fs, "a", "player A's")
	bFlag.Register(fs, "b", "player B's")
	asJSON := fs.Bool("json", false, "print one JSON object")
	pngOut := fs.String("png", "", "draw the terrain's hillshade with both frontiers (A blue, B red) to this PNG `path`")
	maskOut := fs.String("mask", "", "write a byte GeoTIFF `path` on the DEM's grid: 1 for A's frontier, 2 for B's, 0 (no data) elsewhere, with a colour table")
	geoOut := fs.String("geojson", "", "write both frontiers as polygons in the DEM's CRS (a game heightmap's: in the engine's world coordinates, --engine) to this `path` (.geojson, or .gpkg for a GeoPackage), fields value (1 A, 2 B) and side")
	c.RunE = func(_ *cobra.Command, pos []string) (err error) {
		if !aFlag.Given() || !bFlag.Given() {
			return cli.Usagef("frontierq needs both players: %s, and %s", aFlag.Flags(), bFlag.Flags())
		}
		opt, err := gf.options()
		if err != nil {
			return err
		}
		if err := cli.CheckOutputs([]cli.File{{Flag: "STORE", Path: pos[0]}},
			[]cli.File{{Flag: "--png", Path: *pngOut}, {Flag: "--mask", Path: *maskOut}, {Flag: "--geojson", Path: *geoOut}}); err != nil {
			return err
		}
		s, gr, err := bake.OpenGrower(pos[0])
		if err != nil {
			return err
		}
		ac, ar, err := aFlag.Cell(storeRef(s), s.Width, s.Height)
		if err != nil {
			return err
		}
		bc, br, err := bFlag.Cell(storeRef(s), s.Width, s.Height)
		if err != nil {
			return err
		}
		var res grow.Result
		if err := gr.Grow([2]int{ac, ar}, [2]int{bc, br}, opt, &grow.Scratch{}, &res); err != nil {
			return err
		}
		var wrote []string
		written := func(path, what string) {
			wrote = append(wrote, path)
			if !*asJSON {
				fmt.Fprintf(stdout, "wrote %s: %s\n", path, what)
			}
		}
		if *asJSON {
			defer func() {
				if err == nil {
					err = json.NewEncoder(stdout).Encode(resultJSON{res.MutuallyVisible, toJSON(s, &res.A), toJSON(s, &res.B), float64(res.Elapsed.Microseconds()) / 1000, res.Truncated, wrote})
				}
			}()
		} else if res.MutuallyVisible {
			fmt.Fprintf(stdout, "A (%d,%d) and B (%d,%d) see each other: no frontier set (%.3f ms)\n", ac, ar, bc, br, float64(res.Elapsed.Microseconds())/1000)
		} else {
			stopped := ""
			if res.Truncated {
				stopped = fmt.Sprintf(" (stopped after %d steps: --max-steps 0 grows on)", res.Steps)
			}
			fmt.Fprintf(stdout, "frontier set of A (%d,%d) and B (%d,%d), %s/%s: A %d points in %d quads, B %d points in %d quads, %d points in all, %.3f ms%s\n",
				ac, ar, bc, br, opt.Method, opt.Merge, res.A.Points, len(res.A.Quads), res.B.Points, len(res.B.Quads), res.A.Points+res.B.Points,
				float64(res.Elapsed.Microseconds())/1000, stopped)
		}
		if *maskOut != "" {
			mask := make([]byte, s.Width*s.Height)
			paint(&res, s.Width, func(i int, v byte) { mask[i] = v })
			if err := gdal.WriteMask(*maskOut, storeRef(s), s.Width, s.Height, mask, frontierStyle); err != nil {
				return err
			}
			written(*maskOut, "the frontiers as a byte GeoTIFF (1 A, 2 B)")
		}
		if *geoOut != "" {
			n, err := writeRegions(*geoOut, s, &res)
			if err != nil {
				return err
			}
			written(*geoOut, fmt.Sprintf("%d polygons in %s", n, crsLabel(s)))
		}
		if *pngOut != "" {
			img, err := frontierPicture(s, &res, opt)
			if err != nil {
				return fmt.Errorf("--png %s: %w", *pngOut, err)
			}
			if err := render.WritePNG(*pngOut, img); err != nil {
				return fmt.Errorf("write %s: %w", *pngOut, err)
			}
			written(*pngOut, fmt.Sprintf("a %d×%d picture", img.Bounds().Dx(), img.Bounds().Dy()))
		}
		return nil
	}
	return c
}

// writeRegions writes res's frontiers to path as polygons in the store's
// CRS, or in the game engine's world coordinates for a store with an
// engine frame and no georeferencing (GeoJSON, or a GeoPackage for .gpkg;
// fields value, 1 A and 2 B, and side) and returns how many it wrote.
func writeRegions(path string, s *compress.Store, res *grow.Result) (int, error) {
	mask := make([]byte, s.Width*s.Height)
	paint(res, s.Width, func(i int, v byte) { mask[i] = v })
	return gdal.WriteRegions(path, regionsRef(s), s.Width, s.Height, mask, map[byte]string{1: "A", 2: "B"})
}

// regionsRef is the georeferencing writeRegions draws in: the store's, or,
// for a store with an engine frame and no geotransform, one that maps
// cells to world positions (cell (c, r)'s square from (c−½, r−½)).
func regionsRef(s *compress.Store) heightmap.Georef {
	f := s.Engine
	if s.HasGeoTransform || f == nil {
		return storeRef(s)
	}
	a, b := f.World(-0.5, -0.5)
	return heightmap.Georef{GeoTransform: [6]float64{a, f.Step[0], 0, b, 0, f.Step[1]}, HasGeoTransform: true}
}

// frontierPicture draws res on the store's hillshade at metric aspect (at
// least 2 pixels per cell): A's frontier blue, B's red, both players
// marked, with a legend and a scale bar. Errors: a grid too large to draw
// (render.Metric).
func frontierPicture(s *compress.Store, res *grow.Result, opt grow.Options) (*image.RGBA, error) {
	img := render.Hillshade(s.Elev, s.Width, s.Height, s.DxM, s.DyM)
	blue, red := color.RGBA{30, 90, 230, 255}, color.RGBA{220, 40, 40, 255}
	paint(res, s.Width, func(i int, v byte) {
		c := blue
		if v == 2 {
			c = red
		}
		render.Tint(img, i%s.Width, i/s.Width, c, 0.5)
	})
	big, sx, sy, err := render.Metric(img, s.DxM, s.DyM, 2)
	if err != nil {
		return nil, err
	}
	ac, ar, bc, br := res.A.Col, res.A.Row, res.B.Col, res.B.Row
	render.Marker(big, int((float64(ac)+0.5)*sx), int((float64(ar)+0.5)*sy), 4, blue)
	render.Marker(big, int((float64(bc)+0.5)*sx), int((float64(br)+0.5)*sy), 4, red)
	items := []render.LegendItem{
		{Swatch: blue, Label: fmt.Sprintf("A (%d,%d) and its frontier: %d cells", ac, ar, res.A.Points)},
		{Swatch: red, Label: fmt.Sprintf("B (%d,%d) and its frontier: %d cells", bc, br, res.B.Points)},
	}
	if res.MutuallyVisible {
		items = []render.LegendItem{{Swatch: blue, Label: fmt.Sprintf("A (%d,%d)", ac, ar)},
			{Swatch: red, Label: fmt.Sprintf("B (%d,%d): A and B see each other, no frontier", bc, br)}}
	}
	items = append(items, render.LegendItem{Label: fmt.Sprintf("%s/%s, cells %.3g × %.3g m", opt.Method, opt.Merge, s.DxM, s.DyM)})
	return render.WithLegend(big, items, s.DxM/sx), nil
}

// crsLabel names a store's CRS for messages.
func crsLabel(s *compress.Store) string {
	switch {
	case !s.HasGeoTransform && s.Engine != nil:
		return fmt.Sprintf("%s world coordinates (%s, %s)", s.Engine.Engine, s.Engine.Axes[0], s.Engine.Axes[1])
	case !s.HasGeoTransform:
		return "cell coordinates (the store has no georeferencing)"
	case s.CRSName != "":
		return s.CRSName
	}
	return "the DEM's CRS"
}

// paint calls set(i, 1) for every cell of A's frontier and set(i, 2) for
// B's, i = row*width + col.
func paint(res *grow.Result, width int, set func(i int, v byte)) {
	for v, f := range []*grow.Frontier{&res.A, &res.B} {
		for _, c := range f.AppendCells(nil) {
			set(c[1]*width+c[0], byte(v+1))
		}
	}
}
