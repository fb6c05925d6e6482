/*
 * interest: interest management in a game loop, on a store baked with
 * pvsbake bake --engine (world positions).
 *
 *   cc -Ibuild examples/c/interest.c -Lbuild -lfrontiersets -o interest
 *   LD_LIBRARY_PATH=build ./interest STORE [WALKERS [TICKS]]
 *
 * WALKERS players (default 256) walk on the terrain at 8 m/s in the
 * engine's world coordinates, turning now and then; every tick (20 Hz,
 * TICKS of them, default 400) the manager decides which player sends its
 * update to which (fs_interest_tick_world, fs_interest_sends_to), and the
 * loop counts the updates it would send. Output: one line of totals, the
 * same whatever the machine (the walk uses no libm).
 * Exit status 1 on an error (printed on stderr), 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "frontiersets.h"

/* A xorshift64* generator: the walk is the same on every machine. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Eight headings, as unit steps on the world's two horizontal axes. */
static const double heading[8][2] = {
	{1, 0}, {0.7071067811865476, 0.7071067811865476}, {0, 1}, {-0.7071067811865476, 0.7071067811865476},
	{-1, 0}, {-0.7071067811865476, -0.7071067811865476}, {0, -1}, {0.7071067811865476, -0.7071067811865476},
};

static int count(const char *s, long max, int32_t *v) {
	char *end;
	long n = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || n < 1 || n > max) return 0;
	*v = (int32_t)n;
	return 1;
}

static int fail(const char *what, fs_error *err) {
	fprintf(stderr, "interest: %s: %s\n", what, err->message);
	return 1;
}

int main(int argc, char **argv) {
	int32_t walkers = 256, ticks = 400;
	if (argc < 2 || argc > 4 || (argc > 2 && !count(argv[2], 65536, &walkers)) || (argc > 3 && !count(argv[3], 1 << 24, &ticks))) {
		fprintf(stderr, "usage: interest STORE [WALKERS [TICKS]]\n");
		return 2;
	}
	fs_error err;
	fs_store s;
	if (fs_open(argv[1], &s, &err) != FS_OK) return fail("open", &err);
	/* The terrain's world bounds: its corner cells' centres. */
	fs_info info;
	double a0, b0, a1, b1;
	if (fs_info_get(s, &info, &err) != FS_OK || fs_cell_to_world(s, 0, 0, &a0, &b0, &err) != FS_OK ||
	    fs_cell_to_world(s, info.width - 1, info.height - 1, &a1, &b1, &err) != FS_OK) {
		fs_close(s, NULL);
		return fail(argv[1], &err);
	}
	double lo[2] = {a0 < a1 ? a0 : a1, b0 < b1 ? b0 : b1}, hi[2] = {a0 < a1 ? a1 : a0, b0 < b1 ? b1 : b0};
	double *world = malloc(sizeof(double) * 2 * (size_t)walkers);
	int *dir = malloc(sizeof(int) * (size_t)walkers);
	int32_t *to = malloc(sizeof(int32_t) * (size_t)walkers);
	fs_interest im;
	if (world == NULL || dir == NULL || to == NULL) {
		fprintf(stderr, "interest: out of memory\n");
		return 1;
	}
	if (fs_interest_new(s, walkers, &im, &err) != FS_OK) {
		fs_close(s, NULL);
		return fail("new manager", &err);
	}
	for (int32_t i = 0; i < walkers; i++) {
		world[2 * i] = lo[0] + (hi[0] - lo[0]) * (double)(rnd() % 1024) / 1024.0;
		world[2 * i + 1] = lo[1] + (hi[1] - lo[1]) * (double)(rnd() % 1024) / 1024.0;
		dir[i] = (int)(rnd() % 8);
	}
	const double step = 8.0 / 20; /* metres a tick: 8 m/s at 20 Hz */
	long long sent = 0, packets = 0;
	fs_tick_result res = {0, 0, 0};
	for (int32_t t = 0; t < ticks; t++) {
		for (int32_t i = 0; i < walkers; i++) {
			if (rnd() % 32 == 0) dir[i] = (int)(rnd() % 8);
			for (int k = 0; k < 2; k++) {
				double v = world[2 * i + k] + step * heading[dir[i]][k];
				if (v < lo[k] || v > hi[k]) { /* turn back at the edge */
					dir[i] = (dir[i] + 4) % 8;
					v = world[2 * i + k];
				}
				world[2 * i + k] = v;
			}
		}
		if (fs_interest_tick_world(im, world, walkers, &res, &err) != FS_OK) return fail("tick", &err);
		packets += res.packets;
		for (int32_t i = 0; i < walkers; i++) {
			int32_t n;
			if (fs_interest_sends_to(im, i, to, walkers, &n, &err) != FS_OK) return fail("sends_to", &err);
			sent += n; /* here a game would send player i's update to to[0..n) */
		}
	}
	printf("%d walkers, %d ticks: %lld updates sent (all-to-all %lld), %lld packets, %d pairs open at the end\n",
	       walkers, ticks, sent, (long long)walkers * (walkers - 1) * ticks, packets, res.open);
	free(world);
	free(dir);
	free(to);
	if (fs_interest_free(im, &err) != FS_OK || fs_close(s, &err) != FS_OK) return fail("close", &err);
	return 0;
}
