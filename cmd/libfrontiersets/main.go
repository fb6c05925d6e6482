// Command libfrontiersets is the C library: built with
// `go build -buildmode=c-shared` (make lib) it exports the functions that
// frontiersets.h declares, over the Go package frontiersets. Stores are
// integer handles in a table, so no Go pointer reaches C; every output goes
// into a buffer the caller owns; a panic becomes FS_EINTERNAL.
package main

/*
#define FS_NO_PROTOTYPES
#include "frontiersets.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/frontiersets/frontiersets"
	"github.com/frontiersets/frontiersets/compress"
	"github.com/frontiersets/frontiersets/grow"
	"github.com/frontiersets/frontiersets/internal/fault"
	"github.com/frontiersets/frontiersets/quadpvs"
)

func main() {}

// handle is one open store; calls hold mu for reading, fs_close for
// writing, so a store is never closed under a call.
type handle struct {
	mu       sync.RWMutex
	s        *frontiersets.Store
	key      fileKey      // its file, when shared (zero: not shared)
	managers atomic.Int32 // interest managers over it (fs_interest_new)
	closed   bool
}

// fileKey names a store file as it was opened: the same key, the same
// bytes (a file replaced or rewritten has another inode, size or time).
type fileKey struct {
	dev, ino, size uint64
	mtime          int64 // ns
}

// shared is a store open under several handles of one file: one mapping
// and one decoder, refs handles, closed with the last.
type shared struct {
	s    *frontiersets.Store
	refs int
}

var (
	tableMu sync.Mutex
	table   = map[int64]*handle{}
	files   = map[fileKey]*shared{}
	lastID  int64
)

// status is an error with its FS_ code.
type status struct {
	code int
	msg  string
}

func (e *status) Error() string { return e.msg }

func fail(code int, format string, a ...any) error {
	return &status{code, fmt.Sprintf(format, a...)}
}

// finish turns err (or a recovered panic) into a code and writes its
// message into cerr, when given.
func finish(err error, cerr *C.fs_error) C.int {
	if err == nil {
		return C.FS_OK
	}
	code := C.FS_EINTERNAL
	var st *status
	var fe *compress.FormatError
	switch {
	case errors.As(err, &st):
		code = st.code
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, frontiersets.ErrFault), errors.Is(err, compress.ErrNotFile):
		code = C.FS_EIO
	case errors.As(err, &fe), errors.Is(err, compress.ErrSparse):
		code = C.FS_EFORMAT
	case errors.Is(err, frontiersets.ErrOutside), errors.Is(err, frontiersets.ErrNodata), errors.Is(err, frontiersets.ErrIdentical):
		code = C.FS_ERANGE
	case errors.Is(err, frontiersets.ErrNoGeoref), errors.Is(err, frontiersets.ErrNoCRS), errors.Is(err, frontiersets.ErrNoGDAL), errors.Is(err, frontiersets.ErrNoEngine):
		code = C.FS_ENOGEO
	case errors.Is(err, frontiersets.ErrOptions):
		code = C.FS_EINVAL
	}
	if cerr != nil {
		msg := err.Error()
		for _, p := range []string{"frontiersets: ", "compress: ", "grow: ", "heightmap: ", "quadpvs: "} {
			msg = strings.ReplaceAll(msg, p, "")
		}
		// SAFETY: cerr points to a caller's fs_error, whose message is a
		// char[256]; at most 255 bytes and a NUL are written.
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&cerr.message[0])), len(cerr.message))
		n := copy(buf[:len(buf)-1], msg)
		buf[n] = 0
	}
	return C.int(code)
}

// guard recovers a panic into *err.
func guard(err *error) {
	if r := recover(); r != nil {
		*err = fail(C.FS_EINTERNAL, "internal error: %v", r)
	}
}

// use runs fn on the open store of handle id, holding it open, and
// returns fn's error or the first tree that failed its checks.
func use(id C.fs_store, fn func(s *frontiersets.Store) error) error {
	return useHandle(id, func(h *handle) error {
		if err := fn(h.s); err != nil {
			return err
		}
		return h.s.Err()
	})
}

// useHandle runs fn on open handle id, holding it open (FS_EHANDLE for a
// handle not open).
func useHandle(id C.fs_store, fn func(h *handle) error) (err error) {
	defer guard(&err)
	// A store file truncated or changed while open faults when read: an
	// FS_EIO error, not the host program's end.
	defer fault.Recover(&err, fault.Arm())
	tableMu.Lock()
	h := table[int64(id)]
	tableMu.Unlock()
	if h == nil {
		return fail(C.FS_EHANDLE, "store handle %d is not open", int64(id))
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return fail(C.FS_EHANDLE, "store handle %d is closed", int64(id))
	}
	return fn(h)
}

func null(what string) error { return fail(C.FS_EINVAL, "%s is NULL", what) }

func checkCell(s *frontiersets.Store, col, row C.int32_t) error {
	w, h := s.Size()
	if col < 0 || row < 0 || int(col) >= w || int(row) >= h {
		return fail(C.FS_ERANGE, "cell %d,%d is outside the %d×%d grid", col, row, w, h)
	}
	return nil
}

//export fs_open
func fs_open(path *C.char, store *C.fs_store, cerr *C.fs_error) C.int {
	var err error
	func() {
		defer guard(&err)
		if path == nil || store == nil {
			err = null("path or store")
			return
		}
		// Handles of one file share its store: one mapping, one decoder.
		p := C.GoString(path)
		key, ok := keyOf(p)
		tableMu.Lock()
		if sh := files[key]; ok && sh != nil {
			sh.refs++
			lastID++
			table[lastID] = &handle{s: sh.s, key: key}
			*store = C.fs_store(lastID)
			tableMu.Unlock()
			return
		}
		tableMu.Unlock()
		var s *frontiersets.Store
		if s, err = frontiersets.Open(p); err != nil {
			return
		}
		if after, same := keyOf(p); !ok || !same || after != key {
			key = fileKey{} // changed while opened: not shared
		}
		tableMu.Lock()
		defer tableMu.Unlock()
		if sh := files[key]; key != (fileKey{}) && sh != nil {
			// Another call opened it meanwhile: share that one.
			s.Close()
			sh.refs++
			s = sh.s
		} else if key != (fileKey{}) {
			files[key] = &shared{s: s, refs: 1}
		}
		lastID++
		table[lastID] = &handle{s: s, key: key}
		*store = C.fs_store(lastID)
	}()
	return finish(err, cerr)
}

//export fs_close
func fs_close(store C.fs_store, cerr *C.fs_error) C.int {
	var err error
	func() {
		defer guard(&err)
		tableMu.Lock()
		h := table[int64(store)]
		delete(table, int64(store))
		tableMu.Unlock()
		if h == nil {
			err = fail(C.FS_EHANDLE, "store handle %d is not open", int64(store))
			return
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if k := h.managers.Load(); k > 0 {
			tableMu.Lock()
			table[int64(store)] = h // still open
			tableMu.Unlock()
			err = fail(C.FS_EINVAL, "store handle %d has %d interest managers: free them first (fs_interest_free)", int64(store), k)
			return
		}
		h.closed = true
		if h.key != (fileKey{}) {
			tableMu.Lock()
			sh := files[h.key]
			sh.refs--
			last := sh.refs == 0
			if last {
				delete(files, h.key)
			}
			tableMu.Unlock()
			if !last {
				return // other handles still read it
			}
		}
		err = h.s.Close()
	}()
	return finish(err, cerr)
}

//export fs_info_get
func fs_info_get(store C.fs_store, info *C.fs_info, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if info == nil {
			return null("info")
		}
		in := s.Info()
		*info = C.fs_info{
			width: C.int32_t(in.Width), height: C.int32_t(in.Height),
			cell_x_m: C.double(in.DxM), cell_y_m: C.double(in.DyM),
			georeferenced: cbool(in.HasGeoTransform), has_crs: cbool(in.HasGeoTransform && in.CRS != ""),
			stored_bytes: C.int64_t(in.StoredBytes), hidden_kept: C.double(in.HiddenKept),
		}
		return nil
	}), cerr)
}

func cbool(b bool) C.int32_t {
	if b {
		return 1
	}
	return 0
}

//export fs_frontier
func fs_frontier(store C.fs_store, colA, rowA, colB, rowB C.int32_t, copt *C.fs_options, res *C.fs_frontier_result, out *C.fs_frontier_out, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if res == nil {
			return null("res")
		}
		var opt grow.Options
		if copt != nil {
			if copt.max_steps < -1 || copt.lossy < 0 || copt.lossy > 1 || copt.simple < 0 || copt.simple > 1 {
				return fail(C.FS_EINVAL, "options lossy=%d simple=%d max_steps=%d: want 0 or 1, 0 or 1, -1 to 2147483647", copt.lossy, copt.simple, copt.max_steps)
			}
			if copt.lossy == 1 {
				opt.Merge = quadpvs.Lossy
			}
			if copt.simple == 1 {
				opt.Method = grow.Simple
			}
			opt.MaxSteps = int(copt.max_steps)
		}
		if err := checkCell(s, colA, rowA); err != nil {
			return err
		}
		if err := checkCell(s, colB, rowB); err != nil {
			return err
		}
		r, err := s.Frontier([2]int{int(colA), int(rowA)}, [2]int{int(colB), int(rowB)}, opt)
		if err != nil {
			return err
		}
		*res = C.fs_frontier_result{
			mutually_visible: cbool(r.MutuallyVisible),
			a_points:         C.int64_t(r.A.Points), b_points: C.int64_t(r.B.Points),
			a_quads: C.int32_t(len(r.A.Quads)), b_quads: C.int32_t(len(r.B.Quads)),
			steps: C.int32_t(r.Steps), truncated: cbool(r.Truncated),
			elapsed_ms: C.double(r.Elapsed.Seconds() * 1e3),
		}
		if out == nil {
			return nil
		}
		if out.quads_a != nil && int(out.quads_a_cap) < len(r.A.Quads) || out.quads_b != nil && int(out.quads_b_cap) < len(r.B.Quads) {
			return fail(C.FS_ESPACE, "quad buffers of %d and %d for frontiers of %d and %d quads", out.quads_a_cap, out.quads_b_cap, len(r.A.Quads), len(r.B.Quads))
		}
		w, h := s.Size()
		n := int64(w) * int64(h)
		if (out.mask_a != nil || out.mask_b != nil) && int64(out.mask_len) != n {
			return fail(C.FS_ESPACE, "masks of %d bytes for a %d×%d grid: want %d", out.mask_len, w, h, n)
		}
		for k, f := range []*grow.Frontier{&r.A, &r.B} {
			qp, qcap, mp := out.quads_a, out.quads_a_cap, out.mask_a
			if k == 1 {
				qp, qcap, mp = out.quads_b, out.quads_b_cap, out.mask_b
			}
			if qp != nil {
				// SAFETY: the caller's buffer holds qcap fs_quads (checked ≥ len above).
				dst := unsafe.Slice(qp, int(qcap))
				for i, q := range f.Quads {
					dst[i] = C.fs_quad{col: C.int32_t(q.Col()), row: C.int32_t(q.Row()), size: C.int32_t(q.Size())}
				}
			}
			if mp != nil {
				// SAFETY: the caller's mask holds mask_len = Width·Height bytes (checked above).
				m := unsafe.Slice((*byte)(unsafe.Pointer(mp)), n)
				clear(m)
				for _, q := range f.Quads {
					for row := q.Row(); row < min(q.Row()+q.Size(), h); row++ {
						for col := q.Col(); col < min(q.Col()+q.Size(), w); col++ {
							m[row*w+col] = 1
						}
					}
				}
			}
		}
		return nil
	}), cerr)
}

//export fs_pvs
func fs_pvs(store C.fs_store, col, row C.int32_t, mask *C.uint8_t, maskLen C.int64_t, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if mask == nil {
			return null("mask")
		}
		if err := checkCell(s, col, row); err != nil {
			return err
		}
		w, h := s.Size()
		n := int64(w) * int64(h)
		if int64(maskLen) != n {
			return fail(C.FS_ESPACE, "a mask of %d bytes for a %d×%d grid: want %d", maskLen, w, h, n)
		}
		// SAFETY: the caller's mask holds maskLen = Width·Height bytes
		// (checked above); Store.PVS writes exactly that many.
		m := unsafe.Slice((*byte)(unsafe.Pointer(mask)), n)
		_, err := s.PVS(int(col), int(row), m[:0])
		return err
	}), cerr)
}

//export fs_cell_to_map
func fs_cell_to_map(store C.fs_store, col, row C.int32_t, x, y *C.double, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if x == nil || y == nil {
			return null("x or y")
		}
		if err := checkCell(s, col, row); err != nil {
			return err
		}
		mx, my, err := s.CellToMap(int(col), int(row))
		*x, *y = C.double(mx), C.double(my)
		return err
	}), cerr)
}

//export fs_map_to_cell
func fs_map_to_cell(store C.fs_store, x, y C.double, col, row *C.int32_t, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if col == nil || row == nil {
			return null("col or row")
		}
		c, r, err := s.MapToCell(float64(x), float64(y))
		if err != nil {
			return err
		}
		*col, *row = C.int32_t(c), C.int32_t(r)
		return nil
	}), cerr)
}

//export fs_position_to_cell
func fs_position_to_cell(store C.fs_store, x, y C.double, col, row *C.int32_t, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if col == nil || row == nil {
			return null("col or row")
		}
		c, r, err := s.PositionCell(float64(x), float64(y))
		if err != nil {
			return fail(C.FS_ERANGE, "%v", err)
		}
		*col, *row = C.int32_t(c), C.int32_t(r)
		return nil
	}), cerr)
}

//export fs_world_to_position
func fs_world_to_position(store C.fs_store, a, b C.double, x, y *C.double, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if x == nil || y == nil {
			return null("x or y")
		}
		px, py, err := s.WorldToPosition(float64(a), float64(b))
		if err != nil {
			return err
		}
		*x, *y = C.double(px), C.double(py)
		return nil
	}), cerr)
}

//export fs_cell_to_world
func fs_cell_to_world(store C.fs_store, col, row C.int32_t, a, b *C.double, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if a == nil || b == nil {
			return null("a or b")
		}
		if err := checkCell(s, col, row); err != nil {
			return err
		}
		wa, wb, err := s.CellToWorld(int(col), int(row))
		if err != nil {
			return err
		}
		*a, *b = C.double(wa), C.double(wb)
		return nil
	}), cerr)
}

//export fs_cell_to_lonlat
func fs_cell_to_lonlat(store C.fs_store, col, row C.int32_t, lon, lat *C.double, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if lon == nil || lat == nil {
			return null("lon or lat")
		}
		if err := checkCell(s, col, row); err != nil {
			return err
		}
		a, b, err := s.CellToLonLat(int(col), int(row))
		*lon, *lat = C.double(a), C.double(b)
		return err
	}), cerr)
}

//export fs_lonlat_to_cell
func fs_lonlat_to_cell(store C.fs_store, lon, lat C.double, col, row *C.int32_t, cerr *C.fs_error) C.int {
	return finish(use(store, func(s *frontiersets.Store) error {
		if col == nil || row == nil {
			return null("col or row")
		}
		if !(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90) {
			return fail(C.FS_ERANGE, "lon/lat %.6g,%.6g: want longitude −180 to 180 and latitude −90 to 90 degrees", float64(lon), float64(lat))
		}
		c, r, err := s.LonLatToCell(float64(lon), float64(lat))
		if err != nil {
			return err
		}
		*col, *row = C.int32_t(c), C.int32_t(r)
		return nil
	}), cerr)
}
