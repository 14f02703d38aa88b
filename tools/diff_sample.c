// SPDX-License-Identifier: MIT
/*
 * diff_sample.c - a trace's idle periods per CPU and cluster, their
 * figures, and their block bootstrap (diff_sample.h), for "cpuidle diff".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_sample.h"
#include "math_lib.h"

/* the wake-up figures follow enum kwake_kind */
_Static_assert(KWAKE_TIMER == 0 && KWAKE_RESCHED == 1 && KWAKE_CALL_FUNC == 2 &&
	       KWAKE_IRQ == 3 && KWAKE_UNKNOWN == DIFF_WAKE_KINDS - 1,
	       "DIFF_WAKE_* in enum kwake_kind's order");

#define PERIOD_KERNEL_ABOVE	0x1
#define PERIOD_KERNEL_BELOW	0x2
#define PERIOD_JUDGED_ABOVE	0x4
#define PERIOD_JUDGED_BELOW	0x8

struct diff_period {
	int64_t start_ns;
	int64_t ns;
	double energy_nj;	/* NAN: the platform has no power for it */
	int8_t state;
	int8_t wake;		/* enum kwake_kind, -1: not known */
	uint8_t flags;
};

/* the state table of @cpu on @p: its cluster's */
static const struct cpuidle_platform_state *cpu_states(const struct cpuidle_platform *p,
						       unsigned int cpu, int *count)
{
	int c = cpuidle_platform_cluster_of(p, cpu);

	if (c < 0) {
		*count = p->state_count;
		return p->states;
	}
	*count = p->clusters[c].state_count;
	return p->clusters[c].states;
}

/* @stay's energy by @p's model: its state's power over its length, and its entry and exit */
static double stay_energy_nj(const struct cpuidle_platform *p, const struct kstats_stay *stay)
{
	const struct cpuidle_platform_state *st;
	int count;

	if (!p || stay->cluster)
		return NAN;
	st = cpu_states(p, stay->index, &count);
	if (stay->state >= count || st[stay->state].model_power_mw < 0)
		return NAN;
	st += stay->state;
	/* mW x ns = 1e-12 J = 1e-3 nJ */
	return (double)st->model_power_mw * (double)stay->ns * 1e-3 +
	       (double)st->entry_energy_nj + (double)st->exit_energy_nj;
}

static struct diff_unit *unit_get(struct diff_sample *ds, const struct kstats_stay *stay)
{
	struct diff_unit **slot;

	if (stay->cluster) {
		if (stay->index >= TRACE_MAX_CLUSTERS)
			return NULL;
		slot = &ds->clusters[stay->index];
		if ((int)stay->index >= ds->nr_clusters)
			ds->nr_clusters = (int)stay->index + 1;
	} else {
		if (stay->index >= ds->nr_cpus) {
			unsigned int n = stay->index + 1;
			struct diff_unit **c = realloc(ds->cpus, n * sizeof(*c));

			if (!c)
				return NULL;
			memset(c + ds->nr_cpus, 0, (n - ds->nr_cpus) * sizeof(*c));
			ds->cpus = c;
			ds->nr_cpus = n;
		}
		slot = &ds->cpus[stay->index];
	}
	if (!*slot) {
		*slot = calloc(1, sizeof(**slot));
		if (!*slot)
			return NULL;
		(*slot)->cluster = stay->cluster;
		(*slot)->index = stay->index;
	}
	return *slot;
}

int diff_sample_add(void *ctx, const struct kstats_stay *stay)
{
	struct diff_sample *ds = ctx;
	struct diff_unit *u;
	struct diff_period *pd;

	if (stay->state < 0 || stay->state >= TRACE_MAX_STATES)
		return 0;
	u = unit_get(ds, stay);
	if (!u)
		return -ENOMEM;
	if (u->nr == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 1024;
		struct diff_period *n = realloc(u->periods, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		u->periods = n;
		u->cap = cap;
	}
	pd = &u->periods[u->nr++];
	pd->start_ns = stay->start_ns;
	pd->ns = stay->ns;
	pd->state = (int8_t)stay->state;
	pd->wake = (int8_t)(stay->wake >= 0 && stay->wake < DIFF_WAKE_KINDS ? stay->wake : -1);
	pd->energy_nj = stay_energy_nj(ds->p, stay);
	pd->flags = (stay->kernel_above ? PERIOD_KERNEL_ABOVE : 0) |
		    (stay->kernel_below ? PERIOD_KERNEL_BELOW : 0) |
		    (stay->judged_above ? PERIOD_JUDGED_ABOVE : 0) |
		    (stay->judged_below ? PERIOD_JUDGED_BELOW : 0);
	return 0;
}

/*
 * Period @i of @u into @s: in its state's slot and in the unit's.  Its
 * time covered runs to the next period's entry (the last's to the trace's
 * end, @end_ns; the first's from the trace's start, @begin_ns): the
 * periods' covers make up the trace.
 */
static void sum_period(const struct diff_unit *u, size_t i, bool kernel, int64_t begin_ns,
		       int64_t end_ns, struct diff_sums *s)
{
	const struct diff_period *pd = &u->periods[i];
	int64_t next = i + 1 < u->nr ? u->periods[i + 1].start_ns : end_ns;
	int64_t cover = next > pd->start_ns ? next - pd->start_ns : 0;
	bool above, below;
	int slot;

	if (cover < pd->ns)
		cover = pd->ns;
	if (!i && pd->start_ns > begin_ns)
		cover += pd->start_ns - begin_ns;
	above = pd->flags & (kernel ? PERIOD_KERNEL_ABOVE : PERIOD_JUDGED_ABOVE);
	below = pd->flags & (kernel ? PERIOD_KERNEL_BELOW : PERIOD_JUDGED_BELOW);
	s->cover_ns += (double)cover;
	for (slot = pd->state; ; slot = DIFF_ALL) {
		s->hits[slot] += 1;
		s->ns[slot] += (double)pd->ns;
		s->above[slot] += above;
		s->below[slot] += below;
		s->energy_nj[slot] += u->power ? pd->energy_nj : 0;
		if (pd->wake >= 0)
			s->woken[pd->wake][slot] += 1;
		if (slot == DIFF_ALL)
			break;
	}
}

void diff_sums_add(struct diff_sums *to, const struct diff_sums *from)
{
	int s, k;

	for (s = 0; s < DIFF_SLOTS; s++) {
		to->hits[s] += from->hits[s];
		to->ns[s] += from->ns[s];
		to->above[s] += from->above[s];
		to->below[s] += from->below[s];
		to->energy_nj[s] += from->energy_nj[s];
		for (k = 0; k < DIFF_WAKE_KINDS; k++)
			to->woken[k][s] += from->woken[k][s];
	}
	to->cover_ns += from->cover_ns;
}

static int unit_finish(struct diff_unit *u, const struct kstats *ks,
		       const struct cpuidle_platform *p)
{
	size_t len, i;
	bool kernel = ks->misses_recorded;
	int count = 0;

	if (u->cluster) {
		snprintf(u->name, sizeof(u->name), "%s", ks->cluster_names[u->index]);
	} else {
		snprintf(u->name, sizeof(u->name), "cpu%u", u->index);
		if (p)
			cpu_states(p, u->index, &count);
		if (kernel)
			u->verdicts = (1u << TRACE_MAX_STATES) - 1;
		else if (ks->misses_recomputed)
			u->verdicts = (1u << (count < TRACE_MAX_STATES ? count : TRACE_MAX_STATES)) - 1;
		u->power = p != NULL;
		u->wakes = ks->wake.events > 0;
		for (i = 0; i < u->nr && u->power; i++)
			u->power = !isnan(u->periods[i].energy_nj);
	}
	/* blocks of ceil(cbrt(n)) consecutive periods (diff_sample.h) */
	len = (size_t)ceil(math_cbrt((double)u->nr));
	if (len < 1)
		len = 1;
	u->nr_blocks = (u->nr + len - 1) / len;
	u->blocks = calloc(u->nr_blocks ? u->nr_blocks : 1, sizeof(*u->blocks));
	if (!u->blocks)
		return -ENOMEM;
	for (i = 0; i < u->nr; i++)
		sum_period(u, i, kernel, ks->first_ns, ks->last_ns, &u->blocks[i / len]);
	for (i = 0; i < u->nr_blocks; i++)
		diff_sums_add(&u->total, &u->blocks[i]);
	return 0;
}

int diff_sample_finish(struct diff_sample *ds, const struct kstats *ks)
{
	unsigned int cpu;
	int c, ret;

	for (cpu = 0; cpu < ds->nr_cpus; cpu++)
		if (ds->cpus[cpu] && (ret = unit_finish(ds->cpus[cpu], ks, ds->p)))
			return ret;
	for (c = 0; c < ds->nr_clusters; c++)
		if (ds->clusters[c] && (ret = unit_finish(ds->clusters[c], ks, ds->p)))
			return ret;
	return 0;
}

static void unit_free(struct diff_unit *u)
{
	if (!u)
		return;
	free(u->periods);
	free(u->blocks);
	free(u);
}

void diff_sample_free(struct diff_sample *ds)
{
	unsigned int cpu;
	int c;

	for (cpu = 0; cpu < ds->nr_cpus; cpu++)
		unit_free(ds->cpus[cpu]);
	free(ds->cpus);
	for (c = 0; c < ds->nr_clusters; c++)
		unit_free(ds->clusters[c]);
	memset(ds, 0, sizeof(*ds));
}

/* whether @slot's above/below are known for @u: every state it entered, for DIFF_ALL */
static bool verdicts_known(const struct diff_unit *u, int slot)
{
	int s;

	if (slot != DIFF_ALL)
		return u->verdicts >> slot & 1;
	for (s = 0; s < TRACE_MAX_STATES; s++)
		if (u->total.hits[s] > 0 && !(u->verdicts >> s & 1))
			return false;
	return u->verdicts != 0;
}

double diff_figure(const struct diff_unit *u, const struct diff_sums *sum, int slot,
		   enum diff_figure f)
{
	switch (f) {
	case DIFF_RESIDENCY:
		return sum->cover_ns > 0 ? 100.0 * sum->ns[slot] / sum->cover_ns : NAN;
	case DIFF_HITS:
		return sum->cover_ns > 0 ? sum->hits[slot] * 1e9 / sum->cover_ns : NAN;
	case DIFF_AVG_STAY:
		return sum->hits[slot] > 0 ? sum->ns[slot] / sum->hits[slot] : NAN;
	case DIFF_ABOVE:
		return verdicts_known(u, slot) && sum->hits[slot] > 0 ?
			100.0 * sum->above[slot] / sum->hits[slot] : NAN;
	case DIFF_BELOW:
		return verdicts_known(u, slot) && sum->hits[slot] > 0 ?
			100.0 * sum->below[slot] / sum->hits[slot] : NAN;
	case DIFF_POWER:
		/* nJ per ns is W */
		return u->power && sum->cover_ns > 0 ? sum->energy_nj[slot] / sum->cover_ns * 1e3 :
			NAN;
	default:
		if (f >= DIFF_WAKE_TIMER && f <= DIFF_WAKE_UNKNOWN)
			return u->wakes && sum->cover_ns > 0 ?
				sum->woken[f - DIFF_WAKE_TIMER][slot] * 1e9 / sum->cover_ns : NAN;
		return NAN;
	}
}

/*
 * xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018), seeded through splitmix64 as its authors advise.
 */
static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(uint64_t s[4])
{
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

void diff_rng_seed(uint64_t rng[4], uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		rng[i] = z ^ (z >> 31);
	}
}

/* a uniform draw below @n by multiply and shift (Lemire, 2019) */
static size_t draw_below(uint64_t rng[4], size_t n)
{
	return (size_t)(((unsigned __int128)rng_next(rng) * n) >> 64);
}

unsigned int diff_rng_below(uint64_t rng[4], unsigned int n)
{
	return (unsigned int)draw_below(rng, n);
}

void diff_resample(const struct diff_unit *u, uint64_t rng[4], struct diff_sums *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < u->nr_blocks; i++)
		diff_sums_add(out, &u->blocks[draw_below(rng, u->nr_blocks)]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double diff_percentile(double *v, size_t n, double q)
{
	double pos;
	size_t lo;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}
