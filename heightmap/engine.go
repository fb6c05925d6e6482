package heightmap

import (
	"errors"
	"fmt"
	"math"
)

// EngineFrame places a grid's cells in a game engine's world: the world
// position of cell (col, row)'s centre on the engine's two horizontal axes
// is (Origin[0] + col·Step[0], Origin[1] + row·Step[1]), in the engine's
// units. A negative step runs the axis against the rows (a heightmap
// exported flipped). Heights are left to the engine (its terrain's own
// position and height scale).
//
//   - Unity: metres; axes x (columns) and z (rows): a Terrain at position
//     (x0, y0, z0) with heightmap resolution N and width W puts sample
//     (i, j) of a RAW exported without "Flip Vertically" at x = x0 + i·W/(N−1),
//     z = z0 + j·W/(N−1).
//   - Unreal: centimetres; axes X (columns) and Y (rows): a Landscape at
//     location (X0, Y0, Z0) with scale (Sx, Sy, Sz) puts vertex (i, j) at
//     X = X0 + i·Sx, Y = Y0 + j·Sy.
//   - Godot: metres; axes x (columns) and z (rows), y up, as Godot's 3D
//     space: a heightmap terrain (a HeightMapShape, a terrain plugin's
//     map) whose corner sample is at (x0, z0) puts sample (i, j) at
//     x = x0 + i·cell, z = z0 + j·cell (image rows run along +z).
type EngineFrame struct {
	Engine string     `json:"engine"` // "unity", "unreal" or "godot"
	Unit   float64    `json:"unit_m"` // metres per world unit: 1 (Unity, Godot), 0.01 (Unreal)
	Axes   [2]string  `json:"axes"`   // the axes along the columns and the rows: "x","z" or "X","Y"
	Origin [2]float64 `json:"origin"` // world position of cell (0, 0)'s centre, world units
	Step   [2]float64 `json:"step"`   // world units from a cell's centre to the next column's and row's
}

// ErrEngine reports an engine name, origin or step that makes no frame.
var ErrEngine = errors.New("heightmap: engine frame")

// Engines lists the engines NewEngineFrame knows.
const Engines = "unity, unreal or godot"

// NewEngineFrame returns the frame of engine ("unity", "unreal" or
// "godot") for a
// heightmap of rows rows whose samples are dx and dy metres apart, its
// corner sample at world position origin (world units: the Terrain's
// position x, z; the Landscape's location X, Y). The file's rows run along
// the engine's second axis from origin, or, flipped (a Unity RAW exported
// with "Flip Vertically"), toward it: the file's first row then lies
// (rows−1) samples along the axis. Errors wrap ErrEngine.
func NewEngineFrame(engine string, dx, dy float64, origin [2]float64, flipped bool, rows int) (*EngineFrame, error) {
	var f EngineFrame
	switch engine {
	case "unity":
		f = EngineFrame{Engine: engine, Unit: 1, Axes: [2]string{"x", "z"}}
	case "unreal":
		f = EngineFrame{Engine: engine, Unit: 0.01, Axes: [2]string{"X", "Y"}}
	case "godot":
		f = EngineFrame{Engine: engine, Unit: 1, Axes: [2]string{"x", "z"}}
	default:
		return nil, fmt.Errorf("%w: engine %q: want %s", ErrEngine, engine, Engines)
	}
	f.Origin = origin
	f.Step = [2]float64{dx / f.Unit, dy / f.Unit}
	if flipped {
		f.Origin[1] += float64(rows-1) * f.Step[1]
		f.Step[1] = -f.Step[1]
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Check reports ErrEngine for a frame that is not one NewEngineFrame
// makes: an unknown engine, its units or axes changed, or an origin or
// step that is not finite (steps non-zero, at most 10⁹ units).
func (f *EngineFrame) Check() error {
	ok := ((f.Engine == "unity" || f.Engine == "godot") && f.Unit == 1 && f.Axes == [2]string{"x", "z"}) ||
		(f.Engine == "unreal" && f.Unit == 0.01 && f.Axes == [2]string{"X", "Y"})
	for _, v := range []float64{f.Origin[0], f.Origin[1], f.Step[0], f.Step[1]} {
		ok = ok && !math.IsNaN(v) && math.Abs(v) <= 1e12
	}
	for _, s := range f.Step {
		ok = ok && s != 0 && math.Abs(s) <= 1e9
	}
	if !ok {
		return fmt.Errorf("%w: %+v is not a %s frame with finite, non-zero steps", ErrEngine, *f, Engines)
	}
	return nil
}

// Window returns the frame of a window of the grid starting at cell (col,
// row).
func (f EngineFrame) Window(col, row int) *EngineFrame {
	f.Origin[0] += float64(col) * f.Step[0]
	f.Origin[1] += float64(row) * f.Step[1]
	return &f
}

// Coarsen returns the frame of the grid's PVS cells of k×k cells
// (heightmap.Coarsen): PVS cell (c, r) covers cells c·k … c·k+k−1, its
// centre at cell c·k + (k−1)/2.
func (f EngineFrame) Coarsen(k int) *EngineFrame {
	h := float64(k-1) / 2
	f.Origin[0] += h * f.Step[0]
	f.Origin[1] += h * f.Step[1]
	f.Step[0] *= float64(k)
	f.Step[1] *= float64(k)
	return &f
}

// Position returns the fractional cell (col, row: cell centres at whole
// numbers) at world position (a, b), world units on the frame's axes.
func (f *EngineFrame) Position(a, b float64) (x, y float64) {
	return (a - f.Origin[0]) / f.Step[0], (b - f.Origin[1]) / f.Step[1]
}

// World returns the world position of fractional cell (x, y).
func (f *EngineFrame) World(x, y float64) (a, b float64) {
	return f.Origin[0] + x*f.Step[0], f.Origin[1] + y*f.Step[1]
}

// Extent returns the world bounds of a width×height grid's cells'
// squares: the least and greatest position on each axis.
func (f *EngineFrame) Extent(width, height int) (lo, hi [2]float64) {
	a0, b0 := f.World(-0.5, -0.5)
	a1, b1 := f.World(float64(width)-0.5, float64(height)-0.5)
	return [2]float64{min(a0, a1), min(b0, b1)}, [2]float64{max(a0, a1), max(b0, b1)}
}

// WorldToPosition returns the fractional cell (col, row: cell centres at
// whole numbers) of world position (a, b) on a width×height grid with this
// georeferencing's engine frame. Only the terrain is accepted: the hull of
// the heightmap's samples (Hull), whose world bounds are those the engine
// shows (a Unity terrain from x −2048 to 2048 m, not half a cell or a PVS
// cell beyond). Errors: ErrNoEngine; a position off the terrain (wrapping
// ErrOutside), naming the world bounds.
func (g Georef) WorldToPosition(a, b float64, width, height int) (x, y float64, err error) {
	f := g.Engine
	if f == nil {
		return 0, 0, ErrNoEngine
	}
	x, y = f.Position(a, b)
	lo, hi := g.Hull(width, height)
	// Within a millionth of a cell of the edge is on it: the world's
	// bounds themselves map back with rounding.
	const eps = 1e-6
	if !(x >= lo[0]-eps && x <= hi[0]+eps && y >= lo[1]-eps && y <= hi[1]+eps) {
		a0, b0 := f.World(lo[0], lo[1])
		a1, b1 := f.World(hi[0], hi[1])
		return 0, 0, fmt.Errorf("world position %s %g, %s %g is %w: %s %g to %g, %s %g to %g (%s units)",
			f.Axes[0], a, f.Axes[1], b, ErrOutside, f.Axes[0], min(a0, a1), max(a0, a1), f.Axes[1], min(b0, b1), max(b0, b1), f.Engine)
	}
	return min(max(x, lo[0]), hi[0]), min(max(y, lo[1]), hi[1]), nil
}

// ErrNoEngine reports world coordinates asked of a grid baked without an
// engine frame (pvsbake bake --engine).
var ErrNoEngine = errors.New("heightmap: the grid has no engine frame (bake with --engine unity, unreal or godot); give cells instead")
