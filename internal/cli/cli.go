// Package cli holds what the project's commands share: usage errors and their
// exit codes, and the flags that say how to load a DEM.
package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/heightmap"
	_ "github.com/frontiersets/frontiersets/heightmap/gdal" // the commands read every raster GDAL reads
	"github.com/frontiersets/frontiersets/horizon"
)

// UsageError is a mistake in a command's arguments; commands exit 2 on it.
// Cmd, when set, is the command whose help lists the right forms
// ("pvsbake bake").
type UsageError struct{ Msg, Cmd string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a *UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// ExitCode maps run's error to a process exit code: 0 for nil, 2 for usage
// errors (including -h) and for what this build cannot do
// (heightmap.ErrNoGDAL: a GDAL format in a build without cgo), 1 for
// anything else.
func ExitCode(err error) int {
	var u *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u), errors.Is(err, flag.ErrHelp), errors.Is(err, heightmap.ErrNoGDAL):
		return 2
	}
	return 1
}

// Report prints err for the user on one line, "prog: message" (a usage
// error ends with the help to read; nothing for -h, whose usage text the
// flag set printed already), and returns the exit code.
func Report(prog string, err error, stderr io.Writer) int {
	var u *UsageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &u) && u.Cmd != "":
		fmt.Fprintf(stderr, "%s: %s (see '%s --help')\n", prog, Message(err), u.Cmd)
	default:
		fmt.Fprintf(stderr, "%s: %s\n", prog, Message(err))
	}
	return ExitCode(err)
}

// pkgPrefixes are the prefixes this module's packages give their errors
// (the Go convention), which mean nothing to a user of the commands.
var pkgPrefixes = []string{"atomicfile", "audit", "bake", "compress", "frontiersets", "grow", "heightmap", "horizon", "interest", "quadpvs", "render", "savings", "sim"}

// Message returns err's text without the package prefixes ("compress: ")
// at its start or after a ": " of wrapping.
func Message(err error) string {
	m := err.Error()
	for _, p := range pkgPrefixes {
		p += ": "
		m = strings.ReplaceAll(m, ": "+p, ": ")
		m = strings.TrimPrefix(m, p)
	}
	return m
}

// NewFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage (with the synopsis line) to stderr.
func NewFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args with fs, allowing flags after positional arguments
// (`pvsbake info DEM --window …`), and returns the positional arguments.
// Parse errors come back as *UsageError.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &UsageError{Msg: err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// DEMFlags are the flags that say how to read a DEM (heightmap.Options),
// and the memory guard LoadDEM applies before reading any cell.
type DEMFlags struct {
	fs          *pflag.FlagSet
	window      string
	cellSize    float64
	zScale      float64
	heightRange string
	rawSize     string
	rawBig      bool
	band        int
	zOffset     float64 // a store's recorded offset (UseStore): no flag sets it

	// Need estimates the bytes of memory the command needs for a grid of
	// width×height cells of dx×dy metres; nil means loading it
	// (LoadBytes).
	Need func(width, height int, dx, dy float64) int64
	// Available returns the bytes of memory available, 0 when unknown (no
	// guard); nil reads MemAvailable from /proc/meminfo.
	Available func() int64
	// Precheck, when not nil, is called with the grid about to be loaded
	// (its size and cell spacing) before the memory guard and before any
	// cell is read; its error ends LoadDEM.
	Precheck func(g *heightmap.Grid) error
	// AssumeScales reads a heightmap without georeferencing whose scales
	// the flags do not give (heightmap.ErrNoScale) with 1 m cells and 1 m
	// per sample unit, warning on stderr, instead of refusing it: for
	// describing a file, never for baking it.
	AssumeScales bool
}

// LoadBytes is the memory a loaded grid of width×height cells takes, with
// the collector's headroom: 16 bytes a cell (elevations, nodata flags,
// filling them) plus 64 MiB.
func LoadBytes(width, height int, _, _ float64) int64 {
	return 16*int64(width)*int64(height) + 64<<20
}

// Register adds --window, --cell-size, --z-scale, --height-range,
// --raw-size, --raw-big-endian and --band to fs.
func (d *DEMFlags) Register(fs *pflag.FlagSet) {
	d.fs = fs
	fs.StringVar(&d.window, "window", "", "read only `col,row,width,height` cells of the DEM")
	fs.Float64Var(&d.cellSize, "cell-size", 0, "cell size in `metres` (needed for rasters without georeferencing: RAW, .r16, plain PNG; overrides the CRS)")
	fs.Float64Var(&d.zScale, "z-scale", 0, "metres per height `unit` (default 1, or 0.3048 when the band says feet; a 16-bit heightmap without georeferencing needs it or --height-range)")
	fs.StringVar(&d.heightRange, "height-range", "", "`MIN,MAX` metres of a 16-bit heightmap's samples 0 and 65535 (a game engine's terrain height: Unity 0,HEIGHT; Unreal -256,256 at Z scale 100)")
	fs.StringVar(&d.rawSize, "raw-size", "", "`WIDTHxHEIGHT` of a headerless 16-bit .raw/.r16 heightmap (default: a square from the file size)")
	fs.BoolVar(&d.rawBig, "raw-big-endian", false, "read .raw/.r16 samples as big-endian (default little-endian)")
	fs.IntVar(&d.band, "band", 0, "read raster band `N` (from 1; needed when the raster has several)")
}

// Options converts the flags into heightmap.Options; mistakes are usage errors.
func (d *DEMFlags) Options() (heightmap.Options, error) {
	var o heightmap.Options
	if d.window != "" {
		w, err := heightmap.ParseWindow(d.window)
		if err != nil {
			return o, &UsageError{Msg: "--window: " + err.Error()}
		}
		o.Window = w
	}
	if d.cellSize != 0 && !(d.cellSize >= 1e-3 && d.cellSize <= 1e6) {
		return o, Usagef("--cell-size %.4g: want 0.001 to 1000000 metres", d.cellSize)
	}
	if d.zScale != 0 && !(d.zScale >= 1e-6 && d.zScale <= 1e6) {
		return o, Usagef("--z-scale %.4g: want a factor from 0.000001 to 1000000", d.zScale)
	}
	if d.band < 0 {
		return o, Usagef("--band %d: want a band number from 1", d.band)
	}
	o.CellSize, o.ZScale, o.RawBigEndian, o.Band, o.ZOffset = d.cellSize, d.zScale, d.rawBig, d.band, d.zOffset
	if d.heightRange != "" {
		var extra string
		n, _ := fmt.Sscanf(strings.ReplaceAll(d.heightRange, ",", " ")+" ", "%g %g%s", &o.HeightRange[0], &o.HeightRange[1], &extra)
		r := o.HeightRange
		if n != 2 || !(r[1] > r[0]) || !(r[0] >= -1e5 && r[1] <= 1e5) {
			return o, Usagef("--height-range %q: want MIN,MAX metres, MIN below MAX, within ±100000", d.heightRange)
		}
		if d.zScale != 0 {
			return o, Usagef("--height-range and --z-scale both scale heights: give one")
		}
	}
	if d.rawSize != "" {
		var extra string
		n, _ := fmt.Sscanf(strings.ReplaceAll(d.rawSize, "×", "x")+" ", "%dx%d%s", &o.RawWidth, &o.RawHeight, &extra)
		if n != 2 || o.RawWidth <= 0 || o.RawHeight <= 0 {
			return o, Usagef("--raw-size %q: want WIDTHxHEIGHT in cells", d.rawSize)
		}
	}
	return o, nil
}

// UseStore takes the loading flags a store recorded (compress.Header.Load)
// for every flag not given on the command line: loading a store's DEM
// again then needs none.
func (d *DEMFlags) UseStore(lf *compress.LoadFlags) {
	if lf == nil || d.fs == nil {
		return
	}
	given := d.fs.Changed
	if !given("cell-size") && lf.CellSizeM > 0 {
		d.cellSize = lf.CellSizeM
	}
	if !given("z-scale") && !given("height-range") {
		if lf.ZScale > 0 {
			d.zScale = lf.ZScale
		}
		if r := lf.HeightRangeM; r[1] > r[0] {
			d.heightRange = fmt.Sprintf("%g,%g", r[0], r[1])
		}
	}
	if !given("raw-size") && lf.RawSize[0] > 0 {
		d.rawSize = fmt.Sprintf("%dx%d", lf.RawSize[0], lf.RawSize[1])
	}
	if !given("raw-big-endian") {
		d.rawBig = lf.RawBigEndian
	}
	if !given("band") && lf.Band > 0 {
		d.band = lf.Band
	}
	d.zOffset = lf.ZOffsetM
}

// LoadDEM loads path with the flags' options and warns on stderr when the
// cell spacing had to be assumed. Before any cell is read, it refuses a
// grid whose Need exceeds 90% of the Available memory, naming a window
// that fits.
func (d *DEMFlags) LoadDEM(prog, path string, stderr io.Writer) (*heightmap.Grid, error) {
	opt, err := d.Options()
	if err != nil {
		return nil, err
	}
	opt.Check = d.guard
	g, err := heightmap.Load(path, opt)
	if errors.Is(err, heightmap.ErrNoScale) && d.AssumeScales {
		if opt.CellSize == 0 {
			opt.CellSize = 1
		}
		if opt.ZScale == 0 && opt.HeightRange == [2]float64{} {
			opt.ZScale = 1
		}
		if g, err = heightmap.Load(path, opt); err == nil {
			warnImplausible(prog, path, g, stderr)
			g.Spacing = heightmap.SpacingAssumed
			fmt.Fprintf(stderr, "%s: warning: %s has no georeferencing; shown with %g m cells and %g m per sample unit (give --cell-size and, for 16-bit samples, --height-range to bake it)\n",
				prog, path, g.Dx, g.ZScale)
			return g, nil
		}
	}
	if errors.Is(err, heightmap.ErrAllNodata) && opt.HeightRange != [2]float64{} {
		return nil, fmt.Errorf("%w: --height-range %g,%g puts every sample outside %d to %d m, heights no terrain has; give the terrain's height in metres", err,
			opt.HeightRange[0], opt.HeightRange[1], heightmap.MinElevation, heightmap.MaxElevation)
	}
	if err != nil {
		return nil, err
	}
	warnScale(prog, path, g, opt, stderr)
	if g.Spacing == heightmap.SpacingAssumed {
		fmt.Fprintf(stderr, "%s: warning: %s has no usable CRS; its pixel size (%g × %g) is taken as metres (give --cell-size)\n",
			prog, path, g.Dx, g.Dy)
	}
	warnImplausible(prog, path, g, stderr)
	if g.NoLonLat != "" {
		fmt.Fprintf(stderr, "%s: note: %s has no lon/lat here (%s): cells, map x,y and engine positions locate points\n", prog, path, g.NoLonLat)
	}
	return g, nil
}

// warnScale warns, naming the flag and the figure, where a heightmap's
// scale looks mistaken: a headerless 16-bit RAW whose samples span under
// 1% of their range (a wrong size or byte order; PNGs are left out, as an
// 8-bit one spans at most 0.4% of 16 bits), a --height-range of under
// 1 m or over 9,000 m of relief, a map under 10 m or over 1,000 km
// across (Dx, Dy in metres times the cells).
func warnScale(prog, path string, g *heightmap.Grid, opt heightmap.Options, stderr io.Writer) {
	if r := opt.HeightRange; r != [2]float64{} {
		if relief := r[1] - r[0]; relief < 1 || relief > 9000 {
			fmt.Fprintf(stderr, "%s: warning: --height-range %g,%g gives %g m of relief (Everest rises 8,849 m above the sea): is the range in metres?\n", prog, r[0], r[1], relief)
		}
	}
	if g.Driver == "RAW" && g.ZScale > 0 {
		lo, hi := g.MinMax()
		if used := (hi - lo) / (g.ZScale * 65535); used < 0.01 && hi > lo {
			fmt.Fprintf(stderr, "%s: warning: %s uses %.2g%% of its 16-bit sample range (%.0f samples of 65535): check --raw-size and the byte order (--raw-big-endian)\n",
				prog, path, 100*used, (hi-lo)/g.ZScale)
		}
	}
	w, h := float64(g.Width)*g.Dx, float64(g.Height)*g.Dy
	if across := max(w, h); across < 10 || across > 1e6 {
		flag := "the cell size"
		if opt.CellSize > 0 {
			flag = fmt.Sprintf("--cell-size %g", opt.CellSize)
		}
		fmt.Fprintf(stderr, "%s: warning: %s makes %s %.3g × %.3g m across: is it in metres per cell?\n", prog, flag, path, w, h)
	}
}

// warnImplausible warns when cells of g were read as nodata for heights no
// terrain has.
func warnImplausible(prog, path string, g *heightmap.Grid, stderr io.Writer) {
	if g.Implausible > 0 {
		fmt.Fprintf(stderr, "%s: warning: %s: %d cells lie outside %d to %d m (an undeclared nodata value such as -3.4e38?): they are treated as nodata\n",
			prog, path, g.Implausible, heightmap.MinElevation, heightmap.MaxElevation)
	}
}

// guard is the memory guard of LoadDEM (heightmap.Options.Check).
func (d *DEMFlags) guard(g *heightmap.Grid) error {
	if d.Precheck != nil {
		if err := d.Precheck(g); err != nil {
			return err
		}
	}
	need, availFn := d.Need, d.Available
	if need == nil {
		need = LoadBytes
	}
	if availFn == nil {
		availFn = AvailableMemory
	}
	avail := availFn()
	limit := avail / 10 * 9
	n := need(g.Width, g.Height, g.Dx, g.Dy)
	if avail <= 0 || n <= limit {
		return nil
	}
	w, h := FitWindow(need, g.Width, g.Height, g.Dx, g.Dy, limit)
	if w == 0 {
		return fmt.Errorf("%d×%d cells need about %s of memory and only %s is available, too little for any window",
			g.Width, g.Height, compress.FormatBytes(n), compress.FormatBytes(avail))
	}
	return fmt.Errorf("%d×%d cells need about %s of memory and %s is available; read a smaller window, e.g. --window %d,%d,%d,%d",
		g.Width, g.Height, compress.FormatBytes(n), compress.FormatBytes(avail), g.Window.Col, g.Window.Row, w, h)
}

// FitWindow returns the largest width×height in cells, in the proportions
// of w×h cells (dx × dy metres each), whose need in bytes is at most limit
// bytes; 0×0 when not even one cell fits. It bisects on the scale, so need
// must grow with the size.
func FitWindow(need func(width, height int, dx, dy float64) int64, w, h int, dx, dy float64, limit int64) (int, int) {
	size := func(f float64) (int, int) { return max(1, int(float64(w)*f)), max(1, int(float64(h)*f)) }
	if a, b := size(0); need(a, b, dx, dy) > limit {
		return 0, 0
	}
	lo, hi := 0.0, 1.0
	for range 50 {
		mid := (lo + hi) / 2
		if a, b := size(mid); need(a, b, dx, dy) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return size(lo)
}

// AvailableMemory returns the bytes this process can still use, 0 when
// unknown: the least of MemAvailable (/proc/meminfo), the address space
// RLIMIT_AS leaves (the limit less VmSize: ulimit -v), and what the
// process's cgroup (v2) leaves (memory.max less memory.current). The
// memory guard must honour all three: under ulimit -v 4GB a 32768² raster
// passed the guard on MemAvailable and died out of memory.
// On Windows the system's available physical memory stands for the first
// (GlobalMemoryStatusEx), and the other two are unknown.
func AvailableMemory() int64 {
	avail := leastKnown(systemAvailable(), addressSpaceLeft())
	return leastKnown(avail, cgroupLeft())
}

// leastKnown is the lesser of a and b, where 0 is unknown.
func leastKnown(a, b int64) int64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// ResidentMemory returns the process's resident memory now and at its
// peak so far, in bytes (VmRSS and VmHWM of /proc/self/status, read
// once); 0, 0 where unknown (no /proc: macOS, Windows).
func ResidentMemory() (now, peak int64) {
	v := procFields("/proc/self/status", "VmRSS:", "VmHWM:")
	return v[0], v[1]
}

// procField returns the field name (in kB) of a /proc file in bytes, 0
// when absent.
func procField(path, name string) int64 { return procFields(path, name)[0] }

// procFields returns the fields names (in kB) of a /proc file in bytes,
// in the order of names, from one read of it; 0 for each field absent.
func procFields(path string, names ...string) []int64 {
	v := make([]int64, len(names))
	f, err := os.Open(path)
	if err != nil {
		return v
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for i, name := range names {
			var kb int64
			if n, _ := fmt.Sscanf(sc.Text(), name+" %d kB", &kb); n == 1 {
				v[i] = kb << 10
			}
		}
	}
	return v
}

// cgroupLeft returns what the process's memory cgroup lets it allocate
// still — v2: memory.max less memory.current; v1: memory.limit_in_bytes
// less memory.usage_in_bytes —, 0 when there is no limit or none is found.
func cgroupLeft() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	read := func(path string) int64 {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max": 0
		return v
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		var limit, used int64
		switch {
		case f[0] == "0" && f[1] == "":
			dir := filepath.Join("/sys/fs/cgroup", f[2])
			limit, used = read(filepath.Join(dir, "memory.max")), read(filepath.Join(dir, "memory.current"))
		case slices.Contains(strings.Split(f[1], ","), "memory"):
			dir := filepath.Join("/sys/fs/cgroup/memory", f[2])
			limit, used = read(filepath.Join(dir, "memory.limit_in_bytes")), read(filepath.Join(dir, "memory.usage_in_bytes"))
		default:
			continue
		}
		if limit > 0 && limit < 1<<60 { // v1 writes 2^63 rounded down to a page for no limit
			return max(limit-used, 1)
		}
	}
	return 0
}

// VisFlags are the visibility parameters of §3.1 (horizon.Params).
type VisFlags struct {
	p   horizon.Params
	los string
}

// Register adds --sectors, --observer-height, --target-height,
// --max-distance, --curvature, --refraction and --margin to fs, with the
// defaults of horizon.DefaultParams.
func (v *VisFlags) Register(fs *pflag.FlagSet) {
	d := horizon.DefaultParams()
	fs.IntVar(&v.p.Sectors, "sectors", d.Sectors, "number of azimuth sectors `S`")
	fs.Float64Var(&v.p.ObserverHeight, "observer-height", d.ObserverHeight, "observer's eye above the ground, `metres`")
	fs.Float64Var(&v.p.TargetHeight, "target-height", d.TargetHeight, "target's top above the ground (player height τ), `metres`")
	fs.Float64Var(&v.p.MaxDistance, "max-distance", 0, "hide cells farther than this many `metres` (0: no limit)")
	fs.BoolVar(&v.p.EarthCurvature, "curvature", false, "account for the Earth's curvature")
	fs.Float64Var(&v.p.Refraction, "refraction", 0, "refraction `coefficient` used with --curvature (e.g. 0.13)")
	fs.Float64Var(&v.p.Margin, "margin", d.Margin, "count a target hidden only when it lies this many `metres` below the line of sight (conservative for grazing lines)")
	fs.StringVar(&v.los, "los", d.LOS.String(), "visibility `model`: conservative (hidden only when the exact line of sight between the sample points is blocked), region (hidden only when no position in the observer's cell sees any position in the target's: players anywhere) or sector (the thesis's midline profiles: faster, can hide targets whose line of sight passes beside a ridge); region-v4, region-v3 and region-v2 bake the region model's previous versions, for comparisons (swept squares instead of cuts across the wedge: fewer cells hidden behind narrow ridges and walls, a slower bake; region-v4 keeps them only on PVS cells of more than one heightmap cell)")
}

// Params returns the parameters; their validation is horizon.New's.
func (v *VisFlags) Params() horizon.Params { return v.p }

// Checked returns the parameters, or a *UsageError when horizon would
// refuse them (horizon.Params.Validate).
func (v *VisFlags) Checked() (horizon.Params, error) {
	l, version, err := horizon.ParseModel(v.los)
	if err != nil {
		return v.p, Usagef("--los %q: want %s", v.los, horizon.ModelNames())
	}
	v.p.LOS, v.p.Version = l, version
	if err := v.p.Validate(); err != nil {
		return v.p, Usagef("%v", err)
	}
	return v.p, nil
}

// ParseCell parses "col,row": whole cells, or a position in fractional
// cells ("12.37,40.8", sample (c,r) at (c,r)), which names the cell whose
// square holds it (the nearest sample; halves round up).
func ParseCell(flagName, s string) (col, row int, err error) {
	x, y, err := parsePair("--"+flagName, s, "col,row in cells (fractional for a position inside a cell)")
	if err != nil {
		return 0, 0, err
	}
	// Beyond int32 a position is outside any grid; clamping keeps the
	// conversion defined and the caller's range check names it.
	cell := func(v float64) int { return int(max(min(math.Floor(v+0.5), 1<<31), -1<<31)) }
	return cell(x), cell(y), nil
}

// CheckStandable returns an error when (col,row) is outside g or on a
// nodata cell: a player cannot stand there.
func CheckStandable(what string, g *heightmap.Grid, col, row int) error {
	if !g.In(col, row) {
		return fmt.Errorf("%s (%d,%d) is outside the %d×%d grid", what, col, row, g.Width, g.Height)
	}
	if g.IsNodata(g.Index(col, row)) {
		return fmt.Errorf("%s (%d,%d) is on a nodata cell; pick a cell with data", what, col, row)
	}
	return nil
}

// WriteJSON prints v as indented JSON, the --json output of every command.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// JSONFlag registers --json on fs with the given help.
func JSONFlag(fs *pflag.FlagSet, what string) *bool {
	return fs.Bool("json", false, "print "+what+" as one JSON object instead of text")
}
