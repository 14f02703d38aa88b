// SPDX-License-Identifier: MIT
/*
 * steady.c - bounded work in very long intervals.
 *
 * An interval is replayed entry by entry, as the kernel's idle loop would
 * run it.  Where entries are short and the interval long - polls cut by
 * their time limit under a QoS of 0, a tick that wakes a CPU every few
 * milliseconds for hours - that is one governor call per few microseconds
 * of trace: a 66-day interval of a crafted file would take a day.
 *
 * Past cpuidle_lab_run.exact_entries entries in one interval (2^20 by
 * default), the entries are grouped by the tick period their start falls
 * in (a *window*), each with a fingerprint of what happened in it: where
 * its first entry began in the period, then each entry's state, length,
 * end and tick decision.  Once the last k windows (k <= STEADY_MAX_PERIOD)
 * repeat the k before them exactly - the same fingerprints, no real
 * wake-up, the same change in every counter - the machine is in a steady
 * state of period k ticks, and all but the last period and the remainder
 * of the interval are counted as repeats of it: every counter grows by its
 * change over one period times the number of periods, the clock moves on,
 * and the replay goes on entry by entry for the rest.  The governor is not
 * called for the repeats (its state, repeating, would not change), its
 * decisions are not logged, and the cluster model sees the span as one
 * stay in the period's shallowest state.  Those counts are the replay's
 * own for a governor whose state is its per-CPU data and the device's
 * fields (the built-in ones): the state is compared too.
 *
 * A governor whose state never settles (hazard's time idle so far grows
 * with the interval) would still be called for every entry: past
 * CPUIDLE_LAB_CAP_FACTOR times exact_entries, the last window stands for the
 * rest of the interval whatever its state, an estimate counted apart.
 * cpuidle_lab_result.extrapolated counts the entries not replayed, and
 * .approximated those of the cap; libcpuidle-replay(7) says it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "replay_internal.h"

/*
 * A known timer is an input that changes, as is the time left to the
 * oracle: a governor may change its mind as the end nears (hazard looks
 * 2^34 ns, 17 s, ahead), so no repeat ends within twice that of it; the
 * rest is replayed entry by entry.
 */
#define STEADY_END_MARGIN_NS	(1LL << 35)

/* the longest steady period looked for, in tick periods */
#define STEADY_MAX_PERIOD	8
#define STEADY_WINDOWS		(2 * STEADY_MAX_PERIOD)

#define FNV_OFFSET		1469598103934665603ULL
#define FNV_PRIME		1099511628211ULL

/* the counters an entry changes, as they stood at a window's start */
struct steady_snap {
	uint64_t usage[CPUIDLE_STATE_MAX], time_us[CPUIDLE_STATE_MAX];
	uint64_t time_ns[CPUIDLE_STATE_MAX], above[CPUIDLE_STATE_MAX];
	uint64_t below[CPUIDLE_STATE_MAX], rejected[CPUIDLE_STATE_MAX];
	uint64_t entries, qos_violations, qos_unmeetable;
	uint64_t kernel_compared, kernel_matched, window_matched, window_extra;
};

/*
 * What the governor carries from one entry to the next: its per-CPU data
 * (cpuidle_governor.governor_data_size bytes) and the device's fields it
 * reads.  The same at the start of two periods, with the same inputs, a
 * deterministic governor does the same in both.
 */
struct steady_gov {
	unsigned char *data;		/* a copy of dev->governor_data */
	uint64_t last_residency_ns, poll_limit_ns;
	int last_residency, last_state_idx;
	bool poll_time_limit;
	const struct cpuidle_state *last_state;
};

struct steady_window {
	uint64_t fp;		/* fingerprint of its entries */
	uint64_t entries;
	uint64_t start;		/* the clock at its first entry */
	int64_t remaining;	/* the interval's idle time left then */
	bool clean;		/* no real wake-up ended an entry */
	int shallowest;		/* the shallowest state entered */
	struct steady_snap snap;	/* at its first entry */
	struct steady_gov gov;		/* the governor's state then */
};

struct replay_steady {
	size_t gov_size;		/* bytes of governor_data */
	struct steady_window win[STEADY_WINDOWS];	/* closed, oldest first */
	unsigned int nr;
	struct steady_window cur;	/* the window under way */
	uint64_t cur_index;		/* its tick period */
	bool cur_open;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * FNV_PRIME;
	return h;
}

static void snapshot(const struct replay_cpu *c, struct steady_snap *s)
{
	int i;

	memset(s, 0, sizeof(*s));	/* the states past state_count compare too */
	for (i = 0; i < c->dev.state_count; i++) {
		const struct cpuidle_state_usage *u = &c->dev.states_usage[i];

		s->usage[i] = u->usage;
		s->time_us[i] = u->time;
		s->time_ns[i] = u->time_ns;
		s->above[i] = u->above;
		s->below[i] = u->below;
		s->rejected[i] = u->rejected;
	}
	s->entries = c->n.entries;
	s->qos_violations = c->n.qos_violations;
	s->qos_unmeetable = c->n.qos_unmeetable;
	s->kernel_compared = c->n.kernel_compared;
	s->kernel_matched = c->n.kernel_matched;
	s->window_matched = c->n.window_matched;
	s->window_extra = c->n.window_extra;
}

/* the snapshot's fields as an array of counters, for the arithmetic */
#define SNAP_WORDS	(sizeof(struct steady_snap) / sizeof(uint64_t))

static void snap_sub(const struct steady_snap *a, const struct steady_snap *b,
		     struct steady_snap *d)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	uint64_t *z = (uint64_t *)d;
	size_t i;

	for (i = 0; i < SNAP_WORDS; i++)
		z[i] = x[i] - y[i];
}

static bool same_change(const struct steady_snap *a0, const struct steady_snap *a1,
			const struct steady_snap *b0, const struct steady_snap *b1)
{
	struct steady_snap da, db;

	snap_sub(a1, a0, &da);
	snap_sub(b1, b0, &db);
	return !memcmp(&da, &db, sizeof(da));
}

static void gov_save(const struct cpuidle_device *dev, size_t size, struct steady_gov *g)
{
	unsigned char *data = g->data;

	if (size)
		memcpy(data, dev->governor_data, size);
	*g = (struct steady_gov){
		.data = data,
		.last_residency_ns = dev->last_residency_ns,
		.poll_limit_ns = dev->poll_limit_ns,
		.last_residency = dev->last_residency,
		.last_state_idx = dev->last_state_idx,
		.poll_time_limit = dev->poll_time_limit,
		.last_state = dev->last_state,
	};
}

static bool gov_same(const struct steady_gov *a, const struct steady_gov *b, size_t size)
{
	return a->last_residency_ns == b->last_residency_ns &&
	       a->poll_limit_ns == b->poll_limit_ns && a->last_residency == b->last_residency &&
	       a->last_state_idx == b->last_state_idx &&
	       a->poll_time_limit == b->poll_time_limit && a->last_state == b->last_state &&
	       (!size || !memcmp(a->data, b->data, size));
}

void replay_steady_free(struct replay_steady *st)
{
	unsigned int i;

	if (!st)
		return;
	for (i = 0; i < STEADY_WINDOWS; i++)
		free(st->win[i].gov.data);
	free(st->cur.gov.data);
	free(st);
}

int replay_steady_begin(struct replay_steady **stp, const struct cpuidle_device *dev)
{
	const struct cpuidle_governor *gov = cpuidle_current_governor(dev->sys);
	size_t size = gov && dev->governor_data ? gov->governor_data_size : 0;
	struct replay_steady *st = *stp;
	unsigned int i;

	if (st && st->gov_size != size) {
		replay_steady_free(st);
		st = *stp = NULL;
	}
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return -ENOMEM;
		*stp = st;
		st->gov_size = size;
		for (i = 0; i <= STEADY_WINDOWS && size; i++) {
			unsigned char **data = i < STEADY_WINDOWS ? &st->win[i].gov.data :
							       &st->cur.gov.data;

			*data = malloc(size);
			if (!*data)
				return -ENOMEM;
		}
	}
	st->nr = 0;
	st->cur_open = false;
	return 0;
}

void replay_steady_note(struct replay_steady *st, int idx, int64_t cycle_ns,
			enum replay_wake wake, bool tick_stopped)
{
	struct steady_window *w = &st->cur;

	w->fp = mix(mix(mix(mix(w->fp, (uint64_t)idx), (uint64_t)cycle_ns), (uint64_t)wake),
		    tick_stopped);
	w->entries++;
	w->clean &= wake != REPLAY_WAKE_EVENT;
	if (idx < w->shallowest)
		w->shallowest = idx;
}

/*
 * The smallest period k (in windows) whose last two repeats are the same,
 * or 0.  @now: the counters at the start of the window that follows.
 */
static unsigned int steady_period(const struct replay_steady *st, const struct steady_snap *now,
				  const struct steady_gov *gov_now)
{
	unsigned int k, i;

	for (k = 1; k <= STEADY_MAX_PERIOD && 2 * k <= st->nr; k++) {
		/* the governor where it was a period ago: the next one repeats */
		if (!gov_same(&st->win[st->nr - k].gov, gov_now, st->gov_size))
			continue;
		for (i = 0; i < k; i++) {
			const struct steady_window *a = &st->win[st->nr - 1 - i];
			const struct steady_window *b = &st->win[st->nr - 1 - k - i];
			const struct steady_snap *a1 = i ? &st->win[st->nr - i].snap : now;
			const struct steady_snap *b1 = &st->win[st->nr - k - i].snap;

			if (a->fp != b->fp || a->entries != b->entries || !a->clean || !b->clean ||
			    !same_change(&a->snap, a1, &b->snap, b1))
				break;
		}
		if (i == k)
			return k;
	}
	return 0;
}

/* count @n repeats of the period that began at window @first, now ending */
static int repeat_period(struct replay_machine *m, struct replay_cpu *c,
			 struct cpuidle_lab_result *res, int64_t *timer_left,
			 const struct steady_window *first, const struct steady_snap *now,
			 unsigned int k, uint64_t n, int64_t period_ns, int64_t used_ns,
			 bool settled)
{
	struct replay_steady *st = c->steady;
	struct steady_snap d;
	int64_t span = (int64_t)n * period_ns, used = (int64_t)n * used_ns;
	int shallowest = first->shallowest, i, ret;
	unsigned int w;

	for (w = st->nr - k; w < st->nr; w++)
		if (st->win[w].shallowest < shallowest)
			shallowest = st->win[w].shallowest;
	snap_sub(now, &first->snap, &d);
	for (i = 0; i < c->dev.state_count; i++) {
		struct cpuidle_state_usage *u = &c->dev.states_usage[i];

		u->usage += n * d.usage[i];
		u->time += n * d.time_us[i];
		u->time_ns += n * d.time_ns[i];
		u->above += n * d.above[i];
		u->below += n * d.below[i];
		u->rejected += n * d.rejected[i];
	}
	c->n.entries += n * d.entries;
	res->extrapolated += n * d.entries;
	if (!settled)
		res->approximated += n * d.entries;
	c->n.qos_violations += n * d.qos_violations;
	c->n.qos_unmeetable += n * d.qos_unmeetable;
	c->n.kernel_compared += n * d.kernel_compared;
	c->n.kernel_matched += n * d.kernel_matched;
	c->n.window_matched += n * d.window_matched;
	c->n.window_extra += n * d.window_extra;
	if (m->domains && domain_tracker_wants_segments(m->domains, c->dev.cpu)) {
		ret = domain_segment(m->domains, c->dev.cpu, (int64_t)c->clock, used, span,
				     shallowest);
		if (ret)
			return ret;
	}
	/* the clock moves by the periods, the idle time left by what they used of it */
	c->clock += (uint64_t)span;
	c->remaining -= used;
	if (*timer_left != CPUIDLE_TIME_INFINITE)
		*timer_left -= used;
	return 0;
}

/*
 * Repeat the k windows from @first for as many whole periods as fit in
 * @room but the last.  Return: 1 if some did (the ring is then emptied),
 * 0 if none, or -ENOMEM.
 */
static int repeat(struct replay_machine *m, struct replay_cpu *c, struct cpuidle_lab_result *res,
		  int64_t *timer_left, const struct steady_window *first,
		  const struct steady_snap *now, unsigned int k, int64_t room, bool settled)
{
	int64_t period_ns = (int64_t)(c->clock - first->start);
	int64_t used_ns = first->remaining - c->remaining;
	uint64_t n;
	int ret;

	if (period_ns <= 0 || used_ns <= 0 || room <= 2 * used_ns)
		return 0;
	n = (uint64_t)((room - used_ns) / used_ns) - 1;
	if (!n)
		return 0;
	ret = repeat_period(m, c, res, timer_left, first, now, k, n, period_ns, used_ns, settled);
	c->steady->nr = 0;	/* look again from here */
	return ret ? ret : 1;
}

int replay_steady_step(struct replay_machine *m, struct replay_cpu *c,
		       struct cpuidle_lab_result *res, int64_t *timer_left, bool cap)
{
	struct replay_steady *st = c->steady;
	uint64_t index = c->clock / (uint64_t)m->tick_ns;
	struct steady_snap now;
	unsigned char *spare;
	bool closed = st->cur_open;
	int64_t room = c->remaining;	/* what the repeats may use */
	unsigned int k = 0;
	int done = 0;

	if (st->cur_open && index == st->cur_index)
		return 0;
	snapshot(c, &now);
	if (closed) {
		/* the window joins the ring; the buffer it leaves is the new one's */
		if (st->nr == STEADY_WINDOWS) {
			spare = st->win[0].gov.data;
			memmove(&st->win[0], &st->win[1], (STEADY_WINDOWS - 1) * sizeof(st->win[0]));
			st->nr--;
		} else {
			spare = st->win[st->nr].gov.data;
		}
		st->win[st->nr++] = st->cur;
		st->cur.gov.data = spare;
	}
	gov_save(&c->dev, st->gov_size, &st->cur.gov);	/* where the next window starts */
	if (closed)
		k = steady_period(st, &now, &st->cur.gov);
	if (k) {
		const struct steady_window *first = &st->win[st->nr - k];

		/* the inputs that change as the end nears: none repeats within the margin */
		if (*timer_left != CPUIDLE_TIME_INFINITE && *timer_left < room)
			room = *timer_left;
		if (m->sees_end || *timer_left != CPUIDLE_TIME_INFINITE)
			room -= STEADY_END_MARGIN_NS;
		/* the period begins where the one k ticks before began */
		if ((int64_t)(c->clock - first->start) == (int64_t)k * m->tick_ns)
			done = repeat(m, c, res, timer_left, first, &now, k, room, true);
	}
	if (!done && cap && closed)	/* past the cap: the last window stands for the rest */
		done = repeat(m, c, res, timer_left, &st->win[st->nr - 1], &now, 1, c->remaining,
			      false);
	if (done < 0)
		return done;
	if (done) {
		snapshot(c, &now);
		index = c->clock / (uint64_t)m->tick_ns;
	}
	st->cur.fp = mix(FNV_OFFSET, c->clock % (uint64_t)m->tick_ns);
	st->cur.entries = 0;
	st->cur.start = c->clock;
	st->cur.remaining = c->remaining;
	st->cur.clean = true;
	st->cur.shallowest = CPUIDLE_STATE_MAX;
	st->cur.snap = now;
	st->cur_index = index;
	st->cur_open = true;
	return 0;
}
