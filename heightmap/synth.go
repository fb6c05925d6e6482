package heightmap

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Terrain kinds for Synthetic.
const (
	Hills = "hills" // open hilly terrain: fractal value noise
	Urban = "urban" // a street grid with blocks of buildings of varied heights
)

// SynthOptions describes a synthetic terrain. Width and Height are in cells,
// CellSize in metres, Relief in metres (the hills' height range; for Urban
// the tallest building). The same options always give the same grid.
type SynthOptions struct {
	Kind          string
	Width, Height int
	CellSize      float64
	Relief        float64
	Seed          uint64
}

// Synthetic returns a deterministic synthetic terrain (metres, Dx = Dy =
// CellSize, no georeferencing). Hills: six octaves of value noise on a
// seeded lattice, shaped so that valleys are broader than ridges, heights in
// [0, Relief]. Urban: a gently rolling ground (±2 m) cut by a street grid
// (streets 3 cells wide every 24 cells), each block split into lots carrying
// flat-roofed buildings from 3 m to Relief high, with a few open squares.
func Synthetic(o SynthOptions) (*Grid, error) {
	if o.Width <= 0 || o.Height <= 0 || !(o.CellSize > 0) || !(o.Relief > 0) {
		return nil, fmt.Errorf("heightmap: synthetic terrain needs a positive size, cell size and relief, got %d×%d cells, %g m, %g m",
			o.Width, o.Height, o.CellSize, o.Relief)
	}
	g := &Grid{
		Width: o.Width, Height: o.Height, Elev: make([]float32, o.Width*o.Height),
		Dx: o.CellSize, Dy: o.CellSize, Spacing: SpacingCellSize, ZScale: 1,
		Source: fmt.Sprintf("synthetic:%s:seed=%d", o.Kind, o.Seed),
		Window: Window{Width: o.Width, Height: o.Height}, SourceSize: [2]int{o.Width, o.Height},
		Driver: "synthetic",
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	switch o.Kind {
	case Hills:
		fillHills(g, rng, o.Relief)
	case Urban:
		fillHills(g, rng, 4)
		fillCity(g, rng, o.Relief)
	default:
		return nil, fmt.Errorf("heightmap: unknown synthetic terrain %q (want %s or %s)", o.Kind, Hills, Urban)
	}
	return g, nil
}

// fillHills writes fractal value noise scaled to [0, relief] into g.Elev.
func fillHills(g *Grid, rng *rand.Rand, relief float64) {
	const octaves = 6
	base := 64.0 // cells per lattice step of the first octave
	lat := make([][]float64, octaves)
	sizes := make([]int, octaves)
	for o := range octaves {
		step := base / math.Pow(2, float64(o))
		n := int(math.Ceil(float64(max(g.Width, g.Height))/step)) + 2
		sizes[o] = n
		lat[o] = make([]float64, n*n)
		for i := range lat[o] {
			lat[o][i] = rng.Float64()
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	vals := make([]float64, len(g.Elev))
	for r := 0; r < g.Height; r++ {
		for c := 0; c < g.Width; c++ {
			v, amp := 0.0, 1.0
			for o := range octaves {
				step := base / math.Pow(2, float64(o))
				x, y := float64(c)/step, float64(r)/step
				v += float64(amp * valueNoise(lat[o], sizes[o], x, y))
				amp *= 0.5
			}
			vals[r*g.Width+c] = v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for i, v := range vals {
		t := (v - lo) / (hi - lo)
		g.Elev[i] = float32(relief * math.Pow(t, 1.6))
	}
}

// valueNoise interpolates an n×n lattice at (x, y) with smoothstep weights.
func valueNoise(lat []float64, n int, x, y float64) float64 {
	x0, y0 := int(x), int(y)
	fx, fy := x-float64(x0), y-float64(y0)
	sx, sy := fx*fx*(3-float64(2*fx)), fy*fy*(3-float64(2*fy))
	a := lat[y0*n+x0] + float64(sx*(lat[y0*n+x0+1]-lat[y0*n+x0]))
	b := lat[(y0+1)*n+x0] + float64(sx*(lat[(y0+1)*n+x0+1]-lat[(y0+1)*n+x0]))
	return a + float64(sy*(b-a))
}

// fillCity raises buildings on g.Elev's ground: blocks of 21 cells between
// 3-cell streets, each split in two or four lots (or left open as a square)
// with a flat roof at ground + 3…tallest metres.
func fillCity(g *Grid, rng *rand.Rand, tallest float64) {
	const pitch, street = 24, 3
	for by := 0; by*pitch < g.Height; by++ {
		for bx := 0; bx*pitch < g.Width; bx++ {
			x0, y0 := bx*pitch+street, by*pitch+street
			x1, y1 := min((bx+1)*pitch, g.Width), min((by+1)*pitch, g.Height)
			if x0 >= x1 || y0 >= y1 || rng.IntN(8) == 0 { // an open square
				continue
			}
			splitX, splitY := 1, 1
			if rng.IntN(2) == 0 {
				splitX = 2
			}
			if rng.IntN(2) == 0 {
				splitY = 2
			}
			for ly := range splitY {
				for lx := range splitX {
					lx0 := x0 + (x1-x0)*lx/splitX
					lx1 := x0 + (x1-x0)*(lx+1)/splitX
					ly0 := y0 + (y1-y0)*ly/splitY
					ly1 := y0 + (y1-y0)*(ly+1)/splitY
					// Heights skewed towards low buildings, a few towers.
					hgt := 3 + float64((tallest-3)*math.Pow(rng.Float64(), 2.5))
					roof := float32(0)
					for r := ly0; r < ly1; r++ {
						for c := lx0; c < lx1; c++ {
							roof = max(roof, g.Elev[r*g.Width+c])
						}
					}
					roof += float32(hgt)
					for r := ly0; r < ly1; r++ {
						for c := lx0; c < lx1; c++ {
							g.Elev[r*g.Width+c] = roof
						}
					}
				}
			}
		}
	}
}
