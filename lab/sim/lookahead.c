// SPDX-License-Identifier: MIT
/*
 * lookahead.c - hold intervals back until the siblings' future is known.
 *
 * Each CPU keeps its true idle spans in time order (partial intervals at the
 * trace's edges too: the CPU was idle there) and the time up to which its
 * timeline is known: its next idle entry.  An interval is released when
 * every sibling is known past the interval's end.  Spans older than the
 * earliest interval still to be replayed on any CPU can no longer be asked
 * about and are dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lookahead.h"

/*
 * Intervals held at most (64 Ki x ~64 bytes = 4 MiB): a sibling that never
 * reports (always running, offline) must not make memory grow with the
 * trace.  Past it, intervals are released and unknown siblings count as
 * running.
 */
#define LOOKAHEAD_MAX_HELD	(64 * 1024)

struct la_span {
	int64_t start, end;
};

struct la_cpu {
	struct la_span *span;	/* ring of cap entries (a power of two) */
	size_t cap, head, len;
	size_t unreplayed;	/* the last spans, pushed but not popped */
	int64_t known;
	int cluster;
};

struct lookahead {
	const struct cpuidle_platform *pf;
	unsigned int nr_cpus;
	struct la_cpu *cpus;
	struct idle_interval *held;	/* ring of held_cap entries */
	size_t held_cap, held_head, held_len;
	struct la_span *win, *tmp;	/* scratch for queries */
	size_t win_cap;
};

int lookahead_create(const struct cpuidle_platform *pf, unsigned int nr_cpus,
		     struct lookahead **out)
{
	struct lookahead *la;
	unsigned int cpu;

	if (!pf || !out || !nr_cpus)
		return -EINVAL;
	la = calloc(1, sizeof(*la));
	if (!la)
		return -ENOMEM;
	la->pf = pf;
	la->nr_cpus = nr_cpus;
	la->cpus = calloc(nr_cpus, sizeof(*la->cpus));
	if (!la->cpus) {
		free(la);
		return -ENOMEM;
	}
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		la->cpus[cpu].known = INT64_MIN;
		la->cpus[cpu].cluster = cpuidle_platform_cluster_of(pf, cpu);
	}
	*out = la;
	return 0;
}

void lookahead_destroy(struct lookahead *la)
{
	unsigned int cpu;

	if (!la)
		return;
	for (cpu = 0; cpu < la->nr_cpus; cpu++)
		free(la->cpus[cpu].span);
	free(la->cpus);
	free(la->held);
	free(la->win);
	free(la->tmp);
	free(la);
}

static struct la_span *span_at(const struct la_cpu *p, size_t i)
{
	return &p->span[(p->head + i) & (p->cap - 1)];
}

static int span_push(struct la_cpu *p, int64_t start, int64_t end)
{
	if (p->len == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64, i;
		struct la_span *s = malloc(cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		for (i = 0; i < p->len; i++)
			s[i] = *span_at(p, i);
		free(p->span);
		p->span = s;
		p->cap = cap;
		p->head = 0;
	}
	*span_at(p, p->len) = (struct la_span){ start, end };
	p->len++;
	return 0;
}

int lookahead_push(struct lookahead *la, const struct idle_interval *iv)
{
	struct la_cpu *p = &la->cpus[iv->cpu];
	int64_t end = iv->start_ns + iv->idle_ns;
	int ret;

	if (la->held_len == la->held_cap) {
		size_t cap = la->held_cap ? la->held_cap * 2 : 256, i;
		struct idle_interval *h = malloc(cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		for (i = 0; i < la->held_len; i++)
			h[i] = la->held[(la->held_head + i) & (la->held_cap - 1)];
		free(la->held);
		la->held = h;
		la->held_cap = cap;
		la->held_head = 0;
	}
	ret = span_push(p, iv->start_ns, end);
	if (ret)
		return ret;
	p->unreplayed++;
	if (end + iv->busy_ns > p->known)
		p->known = end + iv->busy_ns;
	la->held[(la->held_head + la->held_len) & (la->held_cap - 1)] = *iv;
	la->held_len++;
	return 0;
}

/* Every sibling of @iv's CPU known past its end? */
static bool siblings_known(const struct lookahead *la, const struct idle_interval *iv)
{
	const struct la_cpu *p = &la->cpus[iv->cpu];
	int64_t end = iv->start_ns + iv->idle_ns;
	unsigned int j;

	if (p->cluster < 0)
		return true;
	for (j = 0; j < la->nr_cpus; j++)
		if (j != iv->cpu && la->cpus[j].cluster == p->cluster && la->cpus[j].known < end)
			return false;
	return true;
}

/* Drop spans that start before any interval still to be replayed. */
static void prune(struct lookahead *la)
{
	int64_t horizon = INT64_MAX;
	unsigned int j;

	for (j = 0; j < la->nr_cpus; j++) {
		const struct la_cpu *p = &la->cpus[j];
		int64_t h = p->unreplayed ? span_at(p, p->len - p->unreplayed)->start : p->known;

		if (p->known != INT64_MIN && h < horizon)
			horizon = h;
	}
	for (j = 0; j < la->nr_cpus; j++) {
		struct la_cpu *p = &la->cpus[j];

		while (p->len > p->unreplayed && span_at(p, 0)->end <= horizon) {
			p->head = (p->head + 1) & (p->cap - 1);
			p->len--;
		}
	}
}

bool lookahead_pop(struct lookahead *la, bool eof, struct idle_interval *iv)
{
	const struct idle_interval *h;

	if (!la->held_len)
		return false;
	h = &la->held[la->held_head];
	if (!eof && la->held_len <= LOOKAHEAD_MAX_HELD && !siblings_known(la, h))
		return false;
	prune(la);
	*iv = *h;
	la->held_head = (la->held_head + 1) & (la->held_cap - 1);
	la->held_len--;
	la->cpus[iv->cpu].unreplayed--;
	return true;
}

static int win_reserve(struct lookahead *la, size_t n)
{
	struct la_span *w, *t;

	if (n <= la->win_cap)
		return 0;
	n = n < 64 ? 64 : n * 2;
	w = realloc(la->win, n * sizeof(*w));
	if (!w)
		return -ENOMEM;
	la->win = w;
	t = realloc(la->tmp, n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	la->tmp = t;
	la->win_cap = n;
	return 0;
}

/* The first span of @p that ends after @t (binary search: spans are in order). */
static size_t first_after(const struct la_cpu *p, int64_t t)
{
	size_t lo = 0, hi = p->len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (span_at(p, mid)->end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t lookahead_siblings_idle_ns(struct lookahead *la, unsigned int cpu, int64_t from_ns,
				   int64_t to_ns, unsigned int *siblings)
{
	const struct la_cpu *me = &la->cpus[cpu];
	size_t nwin = 1, i;
	int64_t total = 0;
	unsigned int j;

	*siblings = 1;
	if (to_ns <= from_ns)
		return 0;
	if (win_reserve(la, 1))
		return 0;
	la->win[0] = (struct la_span){ from_ns, to_ns };
	for (j = 0; j < la->nr_cpus && me->cluster >= 0; j++) {
		const struct la_cpu *p = &la->cpus[j];
		size_t k, n = 0, w = 0;

		if (j == cpu || p->cluster != me->cluster)
			continue;
		(*siblings)++;
		if (!nwin)
			continue;
		/* intersect the windows with this sibling's idle spans */
		k = first_after(p, la->win[0].start);
		while (w < nwin && k < p->len) {
			const struct la_span *s = span_at(p, k);
			int64_t a = s->start > la->win[w].start ? s->start : la->win[w].start;
			int64_t b = s->end < la->win[w].end ? s->end : la->win[w].end;

			if (a < b) {
				if (win_reserve(la, n + 1))
					return 0;
				la->tmp[n++] = (struct la_span){ a, b };
			}
			if (s->end < la->win[w].end)
				k++;
			else
				w++;
		}
		memcpy(la->win, la->tmp, n * sizeof(*la->win));
		nwin = n;
	}
	for (i = 0; i < nwin; i++)
		total += la->win[i].end - la->win[i].start;
	return total;
}
