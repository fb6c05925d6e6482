"""Read PVS stores baked by `pvsbake bake`: frontier sets of two players,
one cell's potentially visible set, cumulative viewsheds, and conversions
between cells, map coordinates, longitude/latitude and game-engine world
positions, and interest management for a whole match (store.interest).

Cells are (col, row) tuples on the store's grid, 0-based from its top-left
corner; masks are numpy arrays of shape (height, width), indexed
[row, col]. Map coordinates are in the store's CRS units; longitude and
latitude in degrees on WGS 84.

    import frontiersets
    with frontiersets.open("mw64.pvs") as store:
        res = store.frontier((2, 2), (45, 37))
        print(res.mutually_visible, res.a_points, res.b_points)

A Store is safe to use from many threads. Errors raise OSError (a file
that cannot be read), ValueError (a bad argument, a cell off the grid, a
corrupt store) or RuntimeError, each with the library's one-line message.
"""

from ._lib import Frontier, Interest, Store, Tick, open  # noqa: F401

__all__ = ["open", "Store", "Frontier", "Interest", "Tick"]
