package cli

import (
	"fmt"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/heightmap"
)

// EngineFlags place a heightmap in a game engine's world (--engine,
// --engine-origin, --engine-flip), for the commands that read one: pvsbake
// bake records the frame in its store, pvsbake viewshed takes --at-world
// positions in it.
type EngineFlags struct {
	fs     *pflag.FlagSet
	engine string
	origin string
	flip   bool
	at     [2]float64 // origin, parsed by Checked
}

// Register adds --engine, --engine-origin and --engine-flip to fs; what
// says what the frame is for in --engine's help.
func (e *EngineFlags) Register(fs *pflag.FlagSet, what string) {
	e.fs = fs
	fs.StringVar(&e.engine, "engine", "", what+": `unity` (metres, x and z), unreal (centimetres, X and Y) or godot (metres, x and z, rows along +z)")
	fs.StringVar(&e.origin, "engine-origin", "0,0", "with --engine: the world position `A,B` of the heightmap's corner sample (0,0) on the engine's axes (Unity: the Terrain's position x,z; Unreal: the Landscape's location X,Y)")
	fs.BoolVar(&e.flip, "engine-flip", false, "with --engine: the file's rows run toward the origin (a Unity RAW exported with Flip Vertically)")
}

// Engine returns --engine's value ("" when none).
func (e *EngineFlags) Engine() string { return e.engine }

// Origin returns --engine-origin's value as given.
func (e *EngineFlags) Origin() string { return e.origin }

// Checked validates the flags before any file is read: --engine-origin
// or --engine-flip without --engine, an unknown engine, an origin that is
// not two finite numbers within ±1e12. Errors are *UsageError naming the
// flag at fault.
func (e *EngineFlags) Checked() error {
	if e.engine == "" && !e.fs.Changed("engine-origin") && !e.flip {
		return nil
	}
	if e.engine == "" {
		return Usagef("--engine-origin and --engine-flip place the heightmap in an engine's world: give --engine %s", heightmap.Engines)
	}
	if _, err := heightmap.NewEngineFrame(e.engine, 1, 1, [2]float64{}, false, 1); err != nil {
		return Usagef("--engine %q: want %s", e.engine, heightmap.Engines)
	}
	var extra string
	n, _ := fmt.Sscanf(strings.ReplaceAll(e.origin, ",", " ")+" ", "%g %g%s", &e.at[0], &e.at[1], &extra)
	if n != 2 || !(math.Abs(e.at[0]) <= 1e12) || !(math.Abs(e.at[1]) <= 1e12) {
		return Usagef("--engine-origin %q: want a world position A,B, two finite numbers within ±1e12 %s units", e.origin, e.engine)
	}
	return nil
}

// Place sets g.Engine, the frame of the file's samples moved to the window
// g was read from, when --engine was given (Checked first). Errors are
// *UsageError naming --engine-origin.
func (e *EngineFlags) Place(g *heightmap.Grid) error {
	if e.engine == "" {
		return nil
	}
	fr, err := heightmap.NewEngineFrame(e.engine, g.Dx, g.Dy, e.at, e.flip, g.SourceSize[1])
	if err != nil {
		return Usagef("--engine-origin %s: %v", e.origin, strings.TrimPrefix(err.Error(), heightmap.ErrEngine.Error()+": "))
	}
	g.Engine = fr.Window(g.Window.Col, g.Window.Row)
	return nil
}
