#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "frontiersets.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
	int n = atoi(argv[2]), ticks = atoi(argv[3]);
	fs_error err; fs_store s; fs_interest im; fs_info info;
	if (fs_open(argv[1], &s, &err) || fs_info_get(s, &info, &err) || fs_interest_new(s, n, &im, &err)) { printf("%s\n", err.message); return 1; }
	double *xy = malloc(sizeof(double) * 2 * n); int32_t *to = malloc(4 * n);
	srand(7);
	for (int i = 0; i < 2 * n; i++) xy[i] = (double)rand() / RAND_MAX * ((i % 2 ? info.height : info.width) - 1);
	double total = 0; long sends = 0;
	for (int t = 0; t < ticks; t++) {
		for (int i = 0; i < 2 * n; i++) {
			double lim = (i % 2 ? info.height : info.width) - 1;
			xy[i] += ((double)rand() / RAND_MAX - 0.5) * 1.2;
			if (xy[i] < 0) xy[i] = 0; if (xy[i] > lim) xy[i] = lim;
		}
		double t0 = now();
		fs_tick_result r;
		if (fs_interest_tick(im, xy, n, &r, &err)) { printf("%s\n", err.message); return 1; }
		for (int i = 0; i < n; i++) { int32_t k; fs_interest_sends_to(im, i, to, n, &k, &err); sends += k; }
		if (t > 0) total += now() - t0;
	}
	printf("C: %d players, %d ticks: %.3f ms per tick (tick + every player's send list), %ld sends\n", n, ticks, total / (ticks - 1) * 1e3, sends);
	return 0;
}
