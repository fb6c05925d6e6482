/*
 * frontiersets_gdnative.c — the GDNative library of the Godot addon: a
 * NativeScript class, FrontierSetsNative (a Reference), over the C
 * library (frontiersets.h): open a store baked with pvsbake bake
 * --engine godot, frontier queries and the interest manager with world
 * positions (x, z metres). addons/frontiersets/frontiersets.gd wraps it
 * for GDScript. Every failure is reported as a Godot error (shown in the
 * console and the debugger, with the library's one-line message) and
 * returned as an error code; nothing crashes the engine.
 *
 * Build (make godot-addon): cc -shared -fPIC -Ibuild this file
 * -Lbuild -lfrontiersets -Wl,-rpath,'$ORIGIN'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontiersets.h"
#include "godot_abi.h"

static const gd_core_api *api;
static const gd_nativescript_api *ns;

#define CALL(T, i) ((T)api->fn[i])

/* One object: a store, perhaps a manager, its buffers and last error. */
typedef struct {
	fs_store store;
	fs_interest im;
	int32_t players;
	double *world;
	int32_t *to;
	fs_tick_result last;
	char err[256];
} instance;

static gd_variant nil(void) {
	gd_variant v;
	CALL(gd_variant_new_nil_fn, GD_VARIANT_NEW_NIL)(&v);
	return v;
}

static gd_variant integer(int64_t i) {
	gd_variant v;
	CALL(gd_variant_new_int_fn, GD_VARIANT_NEW_INT)(&v, i);
	return v;
}

static gd_variant real(double r) {
	gd_variant v;
	CALL(gd_variant_new_real_fn, GD_VARIANT_NEW_REAL)(&v, r);
	return v;
}

/* ints returns n int32s as a PoolIntArray Variant. */
static gd_variant ints(const int32_t *v, int32_t n) {
	gd_pool_int_array arr;
	CALL(gd_pool_int_array_new_fn, GD_POOL_INT_ARRAY_NEW)(&arr);
	CALL(gd_pool_int_array_resize_fn, GD_POOL_INT_ARRAY_RESIZE)(&arr, n);
	for (int32_t i = 0; i < n; i++) CALL(gd_pool_int_array_set_fn, GD_POOL_INT_ARRAY_SET)(&arr, i, v[i]);
	gd_variant r;
	CALL(gd_variant_new_pool_int_array_fn, GD_VARIANT_NEW_POOL_INT_ARRAY)(&r, &arr);
	CALL(gd_pool_int_array_destroy_fn, GD_POOL_INT_ARRAY_DESTROY)(&arr);
	return r;
}

/* fail_at records msg as the object's last error, reports it as a Godot
 * error naming the method and the line of this file that found it, and
 * returns the code as a Variant; fail() gives the line. */
static gd_variant fail_at(instance *o, const char *method, int code, const char *msg, int line) {
	snprintf(o->err, sizeof o->err, "FrontierSets.%s: %s", method, msg);
	CALL(gd_print_error_fn, GD_PRINT_ERROR)(o->err, method, "frontiersets_gdnative.c", line);
	return integer(code);
}

#define fail(o, method, code, msg) fail_at((o), (method), (code), (msg), __LINE__)

/* args checks the count and types of a call's arguments. */
static int args(instance *o, const char *method, int n, gd_variant **a, int want, const int *types) {
	if (n != want) {
		char m[96];
		snprintf(m, sizeof m, "%d arguments, want %d", n, want);
		fail(o, method, FS_EINVAL, m);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		int t = CALL(gd_variant_get_type_fn, GD_VARIANT_GET_TYPE)(a[i]);
		if (t != types[i] && !(types[i] == GD_TYPE_REAL && t == GD_TYPE_INT)) {
			char m[96];
			snprintf(m, sizeof m, "argument %d has Variant type %d, want %d", i + 1, t, types[i]);
			fail(o, method, FS_EINVAL, m);
			return 0;
		}
	}
	return 1;
}

static void *create(gd_object *obj, void *data) {
	(void)obj;
	(void)data;
	return calloc(1, sizeof(instance));
}

static void release_manager(instance *o) {
	if (o->im) fs_interest_free(o->im, NULL);
	free(o->world);
	free(o->to);
	o->im = 0;
	o->world = NULL;
	o->to = NULL;
	o->players = 0;
}

static void destroy(gd_object *obj, void *data, void *user) {
	(void)obj;
	(void)data;
	instance *o = user;
	release_manager(o);
	if (o->store) fs_close(o->store, NULL);
	free(o);
}

/* open(path: String) -> int: 0, or an FS_ error code. */
static gd_variant m_open(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_STRING};
	if (!args(o, "open", n, a, 1, t)) return integer(FS_EINVAL);
	release_manager(o);
	if (o->store) fs_close(o->store, NULL);
	o->store = 0;
	gd_string s = CALL(gd_variant_as_string_fn, GD_VARIANT_AS_STRING)(a[0]);
	gd_char_string cs = CALL(gd_string_utf8_fn, GD_STRING_UTF8)(&s);
	const char *path = CALL(gd_char_string_get_data_fn, GD_CHAR_STRING_GET_DATA)(&cs);
	fs_error e;
	int rc = fs_open(path, &o->store, &e);
	CALL(gd_char_string_destroy_fn, GD_CHAR_STRING_DESTROY)(&cs);
	CALL(gd_string_destroy_fn, GD_STRING_DESTROY)(&s);
	if (rc != FS_OK) {
		o->store = 0;
		return fail(o, "open", rc, e.message);
	}
	o->err[0] = 0;
	return integer(0);
}

static int need_store(instance *o, const char *method) {
	if (o->store) return 1;
	fail(o, method, FS_EHANDLE, "no store is open (open() it first, or it was closed)");
	return 0;
}

/* close(): closes the store and its manager. */
static gd_variant m_close(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	(void)n;
	(void)a;
	instance *o = user;
	release_manager(o);
	if (o->store) fs_close(o->store, NULL);
	o->store = 0;
	return nil();
}

/* world_bounds(i: int) -> float: the terrain's world bounds in metres,
 * i = 0 x min, 1 z min, 2 x max, 3 z max (its corner samples). */
static gd_variant m_world_bounds(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_INT};
	if (!args(o, "world_bounds", n, a, 1, t) || !need_store(o, "world_bounds")) return nil();
	int64_t i = CALL(gd_variant_as_int_fn, GD_VARIANT_AS_INT)(a[0]);
	fs_info info;
	fs_error e;
	double a0, b0, a1, b1;
	if (fs_info_get(o->store, &info, &e) != FS_OK || fs_cell_to_world(o->store, 0, 0, &a0, &b0, &e) != FS_OK ||
	    fs_cell_to_world(o->store, info.width - 1, info.height - 1, &a1, &b1, &e) != FS_OK) {
		fail(o, "world_bounds", FS_ENOGEO, e.message);
		return nil();
	}
	double v[4] = {a0 < a1 ? a0 : a1, b0 < b1 ? b0 : b1, a0 < a1 ? a1 : a0, b0 < b1 ? b1 : b0};
	if (i < 0 || i > 3) {
		fail(o, "world_bounds", FS_EINVAL, "want 0 to 3");
		return nil();
	}
	return real(v[i]);
}

/* world_cell(x, z) -> the store's cell index row*width+col of world
 * position (x, z), or -1 (an error) off the terrain. */
static int world_cell(instance *o, double x, double z, int32_t *col, int32_t *row, fs_error *e) {
	double px, py;
	int rc = fs_world_to_position(o->store, x, z, &px, &py, e);
	if (rc == FS_OK) rc = fs_position_to_cell(o->store, px, py, col, row, e);
	return rc;
}

/* frontier(ax, az, bx, bz) -> PoolIntArray [mutually_visible, a_points,
 * b_points, a_quads, b_quads], or an error code: two players' frontier
 * set (lossless, hierarchical, the default bound of 125 steps). */
static gd_variant m_frontier(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_REAL, GD_TYPE_REAL, GD_TYPE_REAL, GD_TYPE_REAL};
	if (!args(o, "frontier", n, a, 4, t)) return integer(FS_EINVAL);
	if (!need_store(o, "frontier")) return integer(FS_EHANDLE);
	double v[4];
	for (int i = 0; i < 4; i++) v[i] = CALL(gd_variant_as_real_fn, GD_VARIANT_AS_REAL)(a[i]);
	int32_t ca, ra, cb, rb;
	fs_error e;
	fs_frontier_result res;
	int rc = world_cell(o, v[0], v[1], &ca, &ra, &e);
	if (rc == FS_OK) rc = world_cell(o, v[2], v[3], &cb, &rb, &e);
	if (rc == FS_OK) rc = fs_frontier(o->store, ca, ra, cb, rb, NULL, &res, NULL, &e);
	if (rc != FS_OK) return fail(o, "frontier", rc, e.message);
	int32_t out[5] = {res.mutually_visible, (int32_t)res.a_points, (int32_t)res.b_points, res.a_quads, res.b_quads};
	return ints(out, 5);
}

/* interest_new(players: int) -> int: a manager for players players
 * (replacing the object's last one). */
static gd_variant m_interest_new(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_INT};
	if (!args(o, "interest_new", n, a, 1, t)) return integer(FS_EINVAL);
	if (!need_store(o, "interest_new")) return integer(FS_EHANDLE);
	int64_t p = CALL(gd_variant_as_int_fn, GD_VARIANT_AS_INT)(a[0]);
	release_manager(o);
	if (p < 1 || p > 1 << 20) return fail(o, "interest_new", FS_EINVAL, "want 1 to 1048576 players");
	fs_error e;
	int rc = fs_interest_new(o->store, (int32_t)p, &o->im, &e);
	if (rc != FS_OK) {
		o->im = 0;
		return fail(o, "interest_new", rc, e.message);
	}
	o->players = (int32_t)p;
	o->world = malloc(sizeof(double) * 2 * (size_t)p);
	o->to = malloc(sizeof(int32_t) * (size_t)p);
	if (o->world == NULL || o->to == NULL) {
		release_manager(o);
		return fail(o, "interest_new", FS_EINTERNAL, "out of memory");
	}
	return integer(0);
}

/* tick(xz: PoolRealArray) -> int: every player's world position, x and
 * z in metres, 2·players values; 0 or an error code (a player off the
 * terrain or at NaN: FS_ERANGE, the message naming it and the bounds). */
static gd_variant m_tick(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_POOL_REAL_ARRAY};
	if (!args(o, "tick", n, a, 1, t)) return integer(FS_EINVAL);
	if (!o->im) return fail(o, "tick", FS_EHANDLE, "no interest manager (interest_new() first, or the store was closed)");
	gd_pool_real_array xz = CALL(gd_variant_as_pool_real_array_fn, GD_VARIANT_AS_POOL_REAL_ARRAY)(a[0]);
	int len = CALL(gd_pool_real_array_size_fn, GD_POOL_REAL_ARRAY_SIZE)(&xz);
	if (len != 2 * o->players) {
		CALL(gd_pool_real_array_destroy_fn, GD_POOL_REAL_ARRAY_DESTROY)(&xz);
		char m[96];
		snprintf(m, sizeof m, "%d values for %d players: want x and z of each", len, o->players);
		return fail(o, "tick", FS_EINVAL, m);
	}
	for (int i = 0; i < len; i++) o->world[i] = CALL(gd_pool_real_array_get_fn, GD_POOL_REAL_ARRAY_GET)(&xz, i);
	CALL(gd_pool_real_array_destroy_fn, GD_POOL_REAL_ARRAY_DESTROY)(&xz);
	fs_error e;
	int rc = fs_interest_tick_world(o->im, o->world, o->players, &o->last, &e);
	if (rc != FS_OK) return fail(o, "tick", rc, e.message);
	return integer(0);
}

/* sends_to(i: int) -> PoolIntArray: the players player i sends its
 * update to this tick. */
static gd_variant m_sends_to(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_INT};
	if (!args(o, "sends_to", n, a, 1, t)) return nil();
	if (!o->im) {
		fail(o, "sends_to", FS_EHANDLE, "no interest manager");
		return nil();
	}
	int64_t i = CALL(gd_variant_as_int_fn, GD_VARIANT_AS_INT)(a[0]);
	int32_t k = 0;
	fs_error e;
	int rc = i < 0 || i >= o->players ? FS_ERANGE : fs_interest_sends_to(o->im, (int32_t)i, o->to, o->players, &k, &e);
	if (rc != FS_OK) {
		fail(o, "sends_to", rc, rc == FS_ERANGE && (i < 0 || i >= o->players) ? "player index out of range" : e.message);
		return nil();
	}
	return ints(o->to, k);
}

/* sends_all() -> PoolIntArray: every player's send list this tick in one
 * array (compressed rows): n+1 offsets, then the receivers; player j's
 * are at [n+1+a[j], n+1+a[j+1]). One call instead of n sends_to. */
static gd_variant m_sends_all(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	(void)a;
	instance *o = user;
	if (n != 0) {
		fail(o, "sends_all", FS_EINVAL, "takes no arguments");
		return nil();
	}
	if (!o->im) {
		fail(o, "sends_all", FS_EHANDLE, "no interest manager");
		return nil();
	}
	int32_t p = o->players, total = 0, cap = 4 * (p + 1);
	int32_t *all = malloc(sizeof(int32_t) * (size_t)cap);
	if (all == NULL) {
		fail(o, "sends_all", FS_EINTERNAL, "out of memory");
		return nil();
	}
	all[0] = 0;
	for (int32_t j = 0; j < p; j++) {
		int32_t k;
		fs_error e;
		if (fs_interest_sends_to(o->im, j, o->to, p, &k, &e) != FS_OK) {
			free(all);
			fail(o, "sends_all", FS_EINTERNAL, e.message);
			return nil();
		}
		if (p + 1 + total + k > cap) {
			cap = 2 * (p + 1 + total + k);
			int32_t *grown = realloc(all, sizeof(int32_t) * (size_t)cap);
			if (grown == NULL) {
				free(all);
				fail(o, "sends_all", FS_EINTERNAL, "out of memory");
				return nil();
			}
			all = grown;
		}
		memcpy(all + p + 1 + total, o->to, sizeof(int32_t) * (size_t)k);
		total += k;
		all[j + 1] = total;
	}
	gd_variant r = ints(all, p + 1 + total);
	free(all);
	return r;
}

/* last_tick(field: int) -> int: the last tick's exits (0), open pairs (1)
 * or packets (2). */
static gd_variant m_last_tick(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	instance *o = user;
	static const int t[] = {GD_TYPE_INT};
	if (!args(o, "last_tick", n, a, 1, t)) return nil();
	switch (CALL(gd_variant_as_int_fn, GD_VARIANT_AS_INT)(a[0])) {
	case 0: return integer(o->last.exits);
	case 1: return integer(o->last.open);
	case 2: return integer(o->last.packets);
	}
	return nil();
}

/* last_error() -> String: the last failure's message, "" after a success
 * of open. */
static gd_variant m_last_error(gd_object *obj, void *data, void *user, int n, gd_variant **a) {
	(void)obj;
	(void)data;
	(void)n;
	(void)a;
	instance *o = user;
	gd_string s = CALL(gd_string_chars_to_utf8_fn, GD_STRING_CHARS_TO_UTF8)(o->err);
	gd_variant r;
	CALL(gd_variant_new_string_fn, GD_VARIANT_NEW_STRING)(&r, &s);
	CALL(gd_string_destroy_fn, GD_STRING_DESTROY)(&s);
	return r;
}

__attribute__((visibility("default"))) void godot_gdnative_init(gd_init_options *opt) {
	api = opt->api_struct;
	for (unsigned int i = 0; i < api->num_extensions; i++) {
		if (api->extensions[i]->type == GD_EXT_NATIVESCRIPT) ns = (const gd_nativescript_api *)api->extensions[i];
	}
}

__attribute__((visibility("default"))) void godot_gdnative_terminate(gd_terminate_options *opt) {
	(void)opt;
	api = NULL;
	ns = NULL;
}

__attribute__((visibility("default"))) void godot_nativescript_init(void *handle) {
	if (ns == NULL) return;
	gd_instance_create_func c = {create, NULL, NULL};
	gd_instance_destroy_func d = {destroy, NULL, NULL};
	ns->register_class(handle, "FrontierSetsNative", "Reference", c, d);
	struct {
		const char *name;
		gd_variant (*fn)(gd_object *, void *, void *, int, gd_variant **);
	} methods[] = {
		{"open", m_open}, {"close", m_close}, {"world_bounds", m_world_bounds}, {"frontier", m_frontier},
		{"interest_new", m_interest_new}, {"tick", m_tick}, {"sends_to", m_sends_to}, {"sends_all", m_sends_all},
		{"last_tick", m_last_tick}, {"last_error", m_last_error},
	};
	gd_method_attributes attr = {0};
	for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
		gd_instance_method m = {methods[i].fn, NULL, NULL};
		ns->register_method(handle, "FrontierSetsNative", methods[i].name, attr, m);
	}
}
