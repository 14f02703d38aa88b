// SPDX-License-Identifier: MIT
/*
 * idle_figures.c - the kernel's figures and a replay's, alike (idle_figures.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "idle_figures.h"

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

struct kernel_tally {
	struct idle_figures *f;
	double time_ns[CPUIDLE_STATE_MAX];
	double hits, above, below;
};

static int tally_row(void *ctx, const struct cpuidle_lab_kernel_row *row)
{
	struct kernel_tally *k = ctx;
	int b;

	if (row->state < 0 || row->state >= CPUIDLE_STATE_MAX)
		return 0;
	if (row->state + 1 > k->f->nr_states)
		k->f->nr_states = row->state + 1;
	k->time_ns[row->state] += (double)row->total_ns;
	k->hits += (double)row->hits;
	k->above += (double)row->above;
	k->below += (double)row->below;
	k->f->misses_known = row->misses_known;
	for (b = 0; b < CPUIDLE_LAB_STAY_BINS; b++)
		k->f->stays[b] += row->stays[b];
	return 0;
}

static void shares(struct idle_figures *f, const double *time_ns)
{
	double total = 0;
	int s;

	for (s = 0; s < f->nr_states; s++)
		total += time_ns[s];
	for (s = 0; s < f->nr_states; s++)
		f->share_pct[s] = pct(time_ns[s], total);
}

int idle_figures_kernel(const char *path, const struct cpuidle_platform *p,
			struct idle_figures *f, char *err, size_t errlen)
{
	struct kernel_tally k = { .f = f };
	struct cpuidle_lab_kernel_summary sum;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = cpuidle_lab_kernel_stats(path, p, tally_row, &k, &sum, err, errlen);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (p && f->nr_states < (int)p->state_count)
		f->nr_states = (int)p->state_count;
	shares(f, k.time_ns);
	f->span_ns = sum.span_ns;
	f->entries_per_s = sum.span_ns > 0 ? k.hits * 1e9 / (double)sum.span_ns : 0;
	f->above_pct = pct(k.above, k.hits);
	f->below_pct = pct(k.below, k.hits);
	return 0;
}

void idle_figures_replay(struct idle_figures *f, const struct cpuidle_lab_result *r)
{
	double time_ns[CPUIDLE_STATE_MAX] = { 0 }, usage = 0, above = 0, below = 0;
	int s;

	f->nr_states = r->state_count;
	for (s = 0; s < r->state_count; s++) {
		time_ns[s] = (double)r->states[s].time_ns;
		usage += (double)r->states[s].usage;
		above += (double)r->states[s].above;
		below += (double)r->states[s].below;
	}
	shares(f, time_ns);
	f->span_ns = (int64_t)r->span_ns;
	f->entries_per_s = r->span_ns ? usage * 1e9 / (double)r->span_ns : 0;
	f->misses_known = true;
	f->above_pct = pct(above, usage);
	f->below_pct = pct(below, usage);
}

void idle_figures_keep_stay(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			    const struct cpuidle_decision *d)
{
	struct idle_figures *f = ctx;

	(void)t_ns;
	(void)dev;
	if (d->reflect && d->last_state_idx >= 0)
		f->stays[cpuidle_lab_stay_bin(d->last_residency_ns)]++;
}

double idle_figures_stays_distance(const uint64_t *a, const uint64_t *b)
{
	double na = 0, nb = 0, ca = 0, cb = 0, d = 0;
	int i;

	for (i = 0; i < CPUIDLE_LAB_STAY_BINS; i++) {
		na += (double)a[i];
		nb += (double)b[i];
	}
	if (!na || !nb)
		return NAN;
	for (i = 0; i < CPUIDLE_LAB_STAY_BINS; i++) {
		ca += (double)a[i] / na;
		cb += (double)b[i] / nb;
		d = fmax(d, fabs(ca - cb));
	}
	return d;
}
