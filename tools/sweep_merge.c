// SPDX-License-Identifier: MIT
/*
 * sweep_merge.c - "cpuidle sweep --merge PART...": the parts of a sweep run
 * as shards (sweep --shard K/N, each on its own machine or job) put back
 * together.  A shard takes a contiguous run of the traces, in the order
 * given, and writes the rows of those alone, after a first line
 * "# cpuidle sweep shard K/N": the parts in order of K are the unsharded
 * sweep's rows in its own order, byte for byte.  The merge checks that
 * every K of one N is there once, that the parts agree on the format and
 * the CSV header, and writes the header once and the rows in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

struct part {
	const char *path;
	FILE *f;
	unsigned int k, n;
	char *header;		/* the CSV header, or NULL (JSON, or an empty part) */
	char *first_row;	/* the first row after it, or NULL */
};

static int by_k(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

static void parts_free(struct part *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (p[i].f)
			fclose(p[i].f);
		free(p[i].header);
		free(p[i].first_row);
	}
	free(p);
}

/* Open @p->path and read its shard line and (CSV) header.  Return: 0, or 1 after a message. */
static int part_open(struct part *p)
{
	char *line = NULL, extra;
	size_t cap = 0;
	ssize_t len;

	p->f = fopen(p->path, "r");
	if (!p->f)
		return cli_error(sweep_cmd, "--merge: %s: %s", p->path, strerror(errno));
	len = getline(&line, &cap, p->f);
	if (len < 0 || sscanf(line, "# cpuidle sweep shard %u/%u%c", &p->k, &p->n, &extra) != 3 ||
	    extra != '\n' || !p->k || p->k > p->n) {
		free(line);
		return cli_error(sweep_cmd, "--merge: %s: not a part of a sharded sweep (its first "
				 "line is not '# cpuidle sweep shard K/N')", p->path);
	}
	len = getline(&line, &cap, p->f);
	if (len > 0 && line[0] != '{') {
		p->header = line;	/* CSV: the header, then its rows */
		line = NULL;
		cap = 0;
		len = getline(&line, &cap, p->f);
	}
	if (len > 0) {
		p->first_row = line;
		line = NULL;
	}
	free(line);
	if (ferror(p->f))
		return cli_error(sweep_cmd, "--merge: %s: %s", p->path, strerror(errno));
	return 0;
}

/* The parts in K order: each K of one N once, one format.  Return: 0, or 1 after a message. */
static int parts_check(struct part *p, int n)
{
	const char *header = NULL, *from = NULL;
	bool json = false, csv = false;
	int i;

	qsort(p, (size_t)n, sizeof(*p), by_k);
	for (i = 0; i < n; i++) {
		if (p[i].n != p[0].n)
			return cli_error(sweep_cmd, "--merge: %s is a part of %u shards, %s of %u",
					 p[i].path, p[i].n, p[0].path, p[0].n);
		if (i && p[i].k == p[i - 1].k)
			return cli_error(sweep_cmd, "--merge: shard %u/%u given twice (%s, %s)",
					 p[i].k, p[i].n, p[i - 1].path, p[i].path);
		if (p[i].header) {	/* a CSV part has its header, rows or not */
			csv = true;
			if (header && strcmp(header, p[i].header))
				return cli_error(sweep_cmd, "--merge: %s and %s have other columns "
						 "(another sweep's parts?)", from, p[i].path);
			header = p[i].header;
			from = p[i].path;
		} else if (p[i].first_row) {
			json = true;
		}
	}
	if (csv && json)
		return cli_error(sweep_cmd, "--merge: the parts mix CSV and JSON");
	if ((unsigned int)n != p[0].n) {
		unsigned int k = 1;

		for (i = 0; i < n && p[i].k == k; i++)
			k++;
		return cli_error(sweep_cmd, "--merge: shard %u/%u is missing (%d of %u given)", k,
				 p[0].n, n, p[0].n);
	}
	return 0;
}

static int copy_rest(struct part *p, FILE *out)
{
	char buf[65536];
	size_t n;

	if (p->first_row && fputs(p->first_row, out) == EOF)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p->f)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return -1;
	return ferror(p->f) ? -2 : 0;
}

/**
 * sweep_merge() - "cpuidle sweep --merge"
 * @out_path: -o, or NULL for stdout
 * @paths: the parts
 * @n: how many
 *
 * Return: 0, or 1 after a message (nothing written: -o is put in place
 * only when the merge succeeds).
 */
int sweep_merge(const char *out_path, char *const *paths, int n)
{
	struct part *p = calloc((size_t)(n > 0 ? n : 1), sizeof(*p));
	struct cli_out o = { 0 };
	FILE *out = stdout;
	int i, ret = 0;

	if (!p)
		return cli_error(sweep_cmd, "out of memory");
	if (n <= 0) {
		free(p);
		return cli_error(sweep_cmd, "--merge wants the parts (sweep --shard K/N outputs)");
	}
	for (i = 0; i < n && !ret; i++) {
		p[i].path = paths[i];
		ret = part_open(&p[i]);
	}
	if (!ret)
		ret = parts_check(p, n);
	if (!ret && out_path && strcmp(out_path, "-")) {
		ret = cli_out_open(sweep_cmd, "-o", &o, out_path);
		out = o.f;
	}
	for (i = 0; !ret && i < n; i++) {
		int w;

		if (!i && p[i].header && fputs(p[i].header, out) == EOF) {
			ret = cli_error(sweep_cmd, "%s: %s", out_path ? out_path : "stdout",
					strerror(errno));
			break;
		}
		w = copy_rest(&p[i], out);
		if (w == -2)
			ret = cli_error(sweep_cmd, "--merge: %s: %s", p[i].path, strerror(errno));
		else if (w)
			ret = cli_error(sweep_cmd, "%s: %s", out_path ? out_path : "stdout",
					strerror(errno));
	}
	if (!ret && o.f)
		ret = cli_out_commit(sweep_cmd, &o);
	cli_out_abort(&o);
	parts_free(p, n);
	return ret;
}
