// SPDX-License-Identifier: MIT
/*
 * diff_compare.c - cpuidle diff's comparison (diff.h): each unit of BEFORE
 * and AFTER resampled independently, the change of every figure in every
 * resample, its percentile interval and the verdict.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

/*
 * A percentile interval from fewer blocks than this is too narrow to be
 * worth printing: a resample can only reshuffle a handful of runs.
 */
#define DIFF_MIN_BLOCKS		10

/* the unit @cluster/@index of recording @r, or NULL */
static const struct diff_unit *unit_of(const struct diff_recording *r, bool cluster,
				       unsigned int i)
{
	if (cluster)
		return i < (unsigned int)r->sample.nr_clusters ? r->sample.clusters[i] : NULL;
	return i < r->sample.nr_cpus ? r->sample.cpus[i] : NULL;
}

/**
 * struct side_unit - one unit in every recording of a side
 * @u: per recording, NULL where it has none
 * @nr: recordings
 * @total: the pooled sums
 * @any: a recording's unit (for its name and what is known), NULL if none
 * @blocks: the fewest blocks of a recording that has it
 */
struct side_unit {
	const struct diff_unit *u[DIFF_MAX_RECORDINGS];
	unsigned int nr;
	struct diff_sums total;
	const struct diff_unit *any;
	size_t blocks;
};

static void side_unit_get(const struct diff_side *side, bool cluster, unsigned int index,
			  struct side_unit *su)
{
	unsigned int r;

	memset(su, 0, sizeof(*su));
	su->nr = side->nr;
	for (r = 0; r < side->nr; r++) {
		const struct diff_unit *u = unit_of(&side->rec[r], cluster, index);

		su->u[r] = u;
		if (!u)
			continue;
		diff_sums_add(&su->total, &u->total);
		if (!su->any || u->nr_blocks < su->blocks)
			su->blocks = u->nr_blocks;
		if (!su->any)
			su->any = u;
	}
}

/*
 * One resample of a side's unit: with one recording, its blocks drawn
 * with replacement; with repeats, as many recordings drawn with
 * replacement, then each one's blocks (a two-stage bootstrap: Davison and
 * Hinkley, "Bootstrap methods and their application", 1997, 3.8).
 */
static void side_resample(const struct side_unit *su, uint64_t rng[4], struct diff_sums *out)
{
	struct diff_sums one;
	unsigned int k;

	if (su->nr == 1) {
		diff_resample(su->u[0], rng, out);
		return;
	}
	memset(out, 0, sizeof(*out));
	for (k = 0; k < su->nr; k++) {
		const struct diff_unit *u = su->u[diff_rng_below(rng, su->nr)];

		if (!u)
			continue;
		diff_resample(u, rng, &one);
		diff_sums_add(out, &one);
	}
}

static struct diff_row *row_add(struct diff_run *run)
{
	if (run->nr_rows == run->cap) {
		size_t cap = run->cap ? run->cap * 2 : 64;
		struct diff_row *r = realloc(run->rows, cap * sizeof(*r));

		if (!r)
			return NULL;
		run->rows = r;
		run->cap = cap;
	}
	return memset(&run->rows[run->nr_rows++], 0, sizeof(struct diff_row));
}

/*
 * A generator for each unit of each side, its own stream: the seed, the
 * side and the unit, mixed by diff_rng_seed()'s splitmix64.
 */
static void unit_rng(const struct diff_run *run, int side, bool cluster, unsigned int index,
		     uint64_t rng[4])
{
	uint64_t key = (uint64_t)index << 2 | (uint64_t)cluster << 1 | (uint64_t)side;

	diff_rng_seed(rng, run->seed ^ (key * 0xd1342543de82ef95ull));
}

/* @state's name: BEFORE's first recording's, else AFTER's */
static void state_name(const struct diff_run *run, int slot, char *buf, size_t len)
{
	const struct diff_recording *s = run->before.rec[0].ks.nr_states > slot ?
		&run->before.rec[0] : &run->after.rec[0];
	char nb[CPUIDLE_NAME_LEN];

	if (slot == DIFF_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%s", kstats_state_name(s->p, &s->info, slot, nb, sizeof(nb)));
}

/*
 * Resample @b and @a (either may be NULL) run->resamples times each; in
 * @delta[(slot * DIFF_NR_FIGURES + f) * resamples + r], the change of each
 * figure in resample r (NAN where it is not defined).
 */
static void resample_changes(const struct diff_run *run, const struct side_unit *b,
			     const struct side_unit *a, double *delta)
{
	uint64_t rb[4], ra[4];
	struct diff_sums sb, sa;
	unsigned int r;
	int slot, f;

	unit_rng(run, 0, b->any->cluster, b->any->index, rb);
	unit_rng(run, 1, a->any->cluster, a->any->index, ra);
	for (r = 0; r < run->resamples; r++) {
		side_resample(b, rb, &sb);
		side_resample(a, ra, &sa);
		for (slot = 0; slot < DIFF_SLOTS; slot++)
			for (f = 0; f < DIFF_NR_FIGURES; f++)
				delta[((size_t)slot * DIFF_NR_FIGURES + (size_t)f) * run->resamples + r] =
					diff_figure(a->any, &sa, slot, f) -
					diff_figure(b->any, &sb, slot, f);
	}
}

/* the interval of one figure's @n changes (NANs dropped) into @row */
static void interval(const struct diff_run *run, double *v, size_t n, struct diff_row *row)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	row->lo = row->hi = NAN;
	if (!m || (double)(n - m) > run->max_undefined * (double)n)
		return;
	row->lo = diff_percentile(v, m, (1 - run->level) / 2);
	row->hi = diff_percentile(v, m, 1 - (1 - run->level) / 2);
	row->verdict = row->lo > 0 ? 1 : row->hi < 0 ? -1 : 0;
}

/* whether @su (none: NULL) entered no state but @slot */
static bool alone(const struct side_unit *su, int slot)
{
	return !su->any || su->total.hits[slot] == su->total.hits[DIFF_ALL];
}

static int compare_unit(struct diff_run *run, bool cluster, unsigned int index)
{
	struct side_unit *b = malloc(2 * sizeof(*b)), *a = b + 1;
	const struct diff_unit *any;
	double *delta = NULL;
	int k, slot, f, ret = -ENOMEM;

	if (!b)
		return -ENOMEM;
	side_unit_get(&run->before, cluster, index, b);
	side_unit_get(&run->after, cluster, index, a);
	any = b->any ? b->any : a->any;
	if (!any) {
		free(b);
		return 0;
	}
	if (b->any && a->any && b->blocks >= DIFF_MIN_BLOCKS && a->blocks >= DIFF_MIN_BLOCKS) {
		delta = malloc((size_t)DIFF_SLOTS * DIFF_NR_FIGURES * run->resamples *
			       sizeof(*delta));
		if (!delta)
			goto out;
		resample_changes(run, b, a, delta);
	}
	for (k = 0; k <= TRACE_MAX_STATES; k++) {
		slot = k ? k - 1 : DIFF_ALL;	/* all first, then each state */
		if (slot != DIFF_ALL && !(b->total.hits[slot] > 0) && !(a->total.hits[slot] > 0))
			continue;
		if (slot != DIFF_ALL && alone(b, slot) && alone(a, slot))
			continue;	/* the unit's only state: its rows are "all"'s */
		for (f = 0; f < DIFF_NR_FIGURES; f++) {
			double vb = b->any ? diff_figure(b->any, &b->total, slot, f) : NAN;
			double va = a->any ? diff_figure(a->any, &a->total, slot, f) : NAN;
			struct diff_row *row;

			if (isnan(vb) && isnan(va))
				continue;
			row = row_add(run);
			if (!row)
				goto out;
			snprintf(row->unit, sizeof(row->unit), "%s", any->name);
			row->cluster = cluster;
			row->index = index;
			row->slot = slot;
			state_name(run, slot, row->state, sizeof(row->state));
			row->figure = f;
			row->before = vb;
			row->after = va;
			row->change = va - vb;
			row->lo = row->hi = NAN;
			if (delta && !isnan(row->change))
				interval(run, delta + ((size_t)slot * DIFF_NR_FIGURES + (size_t)f) *
					 run->resamples, run->resamples, row);
		}
	}
	ret = 0;
out:
	free(delta);
	free(b);
	return ret;
}

int diff_compare(struct diff_run *run)
{
	unsigned int i;
	int ret;

	const struct diff_side *sides[2] = { &run->before, &run->after };
	unsigned int nc = 0, np = 0, s, r;

	for (s = 0; s < 2; s++)
		for (r = 0; r < sides[s]->nr; r++) {
			const struct diff_sample *ds = &sides[s]->rec[r].sample;

			if ((unsigned int)ds->nr_clusters > nc)
				nc = (unsigned int)ds->nr_clusters;
			if (ds->nr_cpus > np)
				np = ds->nr_cpus;
		}
	for (i = 0; i < nc; i++)
		if ((ret = compare_unit(run, true, i)))
			return ret;
	for (i = 0; i < np; i++)
		if ((ret = compare_unit(run, false, i)))
			return ret;
	return 0;
}

/* Warn where recordings @x and @y differ in a way that makes their figures compare badly. */
static bool unlike(const struct diff_recording *x, const struct diff_recording *y)
{
	const char *mx = kstats_misses_source(&x->ks), *my = kstats_misses_source(&y->ks);
	char bx[CPUIDLE_NAME_LEN], by[CPUIDLE_NAME_LEN];
	const char *nx, *ny;
	int s, n = x->ks.nr_states < y->ks.nr_states ? x->ks.nr_states : y->ks.nr_states;

	if (strcmp(mx, my)) {
		cli_warn("diff", "above/below are %s in %s and %s in %s: their "
			"changes compare two rules", mx, x->path, my, y->path);
		return true;
	}
	for (s = 0; s < n; s++) {
		nx = kstats_state_name(x->p, &x->info, s, bx, sizeof(bx));
		ny = kstats_state_name(y->p, &y->info, s, by, sizeof(by));
		if (strcmp(nx, ny)) {
			cli_warn("diff", "state %d is %s in %s and %s in %s: states "
				"are compared by their index", s, nx, x->path, ny, y->path);
			return true;
		}
	}
	if (x->p && y->p && strcmp(x->p->name, y->p->name)) {
		cli_warn("diff", "%s is read with platform %s, %s with %s: "
			"power and recomputed verdicts follow two models", x->path, x->p->name,
			y->path, y->p->name);
		return true;
	}
	return false;
}

void diff_warn_unlike(const struct diff_run *run)
{
	const struct diff_recording *first = &run->before.rec[0];
	const struct diff_side *sides[2] = { &run->before, &run->after };
	unsigned int s, r;

	/* each recording against the first, until one warning */
	for (s = 0; s < 2; s++)
		for (r = !s; r < sides[s]->nr; r++)
			if (unlike(first, &sides[s]->rec[r]))
				return;
}

void diff_run_free(struct diff_run *run)
{
	struct diff_side *sides[2] = { &run->before, &run->after };
	unsigned int s, r;

	for (s = 0; s < 2; s++) {
		for (r = 0; r < sides[s]->nr; r++) {
			diff_sample_free(&sides[s]->rec[r].sample);
			kstats_free(&sides[s]->rec[r].ks);
		}
		free(sides[s]->rec);
		sides[s]->rec = NULL;
		sides[s]->nr = 0;
	}
	free(run->rows);
	run->rows = NULL;
	run->nr_rows = run->cap = 0;
}
