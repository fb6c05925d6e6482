/*
 * frontier: print the frontier set of two players on a PVS store.
 *
 *   cc -Ibuild examples/c/frontier.c -Lbuild -lfrontiersets -o frontier
 *   LD_LIBRARY_PATH=build ./frontier STORE colA rowA colB rowB
 *
 * Output: one line, "mutually visible" or the two regions' point and quad
 * counts, then the PVS of A as counts of visible, unknown and hidden cells.
 * Exit status 1 on an error (printed on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "frontiersets.h"

static int cell(const char *s, int32_t *v) {
	char *end;
	long n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n < 0 || n > 1 << 20) return 0;
	*v = (int32_t)n;
	return 1;
}

int main(int argc, char **argv) {
	int32_t ca, ra, cb, rb;
	if (argc != 6 || !cell(argv[2], &ca) || !cell(argv[3], &ra) || !cell(argv[4], &cb) || !cell(argv[5], &rb)) {
		fprintf(stderr, "usage: frontier STORE colA rowA colB rowB\n");
		return 2;
	}
	fs_error err;
	fs_store s;
	if (fs_open(argv[1], &s, &err) != FS_OK) {
		fprintf(stderr, "frontier: %s\n", err.message);
		return 1;
	}
	fs_info info;
	fs_frontier_result res;
	fs_options opt = {0, 0, 125}; /* lossless, hierarchical, at most 125 quads */
	if (fs_info_get(s, &info, &err) != FS_OK || fs_frontier(s, ca, ra, cb, rb, &opt, &res, NULL, &err) != FS_OK) {
		fprintf(stderr, "frontier: %s\n", err.message);
		fs_close(s, NULL);
		return 1;
	}
	if (res.mutually_visible) {
		printf("mutually visible\n");
	} else {
		/* Bounded at 125 steps, as frontierq --max-steps 125: smaller
		 * regions than the unbounded query of frontierq's default. */
		printf("A %lld points in %d quads, B %lld points in %d quads%s\n",
		       (long long)res.a_points, res.a_quads, (long long)res.b_points, res.b_quads,
		       res.truncated ? " (stopped at 125 steps, as frontierq --max-steps 125)" : "");
	}
	int64_t n = (int64_t)info.width * info.height;
	uint8_t *mask = malloc((size_t)n);
	if (mask == NULL || fs_pvs(s, ca, ra, mask, n, &err) != FS_OK) {
		fprintf(stderr, "frontier: %s\n", mask ? err.message : "out of memory");
		free(mask);
		fs_close(s, NULL);
		return 1;
	}
	int64_t vis = 0, unk = 0, hid = 0;
	for (int64_t i = 0; i < n; i++) {
		vis += mask[i] == FS_VISIBLE;
		unk += mask[i] == FS_UNKNOWN;
		hid += mask[i] == FS_HIDDEN;
	}
	printf("PVS of A: %lld visible, %lld unknown, %lld hidden\n", (long long)vis, (long long)unk, (long long)hid);
	free(mask);
	return fs_close(s, &err) == FS_OK ? 0 : 1;
}
