/*
 * frontiersets.h — the C interface of libfrontiersets: read a PVS store
 * baked by `pvsbake bake`, ask it for frontier sets and PVSs, and convert
 * between cells, map coordinates and longitude/latitude.
 *
 * Build: `make lib` writes build/libfrontiersets.so and this header as
 * build/frontiersets.h. Link with -Lbuild -lfrontiersets; the library needs
 * libc alone (longitude/latitude come from the lattice a store records; a
 * store baked before stores recorded one answers FS_ENOGEO for them).
 *
 * Conventions
 *  - Cells are (col, row) on the store's grid, 0-based from its top-left
 *    corner; every mask is width*height bytes, row-major: mask[row*width+col].
 *  - Map coordinates are in the store's CRS units (x easting, y northing);
 *    longitude and latitude are degrees on WGS 84.
 *  - Every function returns FS_OK (0) or an error code, and when err is not
 *    NULL writes a one-line message into err->message (NUL-terminated,
 *    truncated to fit). Nothing is written to outputs on error unless said.
 *  - Ownership: the library never keeps a caller's pointer after a call
 *    returns and never hands out memory of its own: every output goes into
 *    a buffer the caller owns. A store is an integer handle, not a pointer.
 *  - Threads: every function is safe to call from many threads at once, on
 *    the same store or on different ones. fs_close waits for the calls in
 *    progress on that store; calls after it return FS_EHANDLE.
 */
#ifndef FRONTIERSETS_H
#define FRONTIERSETS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes. */
#define FS_OK 0
#define FS_EINVAL 1    /* a NULL pointer where one is needed, or a bad option */
#define FS_EHANDLE 2   /* an unknown or closed store handle */
#define FS_ERANGE 3    /* a cell or point outside the grid, or on nodata */
#define FS_EIO 4       /* the file cannot be opened or read */
#define FS_EFORMAT 5   /* not a store, or a corrupt one (the message gives the byte offset) */
#define FS_ESPACE 6    /* an output buffer too small: the result says the size needed */
#define FS_ENOGEO 7    /* the store has no georeferencing, CRS or engine frame for that conversion */
#define FS_EINTERNAL 8 /* a failure of the library itself: please report it */

/* A store handle: > 0 when open. */
typedef int64_t fs_store;

/* An error's message, filled when a function fails. */
typedef struct {
	char message[256];
} fs_error;

/* What fs_info tells of a store. */
typedef struct {
	int32_t width, height;    /* grid size in cells */
	double cell_x_m, cell_y_m; /* cell spacing in metres */
	int32_t georeferenced;    /* 1 when map coordinates are known */
	int32_t has_crs;          /* 1 when longitude/latitude can be converted */
	int64_t stored_bytes;     /* the PVSs' bytes in the file */
	double hidden_kept;       /* fraction of the uncapped PVSs' hidden cells the store keeps */
} fs_info;

/* Options of a frontier query; NULL means all zero. */
typedef struct {
	int32_t lossy;     /* 0: lossless merges (thesis §3.3), 1: lossy (faster, smaller regions) */
	int32_t simple;    /* 0: hierarchical growing (§3.5), 1: point by point */
	int32_t max_steps; /* quads considered at most: 0 the default, 125, which keeps every
	                      query within milliseconds; -1 no bound (res->truncated says
	                      when the bound stopped the growth) */
} fs_options;

/* One quad of a frontier: cells [col, col+size) x [row, row+size), clipped
 * to the grid. */
typedef struct {
	int32_t col, row, size;
} fs_quad;

/* Caller-owned outputs of fs_frontier; any pointer may be NULL. */
typedef struct {
	fs_quad *quads_a; /* A's quads, a_quads of them, sorted by Morton order */
	int32_t quads_a_cap;
	fs_quad *quads_b;
	int32_t quads_b_cap;
	uint8_t *mask_a; /* width*height bytes: 1 in A's region, 0 elsewhere */
	uint8_t *mask_b;
	int64_t mask_len; /* bytes in each mask: width*height */
} fs_frontier_out;

/* The result of fs_frontier. */
typedef struct {
	int32_t mutually_visible; /* 1: the players see each other; no frontier set */
	int64_t a_points, b_points; /* terrain cells in each region */
	int32_t a_quads, b_quads;   /* quads in each region (the buffers' needed size) */
	int32_t steps;              /* quads considered */
	int32_t truncated;          /* 1 when max_steps stopped the growth */
	double elapsed_ms;
} fs_frontier_result;

/* Cell values of fs_pvs's mask. */
#define FS_HIDDEN 0
#define FS_UNKNOWN 128 /* reserved: stored PVSs hold visible and hidden cells only (the cap's dropped cells are visible) */
#define FS_VISIBLE 255

/* An interest manager (fs_interest_new), and what one tick decided. */
typedef int64_t fs_interest;

typedef struct {
	int32_t exits;   /* players whose cell left their side (first tick: all) */
	int32_t open;    /* pairs exchanging updates after the tick */
	int64_t packets; /* packets of the tick on the wire (coordinator and peers) */
} fs_tick_result;

#ifndef FS_NO_PROTOTYPES /* the library's own build declares them itself */

/* Opens the store file at path; *store receives its handle. */
int fs_open(const char *path, fs_store *store, fs_error *err);

/* Closes a store, after the calls in progress on it return. */
int fs_close(fs_store store, fs_error *err);

/* Describes a store. */
int fs_info_get(fs_store store, fs_info *info, fs_error *err);

/* Grows the frontier set of players at cells A and B into *res and the
 * buffers of out (may be NULL). Players who see each other, and players in
 * one cell, get res->mutually_visible = 1 and no regions (FS_OK). When a
 * quad buffer is too small it returns
 * FS_ESPACE with *res filled (a_quads, b_quads give the sizes needed) and
 * no quads written. */
int fs_frontier(fs_store store, int32_t col_a, int32_t row_a, int32_t col_b, int32_t row_b,
                const fs_options *opt, fs_frontier_result *res, const fs_frontier_out *out, fs_error *err);

/* Writes the stored PVS of cell (col, row) into mask (mask_len must be
 * width*height bytes): FS_VISIBLE, FS_UNKNOWN or FS_HIDDEN per cell. */
int fs_pvs(fs_store store, int32_t col, int32_t row, uint8_t *mask, int64_t mask_len, fs_error *err);

/* Cell centre <-> map coordinates (CRS units). */
int fs_cell_to_map(fs_store store, int32_t col, int32_t row, double *x, double *y, fs_error *err);
int fs_map_to_cell(fs_store store, double x, double y, int32_t *col, int32_t *row, fs_error *err);

/* The cell whose square holds position (x, y) in fractional cells
 * (column, row; sample (c, r) at (c, r)): the nearest sample. A store of
 * the region model keeps its frontier guarantee for every position in its
 * cells' squares, the point models' for the samples alone. FS_ERANGE
 * outside the grid. */
int fs_position_to_cell(fs_store store, double x, double y, int32_t *col, int32_t *row, fs_error *err);

/* A game engine's world position (a, b) on its horizontal axes, in its
 * units — Unity x, z in metres; Unreal X, Y in centimetres — of a store
 * baked with pvsbake bake --engine: the position in fractional cells (as
 * fs_position_to_cell takes it), and a cell centre's world position.
 * FS_ENOGEO for a store without an engine frame, FS_ERANGE off the
 * terrain (the message gives its world bounds). */
int fs_world_to_position(fs_store store, double a, double b, double *x, double *y, fs_error *err);
int fs_cell_to_world(fs_store store, int32_t col, int32_t row, double *a, double *b, fs_error *err);

/* Interest management for a whole match: the joint frontier (scheme GQ,
 * the Go package's interest.Joint) of n players on a store. Each tick
 * takes every player's position in fractional cells (positions[2i],
 * positions[2i+1]: column and row, as fs_position_to_cell takes them;
 * fs_world_to_position converts world positions) and decides which
 * players must send their updates to which: fs_interest_sends_to lists
 * the players player i sends to this tick (an open pair where the
 * receiver may see i); every other pair is silent or out of sight. A
 * manager keeps its store open: fs_close refuses a store with managers
 * (FS_EINVAL) until they are freed. Not safe for concurrent use: one
 * manager per thread. */
int fs_interest_new(fs_store store, int32_t players, fs_interest *im, fs_error *err);
int fs_interest_free(fs_interest im, fs_error *err);
/* A player joins (*player: its index, the count before) or leaves (the
 * last player takes index player). The manager then starts over: its next
 * tick decides every player afresh, as a first tick does. */
int fs_interest_add(fs_interest im, int32_t *player, fs_error *err);
int fs_interest_remove(fs_interest im, int32_t player, fs_error *err);
int fs_interest_tick(fs_interest im, const double *positions, int32_t players, fs_tick_result *res, fs_error *err);
/* fs_interest_tick with world positions (a, b) in the engine's units and
 * axes, for a store baked with --engine (fs_world_to_position). */
int fs_interest_tick_world(fs_interest im, const double *world, int32_t players, fs_tick_result *res, fs_error *err);
/* Writes into to[0..cap) the players that player i sends its updates to
 * this tick, in increasing order, and their count into *n (FS_ESPACE with
 * *n set when cap is too small). */
int fs_interest_sends_to(fs_interest im, int32_t i, int32_t *to, int32_t cap, int32_t *n, fs_error *err);

/* Cell centre <-> longitude/latitude (degrees, WGS 84). */
int fs_cell_to_lonlat(fs_store store, int32_t col, int32_t row, double *lon, double *lat, fs_error *err);
int fs_lonlat_to_cell(fs_store store, double lon, double lat, int32_t *col, int32_t *row, fs_error *err);

#endif /* FS_NO_PROTOTYPES */

#ifdef __cplusplus
}
#endif

#endif /* FRONTIERSETS_H */
