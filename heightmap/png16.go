package heightmap

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
)

// loadPNG reads a grayscale PNG heightmap (16-bit, as Unreal and World
// Machine export them, or 8-bit) without GDAL, for builds without it: the
// same samples GDAL's PNG driver reads, row-major from the top row. A PNG
// carries no units: opt.CellSize and, for 16-bit samples, opt.ZScale (or
// opt.HeightRange) must be given (ErrNoScale). Colour PNGs need GDAL's
// --band. opt.Check sees the grid before any pixel is decoded.
func loadPNG(path string, opt Options) (*Grid, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("not a PNG heightmap: %w", err)
	}
	sixteen := false
	switch cfg.ColorModel {
	case color.Gray16Model:
		sixteen = true
	case color.GrayModel:
	default:
		return nil, fmt.Errorf("a colour PNG: this build reads grayscale PNG heightmaps; pick a band of it with --band in a build with GDAL")
	}
	if opt.Band > 1 {
		return nil, fmt.Errorf("band %d: a grayscale PNG has one band", opt.Band)
	}
	win := opt.Window
	if win == (Window{}) {
		win = Window{Width: cfg.Width, Height: cfg.Height}
	}
	if err := win.check(cfg.Width, cfg.Height); err != nil {
		return nil, err
	}
	if err := needScales(opt, sixteen); err != nil {
		return nil, err
	}
	g := &Grid{
		Width: win.Width, Height: win.Height,
		Source: path, Window: win, SourceSize: [2]int{cfg.Width, cfg.Height}, Driver: "PNG",
		Dx: opt.CellSize, Dy: opt.CellSize, Spacing: SpacingCellSize,
	}
	if opt.Check != nil {
		if err := opt.Check(g); err != nil {
			return nil, err
		}
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("read the PNG: %w", err)
	}
	elev := make([]float32, win.Width*win.Height)
	b := img.Bounds()
	x0, y0 := b.Min.X+win.Col, b.Min.Y+win.Row
	switch m := img.(type) {
	case *image.Gray16:
		for r := range win.Height {
			for c := range win.Width {
				elev[r*win.Width+c] = float32(m.Gray16At(x0+c, y0+r).Y)
			}
		}
	case *image.Gray:
		for r := range win.Height {
			for c := range win.Width {
				elev[r*win.Width+c] = float32(m.GrayAt(x0+c, y0+r).Y)
			}
		}
	default:
		return nil, fmt.Errorf("read the PNG: %T pixels, want grayscale", img)
	}
	g.Elev = elev
	zscale := opt.ZScale
	if zscale == 0 {
		zscale = 1 // 8-bit samples without a scale: metres, as GDAL's unitless band
	}
	g.ZScale = zscale
	if err := finish(g, nil, zscale, opt.ZOffset); err != nil {
		return nil, err
	}
	return g, nil
}
