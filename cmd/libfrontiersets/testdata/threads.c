/* threads: eight threads query one store at once; each checks that every
 * answer equals the first; the main thread closes the store while they
 * may still run, and late calls must fail with FS_EHANDLE, never crash.
 * Prints "ok A B" (A's and B's points) or the first mismatch. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "frontiersets.h"

static fs_store s;
static int64_t want_a, want_b;
static int bad;

static void *work(void *arg) {
	(void)arg;
	for (int i = 0; i < 300; i++) {
		fs_frontier_result res;
		fs_error err;
		int rc = fs_frontier(s, 2, 2, 45, 37, NULL, &res, NULL, &err);
		if (rc == FS_EHANDLE) return NULL; /* closed under us: fine */
		if (rc != FS_OK || res.a_points != want_a || res.b_points != want_b) {
			__atomic_store_n(&bad, 1, __ATOMIC_SEQ_CST);
			return NULL;
		}
	}
	return NULL;
}

int main(int argc, char **argv) {
	if (argc != 2) return 2;
	fs_error err;
	fs_frontier_result res;
	if (fs_open(argv[1], &s, &err) != FS_OK || fs_frontier(s, 2, 2, 45, 37, NULL, &res, NULL, &err) != FS_OK) {
		printf("error %s\n", err.message);
		return 1;
	}
	want_a = res.a_points;
	want_b = res.b_points;
	pthread_t t[8];
	for (int i = 0; i < 8; i++) pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
	fs_close(s, NULL);
	for (int i = 4; i < 8; i++) pthread_join(t[i], NULL);
	if (bad) {
		printf("mismatch\n");
		return 1;
	}
	printf("ok %lld %lld\n", (long long)want_a, (long long)want_b);
	return 0;
}
