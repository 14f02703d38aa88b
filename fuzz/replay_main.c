// SPDX-License-Identifier: MIT
/*
 * replay_main.c - a fuzz target without libFuzzer: runs its
 * LLVMFuzzerTestOneInput() once on each file named, and on every file of
 * each directory named (in name order; dot files skipped), so the test
 * suite replays the corpora with the normal compiler, under ASan and UBSan
 * in their builds.  A crash, a sanitizer report or a failed check ends it
 * as it would end the fuzzer; otherwise it prints how many inputs it ran.
 *
 *   fuzz_NAME_replay FILE|DIR...
 */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The whole of @path, or exit: a corpus that cannot be read is a failure. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *nb;
	size_t cap = 0, n = 0, k;

	if (!f) {
		perror(path);
		exit(1);
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				fprintf(stderr, "%s: out of memory\n", path);
				exit(1);
			}
			buf = nb;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
		if (k == 0)
			break;
	}
	if (ferror(f)) {
		perror(path);
		exit(1);
	}
	fclose(f);
	/* an exact-size copy: ASan sees a read past the input's end */
	nb = malloc(n ? n : 1);
	if (!nb) {
		fprintf(stderr, "%s: out of memory\n", path);
		exit(1);
	}
	memcpy(nb, buf, n);
	free(buf);
	*len = n;
	return nb;
}

static void run_file(const char *path)
{
	size_t len;
	uint8_t *data = slurp(path, &len);

	LLVMFuzzerTestOneInput(data, len);
	free(data);
}

static int no_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	struct dirent **names;
	struct stat st;
	char path[4096];
	unsigned long runs = 0;
	int i, j, n;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			run_file(argv[i]);
			runs++;
			continue;
		}
		n = scandir(argv[i], &names, no_dot, alphasort);
		if (n < 0) {
			perror(argv[i]);
			return 1;
		}
		for (j = 0; j < n; j++) {
			snprintf(path, sizeof(path), "%s/%s", argv[i], names[j]->d_name);
			if (!stat(path, &st) && S_ISREG(st.st_mode)) {
				run_file(path);
				runs++;
			}
			free(names[j]);
		}
		free(names);
	}
	printf("%s: %lu inputs, no failure\n", argv[0], runs);
	return runs ? 0 : 1;
}
