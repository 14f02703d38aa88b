// SPDX-License-Identifier: MIT
/*
 * kernel_stats.c - lab.h's cpuidle_lab_kernel_stats(): what the kernel did
 * in a trace (kstats.c), row by row, each state named as cpuidle stats
 * names it: by the platform's table, else by the trace's own names
 * (idlestat), else "stateN".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kstats.h"

const char *kstats_state_name(const struct cpuidle_platform *p, const struct trace_info *info,
			      int s, char *buf, size_t len)
{
	if (p && s < p->state_count)
		return p->states[s].name;
	if (info && s < info->nr_states && info->state_names[s][0])
		return info->state_names[s];
	snprintf(buf, len, "state%d", s);
	return buf;
}

bool kstats_cpu_shown(const struct kstats *ks, unsigned int cpu)
{
	int s;

	for (s = 0; s < ks->nr_states; s++)
		if (kstats_get(ks, cpu, s)->hits)
			return true;
	return false;
}

bool kstats_misses_known(const struct kstats *ks, const struct cpuidle_platform *p, int s)
{
	return ks->misses_recorded || (ks->misses_recomputed && p && s < p->state_count);
}

const char *kstats_misses_source(const struct kstats *ks)
{
	return ks->misses_recorded ? "kernel" : ks->misses_recomputed ? "recomputed" : "none";
}

int cpuidle_lab_kernel_stats(const char *path, const struct cpuidle_platform *p,
			     cpuidle_lab_kernel_fn fn, void *ctx,
			     struct cpuidle_lab_kernel_summary *sum, char *err, size_t errlen)
{
	const struct kstats_want cstates_only = { 0 };
	struct trace_info info;
	struct kstats ks;
	unsigned int cpu;
	char nb[32];
	int s, ret;

	err[0] = '\0';
	ret = kstats_read(path, p, &cstates_only, &ks, &info, err, errlen);
	if (ret) {
		if (!err[0])
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!ks.nr_states) {
		kstats_free(&ks);
		snprintf(err, errlen, "%s: no idle entries (power:cpu_idle) in the trace", path);
		return -ENODATA;
	}
	if (sum) {
		*sum = (struct cpuidle_lab_kernel_summary){
			.span_ns = ks.last_ns - ks.first_ns,
			.above_below = kstats_misses_source(&ks),
			.windows = ks.windows,
			.windows_widened = ks.windows_widened,
			.window_mean_ns = ks.windows ? ks.window_sum_ns / (double)ks.windows : 0,
		};
		for (s = 0; s < CPUIDLE_STATE_MAX && s < TRACE_MAX_STATES; s++)
			sum->together_ns[s] = ks.together_ns[s];
	}
	for (cpu = 0; !ret && cpu < ks.nr_cpus; cpu++) {
		if (!kstats_cpu_shown(&ks, cpu))
			continue;
		for (s = 0; !ret && s < ks.nr_states; s++) {
			const struct kstate_stats *st = kstats_get(&ks, cpu, s);
			struct cpuidle_lab_kernel_row row = {
				.cpu = cpu,
				.state = s,
				.name = kstats_state_name(p, &info, s, nb, sizeof(nb)),
				.hits = st->hits,
				.total_ns = st->total_ns,
				.min_ns = st->min_ns,
				.avg_ns = st->hits ? (int64_t)(st->total_ns / st->hits) : 0,
				.max_ns = st->max_ns,
				.misses_known = kstats_misses_known(&ks, p, s),
				.above = st->above,
				.below = st->below,
				.stays = st->stays,
			};

			ret = fn(ctx, &row);
		}
	}
	kstats_free(&ks);
	return ret;
}
