/*
 * godot_abi.h — the few parts of Godot 3's GDNative C ABI (core API 1.0,
 * NativeScript 1.0) that frontiersets_gdnative.c calls, declared here
 * from Godot's documented ABI (gdnative_api.json of Godot 3.2: the order
 * of the core API's function pointers, their signatures, and the layout of
 * the structs passed at init). Only what is used is declared: a function
 * is reached by its index in the core API struct's table of pointers.
 */
#ifndef FRONTIERSETS_GODOT_ABI_H
#define FRONTIERSETS_GODOT_ABI_H

#include <stdbool.h>
#include <stdint.h>

/* Opaque values, by size (64-bit builds). */
typedef struct { uint8_t opaque[24]; } gd_variant;        /* godot_variant: 16 + sizeof(int64_t) */
typedef struct { uint8_t opaque[sizeof(void *)]; } gd_string;
typedef struct { uint8_t opaque[sizeof(void *)]; } gd_char_string;
typedef struct { uint8_t opaque[sizeof(void *)]; } gd_pool_int_array;
typedef struct { uint8_t opaque[sizeof(void *)]; } gd_pool_real_array;
typedef void gd_object;

/* godot_variant_type values used. */
enum { GD_TYPE_NIL = 0, GD_TYPE_BOOL = 1, GD_TYPE_INT = 2, GD_TYPE_REAL = 3, GD_TYPE_STRING = 4, GD_TYPE_POOL_REAL_ARRAY = 22 };

typedef struct { unsigned int major, minor; } gd_api_version;

/* godot_gdnative_api_struct: the header of every API struct. */
typedef struct gd_api_header {
	unsigned int type; /* 0 core, 1 NativeScript, … */
	gd_api_version version;
	const struct gd_api_header *next;
} gd_api_header;

/* godot_gdnative_core_api_struct: the header, then 744 function pointers
 * in gdnative_api.json's order. */
typedef struct {
	unsigned int type;
	gd_api_version version;
	const gd_api_header *next;
	unsigned int num_extensions;
	const gd_api_header **extensions;
	void *fn[744];
} gd_core_api;

/* Indices into gd_core_api.fn (Godot 3.2's core API 1.0). */
enum {
	GD_POOL_INT_ARRAY_NEW = 171,
	GD_POOL_INT_ARRAY_RESIZE = 180,
	GD_POOL_INT_ARRAY_SET = 183,
	GD_POOL_INT_ARRAY_DESTROY = 186,
	GD_POOL_REAL_ARRAY_GET = 200,
	GD_POOL_REAL_ARRAY_SIZE = 201,
	GD_POOL_REAL_ARRAY_DESTROY = 202,
	GD_VARIANT_GET_TYPE = 507,
	GD_VARIANT_NEW_NIL = 509,
	GD_VARIANT_NEW_BOOL = 510,
	GD_VARIANT_NEW_INT = 512,
	GD_VARIANT_NEW_REAL = 513,
	GD_VARIANT_NEW_STRING = 514,
	GD_VARIANT_NEW_POOL_INT_ARRAY = 531,
	GD_VARIANT_AS_INT = 539,
	GD_VARIANT_AS_REAL = 540,
	GD_VARIANT_AS_STRING = 541,
	GD_VARIANT_AS_POOL_REAL_ARRAY = 559,
	GD_VARIANT_DESTROY = 570,
	GD_CHAR_STRING_GET_DATA = 572,
	GD_CHAR_STRING_DESTROY = 573,
	GD_STRING_UTF8 = 678,
	GD_STRING_CHARS_TO_UTF8 = 681,
	GD_STRING_DESTROY = 721,
	GD_PRINT_ERROR = 741,
};

/* Their signatures. */
typedef void (*gd_pool_int_array_new_fn)(gd_pool_int_array *);
typedef void (*gd_pool_int_array_resize_fn)(gd_pool_int_array *, int);
typedef void (*gd_pool_int_array_set_fn)(gd_pool_int_array *, int, int);
typedef void (*gd_pool_int_array_destroy_fn)(gd_pool_int_array *);
typedef float (*gd_pool_real_array_get_fn)(const gd_pool_real_array *, int);
typedef int (*gd_pool_real_array_size_fn)(const gd_pool_real_array *);
typedef void (*gd_pool_real_array_destroy_fn)(gd_pool_real_array *);
typedef int (*gd_variant_get_type_fn)(const gd_variant *);
typedef void (*gd_variant_new_nil_fn)(gd_variant *);
typedef void (*gd_variant_new_bool_fn)(gd_variant *, bool);
typedef void (*gd_variant_new_int_fn)(gd_variant *, int64_t);
typedef void (*gd_variant_new_real_fn)(gd_variant *, double);
typedef void (*gd_variant_new_string_fn)(gd_variant *, const gd_string *);
typedef void (*gd_variant_new_pool_int_array_fn)(gd_variant *, const gd_pool_int_array *);
typedef int64_t (*gd_variant_as_int_fn)(const gd_variant *);
typedef double (*gd_variant_as_real_fn)(const gd_variant *);
typedef gd_string (*gd_variant_as_string_fn)(const gd_variant *);
typedef gd_pool_real_array (*gd_variant_as_pool_real_array_fn)(const gd_variant *);
typedef void (*gd_variant_destroy_fn)(gd_variant *);
typedef const char *(*gd_char_string_get_data_fn)(const gd_char_string *);
typedef void (*gd_char_string_destroy_fn)(gd_char_string *);
typedef gd_char_string (*gd_string_utf8_fn)(const gd_string *);
typedef gd_string (*gd_string_chars_to_utf8_fn)(const char *);
typedef void (*gd_string_destroy_fn)(gd_string *);
typedef void (*gd_print_error_fn)(const char *, const char *, const char *, int);

/* godot_gdnative_init_options and godot_gdnative_terminate_options. */
typedef struct {
	bool in_editor;
	uint64_t core_api_hash;
	uint64_t editor_api_hash;
	uint64_t no_api_hash;
	void (*report_version_mismatch)(const gd_object *, const char *, gd_api_version, gd_api_version);
	void (*report_loading_error)(const gd_object *, const char *);
	gd_object *gd_native_library;
	const gd_core_api *api_struct;
	const gd_string *active_library_path;
} gd_init_options;

typedef struct {
	bool in_editor;
} gd_terminate_options;

/* NativeScript 1.0: the extension of type 1 and its six functions. */
typedef struct {
	void *(*create_func)(gd_object *, void *);
	void *method_data;
	void (*free_func)(void *);
} gd_instance_create_func;

typedef struct {
	void (*destroy_func)(gd_object *, void *, void *);
	void *method_data;
	void (*free_func)(void *);
} gd_instance_destroy_func;

typedef struct {
	int rpc_type; /* godot_method_rpc_mode: 0, disabled */
} gd_method_attributes;

typedef struct {
	gd_variant (*method)(gd_object *, void *, void *, int, gd_variant **);
	void *method_data;
	void (*free_func)(void *);
} gd_instance_method;

typedef struct {
	unsigned int type;
	gd_api_version version;
	const gd_api_header *next;
	void (*register_class)(void *, const char *, const char *, gd_instance_create_func, gd_instance_destroy_func);
	void (*register_tool_class)(void *, const char *, const char *, gd_instance_create_func, gd_instance_destroy_func);
	void (*register_method)(void *, const char *, const char *, gd_method_attributes, gd_instance_method);
	void *register_property, *register_signal, *get_userdata;
} gd_nativescript_api;

#define GD_EXT_NATIVESCRIPT 1

#endif
