// SPDX-License-Identifier: MIT
/*
 * idle_figures.c - the kernel's figures and a replay's, alike (idle_figures.h).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idle_figures.h"
#include "math_lib.h"

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
	int ret, s;

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
	f->windows_known = sum.windows > 0;
	f->widened_per_s = sum.span_ns > 0 ? (double)sum.windows_widened * 1e9 /
					     (double)sum.span_ns : 0;
	f->window_mean_ns = sum.window_mean_ns;
	f->together_known = true;
	for (s = 0; s < CPUIDLE_STATE_MAX; s++)
		f->together_pct[s] = pct((double)sum.together_ns[s], (double)sum.span_ns);
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
	f->windows_known = f->nr_cpu_window != UINT_MAX;
	f->widened_per_s = r->span_ns ? (double)f->widened * 1e9 / (double)r->span_ns : 0;
	f->window_mean_ns = f->windows ? f->window_sum_ns / (double)f->windows : 0;
	for (s = 0; s < r->state_count; s++)
		f->together_pct[s] = pct((double)r->states[s].together_ns, (double)r->span_ns);
}

/* room for @cpu's window; on failure the tally stops (nr_cpu_window UINT_MAX) */
static bool window_slot(struct idle_figures *f, unsigned int cpu)
{
	unsigned int n = f->nr_cpu_window, want;
	uint64_t *w;

	if (n == UINT_MAX)
		return false;
	if (cpu < n)
		return true;
	want = cpu + 1 > 2 * n ? cpu + 1 : 2 * n;
	w = realloc(f->cpu_window, want * sizeof(*w));
	if (!w) {
		free(f->cpu_window);
		f->cpu_window = NULL;
		f->nr_cpu_window = UINT_MAX;
		return false;
	}
	memset(w + n, 0, (want - n) * sizeof(*w));
	f->cpu_window = w;
	f->nr_cpu_window = want;
	return true;
}

void idle_figures_release(struct idle_figures *f)
{
	free(f->cpu_window);
	f->cpu_window = NULL;
}

void idle_figures_keep_stay(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			    const struct cpuidle_decision *d)
{
	struct idle_figures *f = ctx;

	(void)t_ns;
	if (!d->reflect) {
		/* the window in force for the entry just chosen */
		if (window_slot(f, d->cpu))
			f->cpu_window[d->cpu] = dev->poll_limit_ns;
		return;
	}
	if (d->last_state_idx < 0)
		return;
	f->stays[cpuidle_lab_stay_bin(d->last_residency_ns)]++;
	/*
	 * haltpoll adjusts its window after a halt, as the kernel logs it
	 * (a poll may set it too, cpuidle_poll_time() keeping the limit it
	 * derives, which the kernel does not log)
	 */
	if (d->cpu < f->nr_cpu_window && f->nr_cpu_window != UINT_MAX &&
	    !(dev->states[d->last_state_idx].flags & CPUIDLE_FLAG_POLLING)) {
		f->windows++;
		f->window_sum_ns += (double)dev->poll_limit_ns;
		f->widened += dev->poll_limit_ns > f->cpu_window[d->cpu];
	}
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
		d = math_max(d, fabs(ca - cb));
	}
	return d;
}
