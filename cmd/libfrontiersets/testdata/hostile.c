/* hostile: calls every function of libfrontiersets with bad arguments and
 * prints one line per call: its name and the code returned (and, for the
 * first of each kind, the message); then rewrites the store argv[3] in
 * place with other bytes (its own, shifted) while it is open and reads it,
 * and cuts it to 4 KiB while it is open and reads it. Run by lib_test.go. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "frontiersets.h"

#define SHOW(name, call)                                                  \
	do {                                                                  \
		memset(&err, 0, sizeof err);                                      \
		int rc = (call);                                                  \
		printf("%s %d %s\n", name, rc, rc ? err.message : "");            \
	} while (0)

int main(int argc, char **argv) {
	if (argc != 4) return 2;
	fs_error err;
	fs_store s = 0, bad = 0;
	fs_info info;
	fs_frontier_result res;
	fs_quad quads[1];
	fs_frontier_out out = {quads, 1, NULL, 0, NULL, NULL, 0};
	fs_options opt = {7, 0, 0};
	uint8_t mask[4];
	double x, y;
	int32_t c, r;
	SHOW("open-null", fs_open(NULL, &s, &err));
	SHOW("open-null-store", fs_open(argv[1], NULL, &err));
	SHOW("open-missing", fs_open("/nonexistent/x.pvs", &s, &err));
	SHOW("open-hostile", fs_open(argv[2], &bad, &err));
	SHOW("open-dir", fs_open(".", &bad, &err));
	SHOW("open", fs_open(argv[1], &s, &err));
	SHOW("info-null", fs_info_get(s, NULL, &err));
	SHOW("info-handle", fs_info_get(12345, &info, &err));
	SHOW("frontier-outside", fs_frontier(s, -1, 0, 5, 5, NULL, &res, NULL, &err));
	SHOW("frontier-far", fs_frontier(s, 0, 0, 100000, 5, NULL, &res, NULL, &err));
	SHOW("frontier-same", fs_frontier(s, 3, 3, 3, 3, NULL, &res, NULL, &err));
	printf("same-cell mutually visible %d\n", res.mutually_visible);
	SHOW("frontier-options", fs_frontier(s, 2, 2, 45, 37, &opt, &res, NULL, &err));
	SHOW("frontier-null-res", fs_frontier(s, 2, 2, 45, 37, NULL, NULL, NULL, &err));
	SHOW("frontier-small-buffer", fs_frontier(s, 2, 2, 45, 37, NULL, &res, &out, &err));
	printf("needed %d %d\n", res.a_quads, res.b_quads);
	SHOW("pvs-small-mask", fs_pvs(s, 2, 2, mask, 4, &err));
	SHOW("pvs-null", fs_pvs(s, 2, 2, NULL, 4, &err));
	SHOW("map-far", fs_map_to_cell(s, 1e12, 1e12, &c, &r, &err));
	SHOW("lonlat-bad", fs_lonlat_to_cell(s, 500, 100, &c, &r, &err));
	double wx = 0, wy = 0;
	SHOW("world", fs_world_to_position(s, 1123.7, 2208, &wx, &wy, &err));
	printf("world-position %.2f %.2f\n", wx, wy);
	SHOW("world-outside", fs_world_to_position(s, 990, 2208, &wx, &wy, &err));
	SHOW("world-null", fs_world_to_position(s, 1123.7, 2208, NULL, &wy, &err));
	SHOW("cell-to-world", fs_cell_to_world(s, 12, 21, &wx, &wy, &err));
	printf("cell-world %.2f %.2f\n", wx, wy);
	SHOW("cell-to-world-outside", fs_cell_to_world(s, 48, 0, &wx, &wy, &err));
	SHOW("position", fs_position_to_cell(s, 12.37, 20.8, &c, &r, &err));
	printf("position-cell %d %d\n", c, r);
	SHOW("position-outside", fs_position_to_cell(s, -0.6, 3, &c, &r, &err));
	SHOW("position-nan", fs_position_to_cell(s, 0.0 / 0.0, 3, &c, &r, &err));
	SHOW("position-null", fs_position_to_cell(s, 1, 1, NULL, &r, &err));
	SHOW("cell-null", fs_cell_to_map(s, 1, 1, NULL, &y, &err));
	SHOW("null-err", fs_cell_to_map(s, -5, 1, &x, &y, NULL));
	SHOW("close", fs_close(s, &err));
	SHOW("close-again", fs_close(s, &err));
	SHOW("after-close", fs_pvs(s, 2, 2, mask, 4, &err));
	/* Handles of one file share its store: closing one leaves the other. */
	fs_store s1 = 0, s2 = 0;
	SHOW("open-twice-1", fs_open(argv[1], &s1, &err));
	SHOW("open-twice-2", fs_open(argv[1], &s2, &err));
	SHOW("close-first", fs_close(s1, &err));
	SHOW("frontier-second", fs_frontier(s2, 2, 2, 45, 37, NULL, &res, NULL, &err));
	SHOW("first-closed", fs_info_get(s1, &info, &err));
	SHOW("close-second", fs_close(s2, &err));
	SHOW("reopen", fs_open(argv[1], &s1, &err));
	SHOW("frontier-reopened", fs_frontier(s1, 2, 2, 45, 37, NULL, &res, NULL, &err));
	SHOW("close-reopened", fs_close(s1, &err));
	/* A store file rewritten in place while open (as `cp other.pvs s.pvs`
	 * does, here without changing its size): its reads give an answer or
	 * an error code, never the end of this program. */
	FILE *f = fopen(argv[3], "rb");
	if (f == NULL) return 3;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	uint8_t *orig = malloc((size_t)n), *shifted = calloc((size_t)n, 1);
	if (n < 64 || fread(orig, 1, (size_t)n, f) != (size_t)n) return 3;
	fclose(f);
	memcpy(shifted + 24, orig, (size_t)n - 24);
	fs_store over = 0;
	SHOW("open-over", fs_open(argv[3], &over, &err));
	SHOW("info-over", fs_info_get(over, &info, &err));
	f = fopen(argv[3], "r+b");
	if (f == NULL || fwrite(shifted, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) return 3;
	uint8_t *omask = malloc((size_t)info.width * info.height);
	SHOW("pvs-over", fs_pvs(over, info.width - 2, info.height - 2, omask, (int64_t)info.width * info.height, &err));
	SHOW("frontier-over", fs_frontier(over, 2, 2, info.width - 3, info.height - 3, NULL, &res, NULL, &err));
	SHOW("close-over", fs_close(over, &err));
	free(omask);
	f = fopen(argv[3], "r+b");
	if (f == NULL || fwrite(orig, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) return 3;
	free(orig);
	free(shifted);
	/* A store file cut while open: its reads fault, which must be FS_EIO,
	 * not the end of this program. */
	fs_store cut = 0;
	SHOW("open-cut", fs_open(argv[3], &cut, &err));
	SHOW("info-cut", fs_info_get(cut, &info, &err));
	if (truncate(argv[3], 4096) != 0) {
		/* Windows refuses to cut a mapped file: nothing to fault. */
		printf("cut-refused\n");
		SHOW("close-cut", fs_close(cut, &err));
		return 0;
	}
	uint8_t *big = malloc((size_t)info.width * info.height);
	SHOW("pvs-cut", fs_pvs(cut, info.width - 2, info.height - 2, big, (int64_t)info.width * info.height, &err));
	SHOW("frontier-cut", fs_frontier(cut, 2, 2, info.width - 3, info.height - 3, NULL, &res, NULL, &err));
	SHOW("close-cut", fs_close(cut, &err));
	free(big);
	return 0;
}
