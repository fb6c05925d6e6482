package main

import (
	"fmt"
	"image/color"
	"io"

	"github.com/spf13/cobra"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap/gdal"
	"github.com/frontiersets/frontiersets/horizon"
	"github.com/frontiersets/frontiersets/internal/bake"
	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/quadpvs"
)

// A cell's status in an exported PVS: the byte values of `frontierq pvs`'s
// GeoTIFF (visible and hidden as in `pvsbake viewshed`).
const (
	pvsHidden  = 0
	pvsUnknown = 128 // an Unknown leaf: reserved, no stored tree has one (the cap's dropped cells are Visible)
	pvsVisible = 255
)

// pvsStyle colours frontierq pvs's GeoTIFF as the viewer does.
var pvsStyle = &gdal.MaskStyle{Colors: map[uint8]color.RGBA{
	pvsHidden: {60, 60, 90, 255}, pvsUnknown: {240, 170, 20, 255}, pvsVisible: {40, 200, 60, 255}}}

// pvsCells fills dst (Width×Height bytes, row-major) with the PVS of cell
// (c, r) as the store holds it (pvsVisible, pvsUnknown, pvsHidden) or,
// with wk non-nil, the uncompressed per-point PVS recomputed by wk from
// the store's elevations and parameters (§3.1: visible or hidden only).
func pvsCells(s *compress.Store, wk *horizon.Worker, c, r int, dst []byte) error {
	if wk != nil {
		bm, err := wk.Viewshed(c, r, horizon.Bitmap{})
		if err != nil {
			return err
		}
		for y := range s.Height {
			for x := range s.Width {
				dst[y*s.Width+x] = pvsHidden
				if bm.Visible(x, y) {
					dst[y*s.Width+x] = pvsVisible
				}
			}
		}
		return nil
	}
	g := s.Hierarchy.G
	t := s.Hierarchy.PVS(s.Hierarchy.QuadIndex(0, c, r))
	if err := s.Hierarchy.Err(); err != nil {
		return err // a tree that failed its checks reads as all visible: say so, not what it reads as
	}
	for y := range s.Height {
		for x := range s.Width {
			switch t.CellStatus(g, x, y) {
			case quadpvs.Visible:
				dst[y*s.Width+x] = pvsVisible
			case quadpvs.Unknown:
				dst[y*s.Width+x] = pvsUnknown
			default:
				dst[y*s.Width+x] = pvsHidden
			}
		}
	}
	return nil
}

// pvsCmd is `frontierq pvs`: one cell's stored PVS as a styled GeoTIFF.
func pvsCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cobra.Command{Use: "pvs STORE --at col,row -o OUT.tif", Short: "Write one cell's PVS, as stored or recomputed, as a styled GeoTIFF", Args: cli.Args("STORE")}
	fs := c.Flags()
	var at cli.PointFlags
	at.Register(fs, "at", "the observer's")
	out := fs.StringP("output", "o", "", "output GeoTIFF `path` on the DEM's grid: 255 visible (cells the cap dropped from the hidden set included: possibly visible), 0 hidden, with a colour table")
	exact := fs.Bool("exact", false, "the uncompressed per-point PVS recomputed from the store's elevations and parameters instead of the stored one")
	asJSON := cli.JSONFlag(fs, "the counts")
	c.RunE = func(_ *cobra.Command, pos []string) error {
		if !at.Given() || *out == "" {
			return cli.Usagef("pvs needs the cell (%s) and -o OUT.tif", at.Flags())
		}
		if err := cli.CheckOutputs([]cli.File{{Flag: "STORE", Path: pos[0]}}, []cli.File{{Flag: "-o", Path: *out}}); err != nil {
			return err
		}
		s, _, err := bake.OpenGrower(pos[0])
		if err != nil {
			return err
		}
		col, row, err := at.Cell(storeRef(s), s.Width, s.Height)
		if err != nil {
			return err
		}
		var wk *horizon.Worker
		if *exact {
			m, err := bake.StoreModel(s)
			if err != nil {
				return fmt.Errorf("%s: %w", pos[0], err)
			}
			wk = m.NewWorker()
		}
		cells := make([]byte, s.Width*s.Height)
		if err := pvsCells(s, wk, col, row, cells); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if err := gdal.WriteMask(*out, storeRef(s), s.Width, s.Height, cells, pvsStyle); err != nil {
			return err
		}
		n := map[byte]int{}
		for _, v := range cells {
			n[v]++
		}
		if *asJSON {
			return cli.WriteJSON(stdout, map[string]any{"at": cli.Locate(storeRef(s), s.Width, s.Elev, col, row), "path": *out, "exact": *exact,
				"visible": n[pvsVisible], "unknown": n[pvsUnknown], "hidden": n[pvsHidden]})
		}
		fmt.Fprintf(stdout, "wrote %s: the PVS of (%d,%d)%s: %d visible, %d unknown, %d hidden cells\n", *out, col, row,
			map[bool]string{true: " recomputed", false: " as stored"}[*exact], n[pvsVisible], n[pvsUnknown], n[pvsHidden])
		return nil
	}
	return c
}
