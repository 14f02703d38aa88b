// SPDX-License-Identifier: MIT
/*
 * interleave.c - replay the CPUs' idle entries in the order of their times.
 *
 * The source gives a CPU's interval once it is over (its busy time after
 * it included), so the intervals of different CPUs come in the order they
 * end, and a plain replay runs each whole, CPU after CPU.  A governor that
 * looks at its siblings (siblings.c) must instead find every sibling as
 * it is at its own now: each sibling replayed up to that time and not
 * beyond.  So here each CPU's intervals wait in a queue of their own and
 * the replay always goes on with the CPU whose next step comes first: its
 * next entry within the interval under replay (its clock), or the start
 * of its next interval.  A step may be taken only while every other CPU
 * of its cluster is known past that time: replayed that far, or running
 * until after it (its last interval read ends, busy time included, later),
 * or gone (the source is at its end); otherwise the source is read on.
 *
 * Memory: the intervals read ahead are those of one cluster while one of
 * its CPUs stays idle (its interval comes out of the source only once it
 * is over), capped at REPLAY_MAX_HELD; past the cap the replay goes on
 * without the CPUs that do not report, which then look running to their
 * siblings (as a domain tracker counts them).  Ties go to the lower CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay_internal.h"

/*
 * Intervals held at most, all CPUs (64 Ki x ~100 bytes = 6.4 MiB), as the
 * oracle's lookahead: a CPU that never reports must not make memory grow
 * with the trace.
 */
#define REPLAY_MAX_HELD	(64 * 1024)

static struct idle_interval *queue_at(const struct replay_cpu *c, size_t i)
{
	return &c->queue[(c->q_head + i) & (c->q_cap - 1)];
}

static int queue_push(struct replay_machine *m, const struct idle_interval *iv)
{
	struct replay_cpu *c = &m->cpus[iv->cpu];
	int64_t next = iv->start_ns + iv->idle_ns + iv->busy_ns;

	if (c->q_len == c->q_cap) {
		size_t cap = c->q_cap ? c->q_cap * 2 : 16, i;
		struct idle_interval *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < c->q_len; i++)
			q[i] = *queue_at(c, i);
		free(c->queue);
		c->queue = q;
		c->q_cap = cap;
		c->q_head = 0;
	}
	*queue_at(c, c->q_len) = *iv;
	c->q_len++;
	m->held++;
	if (next > c->known)
		c->known = next;
	return 0;
}

static void queue_pop(struct replay_machine *m, struct replay_cpu *c, struct idle_interval *iv)
{
	*iv = *queue_at(c, 0);
	c->q_head = (c->q_head + 1) & (c->q_cap - 1);
	c->q_len--;
	m->held--;
}

void replay_queues_free(struct replay_machine *m)
{
	unsigned int i;

	for (i = 0; m->cpus && i < m->nr_cpus; i++)
		free(m->cpus[i].queue);
}

/* When @c steps next (INT64_MAX: nothing to step). */
static int64_t next_step(const struct replay_cpu *c)
{
	if (c->active)
		return (int64_t)c->clock;
	return c->q_len ? queue_at(c, 0)->start_ns : INT64_MAX;
}

/*
 * Whether every other CPU of @c's cluster is known at @t: it has
 * something queued or under way (its place in the order is then known),
 * or its timeline was read past @t.
 */
static bool siblings_known(const struct replay_machine *m, const struct replay_cpu *c, int64_t t)
{
	unsigned int i;

	for (i = 0; i < m->nr_cpus; i++) {
		const struct replay_cpu *s = &m->cpus[i];

		if (s != c && s->cluster == c->cluster && !s->active && !s->q_len &&
		    s->known <= t)
			return false;
	}
	return true;
}

int replay_interleaved(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		       struct replay_source *src, struct cpuidle_lab_result *res)
{
	struct idle_interval iv;
	bool eof = false;
	int ret;

	for (;;) {
		struct replay_cpu *best = NULL;
		int64_t t = INT64_MAX;
		unsigned int i;

		for (i = 0; i < m->nr_cpus; i++) {
			int64_t n = next_step(&m->cpus[i]);

			if (n < t) {
				t = n;
				best = &m->cpus[i];
			}
		}
		if (!eof && (!best || (m->held < REPLAY_MAX_HELD && !siblings_known(m, best, t)))) {
			ret = replay_next(m, src, &iv);
			if (ret < 0)
				return ret;
			if (!ret)
				eof = true;
			else if ((ret = queue_push(m, &iv)))
				return ret;
			continue;
		}
		if (!best)
			return 0;	/* all replayed */
		if (!best->active) {
			queue_pop(m, best, &iv);
			if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END)) {
				ret = replay_one(m, cfg, &iv, res);
				if (ret)
					return ret;
				continue;
			}
			ret = replay_begin(m, cfg, &iv, res);
			if (ret)
				return ret;
		}
		if (best->remaining > 0) {
			ret = replay_step(m, cfg, best, res);
			if (ret)
				return ret;
		}
		if (best->remaining <= 0)
			replay_end(m, best);
	}
}
