"""ctypes binding of libfrontiersets.so (frontiersets.h)."""

import ctypes
import math
import os
import weakref
from dataclasses import dataclass

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
_lib = ctypes.CDLL(os.environ.get("FRONTIERSETS_LIB", os.path.join(_here, "libfrontiersets.so")))

FS_OK, FS_EINVAL, FS_EHANDLE, FS_ERANGE, FS_EIO, FS_EFORMAT, FS_ESPACE, FS_ENOGEO, FS_EINTERNAL = range(9)
HIDDEN, UNKNOWN, VISIBLE = 0, 128, 255

_i32, _i64, _f64 = ctypes.c_int32, ctypes.c_int64, ctypes.c_double


class _Error(ctypes.Structure):
    _fields_ = [("message", ctypes.c_char * 256)]


class _Info(ctypes.Structure):
    _fields_ = [("width", _i32), ("height", _i32), ("cell_x_m", _f64), ("cell_y_m", _f64),
                ("georeferenced", _i32), ("has_crs", _i32), ("stored_bytes", _i64), ("hidden_kept", _f64)]


class _Options(ctypes.Structure):
    _fields_ = [("lossy", _i32), ("simple", _i32), ("max_steps", _i32)]


class _Quad(ctypes.Structure):
    _fields_ = [("col", _i32), ("row", _i32), ("size", _i32)]


class _Out(ctypes.Structure):
    _fields_ = [("quads_a", ctypes.POINTER(_Quad)), ("quads_a_cap", _i32),
                ("quads_b", ctypes.POINTER(_Quad)), ("quads_b_cap", _i32),
                ("mask_a", ctypes.c_void_p), ("mask_b", ctypes.c_void_p), ("mask_len", _i64)]


class _Result(ctypes.Structure):
    _fields_ = [("mutually_visible", _i32), ("a_points", _i64), ("b_points", _i64),
                ("a_quads", _i32), ("b_quads", _i32), ("steps", _i32), ("truncated", _i32),
                ("elapsed_ms", _f64)]


class _TickResult(ctypes.Structure):
    _fields_ = [("exits", _i32), ("open", _i32), ("packets", _i64)]


_P = ctypes.POINTER
_sigs = {
    "fs_open": [ctypes.c_char_p, _P(_i64), _P(_Error)],
    "fs_close": [_i64, _P(_Error)],
    "fs_info_get": [_i64, _P(_Info), _P(_Error)],
    "fs_frontier": [_i64, _i32, _i32, _i32, _i32, _P(_Options), _P(_Result), _P(_Out), _P(_Error)],
    "fs_pvs": [_i64, _i32, _i32, ctypes.c_void_p, _i64, _P(_Error)],
    "fs_cell_to_map": [_i64, _i32, _i32, _P(_f64), _P(_f64), _P(_Error)],
    "fs_map_to_cell": [_i64, _f64, _f64, _P(_i32), _P(_i32), _P(_Error)],
    "fs_position_to_cell": [_i64, _f64, _f64, _P(_i32), _P(_i32), _P(_Error)],
    "fs_world_to_position": [_i64, _f64, _f64, _P(_f64), _P(_f64), _P(_Error)],
    "fs_interest_new": [_i64, _i32, _P(_i64), _P(_Error)],
    "fs_interest_free": [_i64, _P(_Error)],
    "fs_interest_tick_world": [_i64, _P(_f64), _i32, _P(_TickResult), _P(_Error)],
    "fs_interest_add": [_i64, _P(_i32), _P(_Error)],
    "fs_interest_remove": [_i64, _i32, _P(_Error)],
    "fs_interest_tick": [_i64, _P(_f64), _i32, _P(_TickResult), _P(_Error)],
    "fs_interest_sends_to": [_i64, _i32, _P(_i32), _i32, _P(_i32), _P(_Error)],
    "fs_cell_to_world": [_i64, _i32, _i32, _P(_f64), _P(_f64), _P(_Error)],
    "fs_cell_to_lonlat": [_i64, _i32, _i32, _P(_f64), _P(_f64), _P(_Error)],
    "fs_lonlat_to_cell": [_i64, _f64, _f64, _P(_i32), _P(_i32), _P(_Error)],
}
for _name, _args in _sigs.items():
    _f = getattr(_lib, _name)
    _f.argtypes, _f.restype = _args, ctypes.c_int


MAX_STEPS = 1_000_000_000  # frontierq --max-steps's bound


def _check(rc, err):
    if rc == FS_OK:
        return
    msg = err.message.decode("utf-8", "replace")
    if rc == FS_EIO:
        raise OSError(msg)
    if rc == FS_EINTERNAL:
        raise RuntimeError(msg)
    raise ValueError(msg)


def _cell(c, what):
    """A (col, row) cell; a pair of floats is a position in fractional cells
    and names the cell whose square holds it (the nearest sample, halves
    rounding up), as the library's fs_position_to_cell does."""
    try:
        col, row = c
        col, row = math.floor(col + 0.5), math.floor(row + 0.5)
    except (TypeError, ValueError, OverflowError):  # floor(inf) overflows, floor(nan) is a ValueError
        raise ValueError(f"{what} {c!r}: want a (col, row) pair of cells or fractional positions") from None
    if not (-(2**31) <= col < 2**31 and -(2**31) <= row < 2**31):
        raise ValueError(f"{what} {c!r} is outside the grid")
    return col, row


def _int32(v, what):
    """v as a C int32, refused (ValueError) unless an int (not a bool)
    within its range: ctypes would wrap 2**32 to 0."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{what} {v!r}: want an int")
    v = int(v)
    if not -(2**31) <= v < 2**31:
        raise ValueError(f"{what} {v}: out of range")
    return v


@dataclass
class Frontier:
    """A frontier set: two regions, one around each player, such that no
    cell of one sees any cell of the other (thesis §3.5). When the players
    see each other, mutually_visible is True and the regions are empty.

    a_quads and b_quads are int32 arrays of shape (n, 3): col, row, size
    (cells) of each quad; a_mask and b_mask are uint8 arrays of shape
    (height, width), 1 inside the region."""

    mutually_visible: bool
    a_points: int
    b_points: int
    a_quads: np.ndarray
    b_quads: np.ndarray
    a_mask: np.ndarray
    b_mask: np.ndarray
    steps: int
    truncated: bool
    elapsed_ms: float


class _Closing:
    """A handle closed by close(), at the end of a with block, or when
    collected."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Store(_Closing):
    """An open PVS store. Use frontiersets.open(path); close it (or use it
    in a with block) to release the file."""

    def __init__(self, path):
        err = _Error()
        h = _i64()
        name = os.fsencode(path)
        if b"\0" in name:  # C would read the path only up to it
            raise ValueError(f"path {path!r} holds a NUL byte")
        _check(_lib.fs_open(name, ctypes.byref(h), ctypes.byref(err)), err)
        self._h = h.value
        info = _Info()
        _check(_lib.fs_info_get(self._h, ctypes.byref(info), ctypes.byref(err)), err)
        self.width, self.height = info.width, info.height
        self.cell_size_m = (info.cell_x_m, info.cell_y_m)
        self.georeferenced = bool(info.georeferenced)
        self.has_crs = bool(info.has_crs)
        self.hidden_kept = info.hidden_kept
        self._managers = weakref.WeakSet()

    def close(self):
        """Closes the store, and first the interest managers made on it
        (later calls of either raise ValueError), as a with block's end
        does."""
        if self._h:
            for m in list(self._managers):
                m.close()
            err = _Error()
            _check(_lib.fs_close(self._h, ctypes.byref(err)), err)
            self._h = 0

    def interest(self, players):
        """An interest manager (the joint frontier, scheme GQ) for a match
        of players players on this store; see Interest. Closing the store
        closes it."""
        m = Interest(self, players)
        self._managers.add(m)
        return m

    def frontier(self, a, b, lossy=False, max_steps=0, simple=False):
        """The frontier set of players at cells a and b ((col, row) each;
        fractional for positions inside cells).
        lossy: lossy merges (faster, smaller regions); max_steps: the quads
        considered at most (0: the default, 125, which keeps every query
        within milliseconds; -1: no bound; the result's truncated says when
        the bound stopped the growth); simple: grow point by point instead
        of over the quad hierarchy."""
        (ca, ra), (cb, rb) = _cell(a, "cell a"), _cell(b, "cell b")
        try:
            steps = int(max_steps)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"max_steps {max_steps!r}: want an integer") from None
        if not -1 <= steps <= MAX_STEPS:  # the C field is 32 bits: never wrap
            raise ValueError(f"max_steps {max_steps}: want 0 (the default bound), -1 (no bound) or up to {MAX_STEPS}")
        opt = _Options(1 if lossy else 0, 1 if simple else 0, steps)
        res, err = _Result(), _Error()
        _check(_lib.fs_frontier(self._h, ca, ra, cb, rb, ctypes.byref(opt), ctypes.byref(res), None, ctypes.byref(err)), err)
        qa = np.zeros((max(res.a_quads, 1), 3), dtype=np.int32)
        qb = np.zeros((max(res.b_quads, 1), 3), dtype=np.int32)
        ma = np.zeros((self.height, self.width), dtype=np.uint8)
        mb = np.zeros((self.height, self.width), dtype=np.uint8)
        out = _Out(qa.ctypes.data_as(_P(_Quad)), qa.shape[0], qb.ctypes.data_as(_P(_Quad)), qb.shape[0],
                   ma.ctypes.data, mb.ctypes.data, ma.size)
        _check(_lib.fs_frontier(self._h, ca, ra, cb, rb, ctypes.byref(opt), ctypes.byref(res), ctypes.byref(out), ctypes.byref(err)), err)
        return Frontier(bool(res.mutually_visible), res.a_points, res.b_points,
                        qa[:res.a_quads], qb[:res.b_quads], ma, mb, res.steps, bool(res.truncated), res.elapsed_ms)

    def pvs(self, cell):
        """The stored PVS of a cell as a uint8 array of shape (height,
        width): 255 visible (or possibly visible: hidden cells the cap
        dropped), 0 hidden; 128 (UNKNOWN) is reserved, never stored."""
        col, row = _cell(cell, "cell")
        m = np.empty((self.height, self.width), dtype=np.uint8)
        err = _Error()
        _check(_lib.fs_pvs(self._h, col, row, m.ctypes.data, m.size, ctypes.byref(err)), err)
        return m

    def cumulative(self, observers, mode="count"):
        """How many of the observers (an iterable of (col, row)) may see
        each cell, as a uint32 array of shape (height, width); mode "any"
        or "all" gives a bool array instead."""
        if mode not in ("count", "any", "all"):
            raise ValueError(f"mode {mode!r}: want count, any or all")
        counts = np.zeros((self.height, self.width), dtype=np.uint32)
        n = 0
        for o in observers:
            counts += self.pvs(o) != HIDDEN
            n += 1
        if mode == "any":
            return counts > 0
        if mode == "all":
            return counts == n
        return counts

    def cell_to_map(self, cell):
        """Map coordinates (CRS units) of a cell's centre."""
        col, row = _cell(cell, "cell")
        x, y, err = _f64(), _f64(), _Error()
        _check(_lib.fs_cell_to_map(self._h, col, row, ctypes.byref(x), ctypes.byref(y), ctypes.byref(err)), err)
        return x.value, y.value

    def map_to_cell(self, x, y):
        """The cell holding map point (x, y)."""
        c, r, err = _i32(), _i32(), _Error()
        _check(_lib.fs_map_to_cell(self._h, float(x), float(y), ctypes.byref(c), ctypes.byref(r), ctypes.byref(err)), err)
        return c.value, r.value

    def position_to_cell(self, x, y):
        """The cell whose square holds position (x, y) in fractional cells
        (sample (c, r) at (c, r)). A store of the region model keeps its
        frontier guarantee for every position in its cells' squares."""
        c, r, err = _i32(), _i32(), _Error()
        _check(_lib.fs_position_to_cell(self._h, float(x), float(y), ctypes.byref(c), ctypes.byref(r), ctypes.byref(err)), err)
        return c.value, r.value

    def world_to_position(self, a, b):
        """The position in fractional cells (as frontier and
        position_to_cell take it) of world position (a, b) in the game
        engine's units and horizontal axes the store was baked with
        (pvsbake bake --engine: Unity x, z in metres; Unreal X, Y in
        centimetres). ValueError off the terrain or without a frame."""
        x, y, err = _f64(), _f64(), _Error()
        _check(_lib.fs_world_to_position(self._h, float(a), float(b), ctypes.byref(x), ctypes.byref(y), ctypes.byref(err)), err)
        return x.value, y.value

    def cell_to_world(self, cell):
        """World position (engine units and axes) of a cell's centre."""
        col, row = _cell(cell, "cell")
        a, b, err = _f64(), _f64(), _Error()
        _check(_lib.fs_cell_to_world(self._h, col, row, ctypes.byref(a), ctypes.byref(b), ctypes.byref(err)), err)
        return a.value, b.value

    def cell_to_lonlat(self, cell):
        """Longitude and latitude (degrees, WGS 84) of a cell's centre."""
        col, row = _cell(cell, "cell")
        lon, lat, err = _f64(), _f64(), _Error()
        _check(_lib.fs_cell_to_lonlat(self._h, col, row, ctypes.byref(lon), ctypes.byref(lat), ctypes.byref(err)), err)
        return lon.value, lat.value

    def lonlat_to_cell(self, lon, lat):
        """The cell holding the point at longitude lon, latitude lat."""
        c, r, err = _i32(), _i32(), _Error()
        _check(_lib.fs_lonlat_to_cell(self._h, float(lon), float(lat), ctypes.byref(c), ctypes.byref(r), ctypes.byref(err)), err)
        return c.value, r.value


@dataclass
class Tick:
    exits: int    # players whose cell left their side (first tick: all)
    open: int     # pairs exchanging updates after the tick
    packets: int  # packets of the tick on the wire


class Interest(_Closing):
    """Interest management for a whole match: which players must send
    their updates to which, tick by tick (the Go package's interest.Joint,
    scheme GQ). Not safe for concurrent use: one manager per thread.
    Close it (or use a with block) before closing its store."""

    def __init__(self, store, players):
        err = _Error()
        h = _i64()
        self._h = 0
        players = _int32(players, "players")
        _check(_lib.fs_interest_new(store._h, players, ctypes.byref(h), ctypes.byref(err)), err)
        self._h, self.players = h.value, players
        self._to = (_i32 * players)()

    def tick(self, positions, world=False):
        """Advances one tick: positions holds every player's (col, row) in
        fractional cells, or with world=True its world position (a, b) in
        the engine's units and axes (a store baked with --engine), as a
        sequence of pairs or an (n, 2) array."""
        xy = np.ascontiguousarray(np.asarray(positions, dtype=np.float64).reshape(-1, 2))
        if xy.shape[0] != self.players:
            raise ValueError(f"{xy.shape[0]} positions for {self.players} players")
        res, err = _TickResult(), _Error()
        f = _lib.fs_interest_tick_world if world else _lib.fs_interest_tick
        _check(f(self._h, xy.ctypes.data_as(_P(_f64)), self.players, ctypes.byref(res), ctypes.byref(err)), err)
        return Tick(res.exits, res.open, res.packets)

    def sends_to(self, i):
        """The players player i sends its updates to after the last tick,
        in increasing order."""
        n, err = _i32(), _Error()
        _check(_lib.fs_interest_sends_to(self._h, _int32(i, "player"), self._to, self.players, ctypes.byref(n), ctypes.byref(err)), err)
        return list(self._to[:n.value])

    def add(self):
        """A player joins; returns its index (the count before). The
        manager starts over: the next tick decides every player afresh."""
        p, err = _i32(), _Error()
        _check(_lib.fs_interest_add(self._h, ctypes.byref(p), ctypes.byref(err)), err)
        self.players += 1
        self._to = (_i32 * self.players)()
        return p.value

    def remove(self, i):
        """Player i leaves; the last player takes index i. The manager
        starts over, as after add."""
        err = _Error()
        _check(_lib.fs_interest_remove(self._h, _int32(i, "player"), ctypes.byref(err)), err)
        self.players -= 1

    def close(self):
        if self._h:
            err = _Error()
            h, self._h = self._h, 0
            _check(_lib.fs_interest_free(h, ctypes.byref(err)), err)


def open(path):  # noqa: A001 - the package's entry point, as in the docs
    """Opens the store at path. Raises OSError or ValueError."""
    return Store(path)
