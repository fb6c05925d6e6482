/* interest: replays trajectories through the library's interest manager.
 * Usage: interest STORE TRAJECTORIES. The trajectories file holds
 * "players ticks", then ticks × players lines "x y" (fractional cells).
 * Prints, each tick, "tick T exits E open O packets P" and, for every
 * player that sends to any, "I: J J …" (the players it sends to). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontiersets.h"

int main(int argc, char **argv) {
	if (argc != 3) return 2;
	FILE *f = fopen(argv[2], "r");
	int n, ticks;
	if (f == NULL || fscanf(f, "%d %d", &n, &ticks) != 2) return 2;
	fs_error err;
	fs_store s;
	fs_interest im;
	if (fs_open(argv[1], &s, &err) != FS_OK || fs_interest_new(s, n, &im, &err) != FS_OK) {
		printf("error: %s\n", err.message);
		return 1;
	}
	/* A store with a manager cannot be closed. */
	printf("close-busy %d\n", fs_close(s, &err));
	double *xy = malloc(sizeof(double) * 2 * n);
	int32_t *to = malloc(sizeof(int32_t) * n);
	for (int t = 0; t < ticks; t++) {
		for (int i = 0; i < n; i++)
			if (fscanf(f, "%lf %lf", &xy[2 * i], &xy[2 * i + 1]) != 2) return 2;
		fs_tick_result res;
		if (fs_interest_tick(im, xy, n, &res, &err) != FS_OK) {
			printf("error: %s\n", err.message);
			return 1;
		}
		printf("tick %d exits %d open %d packets %lld\n", t, res.exits, res.open, (long long)res.packets);
		for (int i = 0; i < n; i++) {
			int32_t k;
			if (fs_interest_sends_to(im, i, to, n, &k, &err) != FS_OK) {
				printf("error: %s\n", err.message);
				return 1;
			}
			if (k == 0) continue;
			printf("%d:", i);
			for (int j = 0; j < k; j++) printf(" %d", to[j]);
			printf("\n");
		}
	}
	/* A player joins, then another leaves: the manager starts over at each. */
	int32_t joined = -1;
	int rc = fs_interest_add(im, &joined, &err);
	printf("add %d %d\n", rc, joined);
	double *xy2 = malloc(sizeof(double) * 2 * (n + 1));
	for (int i = 0; i < 2 * n; i++) xy2[i] = xy[i];
	xy2[2 * n] = xy[0];
	xy2[2 * n + 1] = xy[1];
	fs_tick_result r2;
	rc = fs_interest_tick(im, xy2, n + 1, &r2, &err);
	printf("tick-joined %d exits %d\n", rc, r2.exits);
	printf("tick-stale-count %d\n", fs_interest_tick(im, xy, n, &r2, &err));
	printf("remove %d\n", fs_interest_remove(im, 0, &err));
	printf("tick-left %d\n", fs_interest_tick(im, xy, n, &r2, &err));
	printf("remove-outside %d\n", fs_interest_remove(im, n, &err));
	free(xy2);
	/* World positions: the test store lies in Unity's world at (1000,
	 * 2000), 10 m cells; far off it, one player is out of range. */
	for (int i = 0; i < n; i++) {
		xy[2 * i] = 1000 + 10 * xy[2 * i];
		xy[2 * i + 1] = 2000 + 10 * xy[2 * i + 1];
	}
	printf("tick-world %d\n", fs_interest_tick_world(im, xy, n, &r2, &err));
	xy[0] = 0;
	rc = fs_interest_tick_world(im, xy, n, &r2, &err);
	printf("tick-world-outside %d %s\n", rc, strstr(err.message, "x 1000 to 1470") ? "bounds named" : err.message);
	xy[0] = -5;
	printf("tick-outside %d\n", fs_interest_tick(im, xy, n, NULL, &err) == FS_EINVAL ? 0 : 1);
	fs_tick_result res;
	printf("tick-off-grid %d\n", fs_interest_tick(im, xy, n, &res, &err));
	printf("free %d\n", fs_interest_free(im, &err));
	printf("free-again %d\n", fs_interest_free(im, &err));
	printf("close %d\n", fs_close(s, &err));
	free(xy);
	free(to);
	fclose(f);
	return 0;
}
