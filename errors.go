package frontiersets

import (
	"errors"
	"fmt"

	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/heightmap"
	"github.com/frontiersets/frontiersets/internal/fault"
)

// Errors the package's functions wrap; test for them with errors.Is (and
// for *FormatError with errors.As). They are the lower packages' own, so a
// test for ErrOutside also matches grow.ErrOutside.
var (
	// ErrOutside: a cell, position, map point, lon/lat or world position
	// off the grid.
	ErrOutside = grow.ErrOutside
	// ErrNodata: a player on a cell the DEM had no data for.
	ErrNodata = grow.ErrNodata
	// ErrIdentical is no longer returned: players in one cell see each
	// other (Result.MutuallyVisible).
	ErrIdentical = grow.ErrIdentical
	// ErrOptions: query options out of range.
	ErrOptions = grow.ErrOptions
	// ErrFault: the store's file was truncated or changed while open, so
	// a query could not read it (instead of the process dying of SIGBUS).
	ErrFault = fault.ErrFault
	// ErrNotStore: a file that is not a PVS store, or a corrupt one (every
	// *FormatError matches it).
	ErrNotStore = compress.ErrNotStore
	// ErrNoGeoref, ErrNoCRS: map or lon/lat coordinates asked of a store
	// without a geotransform or a CRS.
	ErrNoGeoref = heightmap.ErrNoGeoref
	ErrNoCRS    = heightmap.ErrNoCRS
	// ErrNoGDAL: lon/lat asked of a store from before stores recorded a
	// lon/lat lattice, in a program without heightmap/gdal.
	ErrNoGDAL = heightmap.ErrNoGDAL
	// ErrNoEngine: world positions asked of a store baked without an
	// engine frame (pvsbake bake --engine).
	ErrNoEngine = heightmap.ErrNoEngine
)

// FormatError reports a corrupt store: what is wrong and its byte offset.
type FormatError = compress.FormatError

// outside makes an error wrapping heightmap.ErrOutside (a map point or
// lon/lat off the grid) match ErrOutside too, its message unchanged.
func outside(err error) error {
	if err != nil && errors.Is(err, heightmap.ErrOutside) && !errors.Is(err, ErrOutside) {
		return outsideError{err}
	}
	return err
}

// errOutside formats an error that matches ErrOutside.
func errOutside(format string, a ...any) error { return outsideError{fmt.Errorf(format, a...)} }

type outsideError struct{ error }

func (e outsideError) Unwrap() error { return e.error }

func (e outsideError) Is(target error) bool { return target == ErrOutside }
