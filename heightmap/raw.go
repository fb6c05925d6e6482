package heightmap

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// loadRaw reads a headerless RAW heightmap of unsigned 16-bit samples,
// row-major from the top row, as terrain editors (Unity, Unreal, World
// Machine) export them. Size comes from opt.RawWidth × opt.RawHeight, or is
// inferred from a square file (side = √(bytes/2)). Only the window's rows are
// read. RAW files carry no units: opt.CellSize and opt.ZScale (or
// opt.HeightRange) must be given (ErrNoScale); heights are samples × ZScale
// + ZOffset.
func loadRaw(path string, opt Options) (*Grid, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size == 0 {
		return nil, ErrEmpty
	}
	w, h := opt.RawWidth, opt.RawHeight
	switch {
	case w == 0 && h == 0:
		side := int64(math.Round(math.Sqrt(float64(size / 2))))
		if size%2 != 0 || side*side*2 != size {
			return nil, fmt.Errorf("%d bytes is not a square 16-bit RAW heightmap; give its size (--raw-size WIDTHxHEIGHT)", size)
		}
		w, h = int(side), int(side)
	case w <= 0 || h <= 0:
		return nil, fmt.Errorf("RAW size %d×%d must be positive", w, h)
	case int64(w)*int64(h)*2 != size:
		return nil, fmt.Errorf("RAW size %d×%d needs %d bytes, the file has %d", w, h, int64(w)*int64(h)*2, size)
	}
	win := opt.Window
	if win == (Window{}) {
		win = Window{Width: w, Height: h}
	}
	if err := win.check(w, h); err != nil {
		return nil, err
	}
	if opt.Band > 1 {
		return nil, fmt.Errorf("band %d: a RAW heightmap has one band", opt.Band)
	}
	g := &Grid{
		Width: win.Width, Height: win.Height,
		Source: path, Window: win, SourceSize: [2]int{w, h}, Driver: "RAW",
		Dx: 1, Dy: 1, Spacing: SpacingAssumed,
	}
	// The scales first, so that opt.Check sees the cells' real spacing in
	// metres (a --pvs-cell check or a memory guard that takes metres for
	// cells refuses what fits and passes what does not).
	if err := needScales(opt, true); err != nil {
		return nil, err
	}
	g.Dx, g.Dy, g.Spacing = opt.CellSize, opt.CellSize, SpacingCellSize
	if opt.Check != nil {
		if err := opt.Check(g); err != nil {
			return nil, err
		}
	}
	var order binary.ByteOrder = binary.LittleEndian
	if opt.RawBigEndian {
		order = binary.BigEndian
	}
	elev := make([]float32, win.Width*win.Height)
	row := make([]byte, 2*win.Width)
	for r := 0; r < win.Height; r++ {
		off := (int64(win.Row+r)*int64(w) + int64(win.Col)) * 2
		if _, err := f.ReadAt(row, off); err != nil {
			return nil, fmt.Errorf("read row %d: %w", win.Row+r, err)
		}
		for c := range win.Width {
			elev[r*win.Width+c] = float32(order.Uint16(row[2*c:]))
		}
	}
	g.Elev = elev
	g.ZScale = opt.ZScale
	if err := finish(g, nil, g.ZScale, opt.ZOffset); err != nil {
		return nil, err
	}
	return g, nil
}
