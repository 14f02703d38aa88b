// SPDX-License-Identifier: MIT
/*
 * trace_ivf.c - an interval file read back as the idle events it was built
 * from, as near as the file keeps them (trace_open_intervals()).
 *
 * What an interval keeps (intervals.h): its first entry, for its first
 * IV_MAX_KSTATES kernel entries their state, their residency (exit minus
 * entry) and whether the kernel's tick ended them, the kernel's time in
 * idle and between its re-entries summed over all of them, what woke the
 * CPU, and whether the kernel logged cpu_idle_miss above or below anywhere
 * in it.  Each interval becomes, on its CPU:
 *
 *   entry j at t_j (t_0 its start), its exit at t_j + kresidency[j], the
 *   next entry one gap later (kernel_loop_ns shared evenly among the
 *   gaps, the remainder in the last); a local timer event at the exit of
 *   a kept entry the tick ended; the wake-up at the last exit (a local
 *   timer for a timer or the tick, the IPI, the interrupt by number and
 *   name; nothing where the trace showed nothing); the kernel's above or
 *   below after it, where the file's verdicts can be placed (below).
 *
 * Exact, so every per-CPU figure of kstats where no interval has more
 * entries than it keeps: each kept entry's state and length, each
 * interval's first entry and last exit (start + kernel_idle_ns +
 * kernel_loop_ns), the busy time between intervals, the wake-ups.
 * Approximate, and counted in struct trace_ivf_approx: where the
 * re-entries of an interval fall between its first entry and its last
 * exit (a cluster's periods of every CPU idle may move by a gap's
 * length); entries past the kept ones (their residencies share evenly
 * what kernel_idle_ns leaves, their state is the last kept one's, which
 * IV_KSTATES_REST says is right; no tick is known to have ended them); an
 * interval of UINT16_MAX entries or more (the count is a floor); a
 * residency of 4.29 s or more (saturated in the file: it gets what
 * kernel_idle_ns leaves).
 *
 * The kernel's verdicts.  The file marks an interval above or below, not
 * an entry: they are placed exactly when no interval so marked has more
 * than one entry (the first pass tells), and otherwise not at all, so
 * that a reader judges every entry by a platform's table (kstats does, as
 * for a trace without cpu_idle_miss events).
 *
 * Order.  A CPU's intervals are in its time order in the file, but CPUs
 * are interleaved as reconstruction completed their intervals: a long
 * idle interval of one CPU is written after the many short ones another
 * CPU had meanwhile.  A first pass counts each CPU's intervals; the second
 * queues each CPU's intervals and hands on the earliest next event of any
 * CPU once no CPU with intervals still to come can have an earlier one: a
 * CPU's next interval begins at its last one's start + idle + busy (its
 * next entry) at the earliest.  What is held is one idle interval's worth
 * of the other CPUs' intervals, not the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivf.h"
#include "trace_internal.h"

/* where an interval's events stand: what comes next */
enum feed_step {
	STEP_ENTER,	/* entry @j */
	STEP_EXIT,	/* its exit */
	STEP_TICK,	/* the tick that ended it (a kept entry, not the last) */
	STEP_WAKE,	/* what woke the CPU (after the last exit) */
	STEP_MISS_ABOVE,	/* the kernel's verdict (after the wake-up) */
	STEP_MISS_BELOW,
	STEP_DONE,
};

/*
 * One CPU: its intervals read and not yet handed on (a ring of @len from
 * @head, room for @cap), where the first of them stands (@step, entry @j
 * at @t_ns, its residencies and gaps), its next event (@next, if
 * @has_next), the intervals still to read (@left) and the earliest its
 * next one read may begin (@horizon_ns).
 */
struct cpu_feed {
	struct idle_interval *q;
	size_t head, len, cap;
	enum feed_step step;
	unsigned int j;
	int64_t t_ns;
	int64_t spread_ns, spread_rest_ns;	/* each unknown residency's, the last's extra */
	unsigned int nr_unknown;		/* entries sharing what is left */
	unsigned int unknown_seen;
	int64_t gap_ns, gap_rest_ns;		/* each gap, the last one's extra */
	int64_t last_ns;	/* the CPU's last event: none goes back before it */
	struct trace_event next;
	bool has_next;
	uint64_t left;
	int64_t horizon_ns;
};

struct ivf_feed {
	struct ivf_reader *iv;
	const char *path;
	struct ivf_info info;
	unsigned int nr_cpus;
	struct cpu_feed *cpu;
	unsigned int *heap;	/* CPUs with a next event, earliest first */
	unsigned int heap_len;
	bool misses;		/* place the kernel's verdicts (see above) */
	bool all_read;
	int64_t safe_ns;	/* safe_before(), as it stood at the last interval read */
	uint64_t read;		/* intervals read, for messages */
	struct trace_ivf_approx approx;
};

/* ------------------------------------------------------------ the first pass */

/* @msg (the interval file's own, naming the file and offset) as the reader's error */
static int fail_said(struct trace_reader *r, int err, const char *msg)
{
	size_t n = strnlen(msg, sizeof(r->errmsg) - 1);

	memcpy(r->errmsg, msg, n);
	r->errmsg[n] = '\0';
	r->err = err;
	return err;
}

/* each CPU's intervals counted, and whether the file's verdicts can be placed */
static int first_pass(struct trace_reader *r, struct ivf_feed *f)
{
	struct ivf_reader *iv;
	struct idle_interval x;
	uint64_t marked_one = 0, marked_many = 0;
	char err[600];
	int ret;

	ret = ivf_open(f->path, &iv, err, sizeof(err));
	if (ret)
		return fail_said(r, ret, err);
	while ((ret = ivf_next(iv, &x)) > 0) {
		if (x.cpu >= f->nr_cpus) {
			ivf_close(iv);
			return trace_fail(r, -EINVAL, 0, "CPU %u beyond the header's %u CPUs",
					  x.cpu, f->nr_cpus);
		}
		f->cpu[x.cpu].left++;
		if (x.flags & (IV_KERNEL_ABOVE | IV_KERNEL_BELOW)) {
			if (x.nr_entries > 1)
				marked_many++;
			else
				marked_one++;
		}
	}
	if (ret < 0) {
		ret = fail_said(r, ret, ivf_error(iv));
		ivf_close(iv);
		return ret;
	}
	ivf_close(iv);
	f->misses = marked_one && !marked_many;
	f->approx.misses_unplaced = marked_many;
	return 0;
}

/* ------------------------------------------------------------ one interval's events */

/* @t + @d (@d >= 0), at most INT64_MAX: a crafted file's lengths may add up past it */
static int64_t later(int64_t t, int64_t d)
{
	return d > INT64_MAX - t ? INT64_MAX : t + d;
}

/* whether entry @j of @iv has its residency in the file */
static bool residency_kept(const struct ivf_feed *f, const struct idle_interval *iv,
			   unsigned int j)
{
	return f->info.version >= 4 && j < IV_MAX_KSTATES && iv->kresidency[j] != UINT32_MAX;
}

/* @c's first queued interval begins: its residencies and gaps worked out */
static void interval_begin(struct ivf_feed *f, struct cpu_feed *c)
{
	const struct idle_interval *iv = &c->q[c->head];
	unsigned int n = iv->nr_entries, j;
	int64_t known = 0, rest;

	c->j = 0;
	c->unknown_seen = 0;
	c->nr_unknown = 0;
	c->t_ns = iv->start_ns;
	if (!n) {		/* the trace began inside it: its exit alone */
		c->step = STEP_EXIT;
		return;
	}
	c->step = STEP_ENTER;
	for (j = 0; j < n; j++) {
		if (residency_kept(f, iv, j))
			known += iv->kresidency[j];
		else
			c->nr_unknown++;
	}
	rest = iv->kernel_idle_ns > known ? iv->kernel_idle_ns - known : 0;
	c->spread_ns = c->nr_unknown ? rest / c->nr_unknown : 0;
	c->spread_rest_ns = c->nr_unknown ? rest % c->nr_unknown : 0;
	c->gap_ns = n > 1 ? iv->kernel_loop_ns / (n - 1) : 0;
	c->gap_rest_ns = n > 1 ? iv->kernel_loop_ns % (n - 1) : 0;

	f->approx.intervals++;
	f->approx.entries += n;
	if (n > 1)
		f->approx.gaps_spread += n - 1;
	if (n > IV_MAX_KSTATES) {
		f->approx.entries_unkept += n - IV_MAX_KSTATES;
		if (!(iv->flags & IV_KSTATES_REST))
			f->approx.states_unkept += n - IV_MAX_KSTATES;
	}
	if (n == UINT16_MAX)
		f->approx.count_floor++;
	for (j = 0; j < n && j < IV_MAX_KSTATES; j++)
		f->approx.residency_spread += !residency_kept(f, iv, j);
}

/* the residency of @c's current entry */
static int64_t residency(const struct ivf_feed *f, struct cpu_feed *c,
			 const struct idle_interval *iv)
{
	if (residency_kept(f, iv, c->j))
		return iv->kresidency[c->j];
	return c->spread_ns + (++c->unknown_seen == c->nr_unknown ? c->spread_rest_ns : 0);
}

/* the gap after @c's current entry (the last gap takes the remainder) */
static int64_t gap(const struct cpu_feed *c, const struct idle_interval *iv)
{
	return c->gap_ns + (c->j + 2 == iv->nr_entries ? c->gap_rest_ns : 0);
}

/* the state of @iv's entry @j: kept, else the last kept one's */
static int entry_state(const struct idle_interval *iv, unsigned int j)
{
	int s = iv->kstates[j < IV_MAX_KSTATES ? j : IV_MAX_KSTATES - 1];

	return s < 0 ? 0 : s;
}

/* the event that woke @iv's CPU, into @ev (type and fields): false if none shows */
static bool wake_event(const struct ivf_feed *f, const struct idle_interval *iv,
		       struct trace_event *ev)
{
	switch (iv->wake) {
	case IV_WAKE_TIMER:
	case IV_WAKE_TICK:
		ev->type = TEV_LOCAL_TIMER;
		return true;
	case IV_WAKE_RESCHED:
		ev->type = TEV_RESCHED_IPI;
		return true;
	case IV_WAKE_CALL_FUNC:
		ev->type = TEV_CALL_FUNC_IPI;
		return true;
	case IV_WAKE_IRQ:
		ev->type = TEV_IRQ;
		ev->irq = iv->irq;
		snprintf(ev->name, sizeof(ev->name), "%s", ivf_irq_name(f->iv, iv->irq));
		return true;
	default:
		return false;
	}
}

/*
 * @c's next event into c->next, its first queued interval moving on (and
 * the next interval begun when it is done): false when the queue is empty
 */
static bool feed_step(struct ivf_feed *f, unsigned int cpu)
{
	struct cpu_feed *c = &f->cpu[cpu];
	struct trace_event *ev = &c->next;

	while (c->len) {
		const struct idle_interval *iv = &c->q[c->head];
		bool last = c->j + 1 >= iv->nr_entries;

		memset(ev, 0, sizeof(*ev));
		ev->cpu = cpu;
		ev->irq = -1;
		switch (c->step) {
		case STEP_ENTER:
			ev->type = TEV_IDLE_ENTER;
			ev->state = entry_state(iv, c->j);
			ev->ts_ns = c->t_ns;
			c->t_ns = later(c->t_ns, residency(f, c, iv));
			/* the trace ended inside its last entry: no exit */
			c->step = last && (iv->flags & IV_PARTIAL_END) ? STEP_DONE : STEP_EXIT;
			break;
		case STEP_EXIT:
			ev->type = TEV_IDLE_EXIT;
			if (!iv->nr_entries)	/* the trace began inside it */
				c->t_ns = later(iv->start_ns, iv->idle_ns);
			ev->ts_ns = c->t_ns;
			if (iv->nr_entries && !last)
				c->step = c->j < IV_MAX_KSTATES && (iv->ktick_mask >> c->j & 1) ?
					  STEP_TICK : STEP_ENTER;
			else
				c->step = STEP_WAKE;
			if (c->step == STEP_ENTER) {
				c->t_ns = later(c->t_ns, gap(c, iv));
				c->j++;
			}
			break;
		case STEP_TICK:
			ev->type = TEV_LOCAL_TIMER;
			ev->ts_ns = c->t_ns;
			c->t_ns = later(c->t_ns, gap(c, iv));
			c->j++;
			c->step = STEP_ENTER;
			break;
		case STEP_WAKE:
			c->step = STEP_MISS_ABOVE;
			if (!wake_event(f, iv, ev))
				continue;
			ev->ts_ns = c->t_ns;
			break;
		case STEP_MISS_ABOVE:
		case STEP_MISS_BELOW:
			if (!f->misses || !iv->nr_entries ||
			    !(iv->flags & (c->step == STEP_MISS_ABOVE ? IV_KERNEL_ABOVE :
							 IV_KERNEL_BELOW))) {
				c->step = c->step == STEP_MISS_ABOVE ? STEP_MISS_BELOW : STEP_DONE;
				continue;
			}
			ev->type = TEV_IDLE_MISS;
			ev->state = entry_state(iv, c->j);
			ev->below = c->step == STEP_MISS_BELOW;
			ev->ts_ns = c->t_ns;
			c->step = c->step == STEP_MISS_ABOVE ? STEP_MISS_BELOW : STEP_DONE;
			break;
		case STEP_DONE:
			c->head = (c->head + 1) % c->cap;
			if (--c->len)
				interval_begin(f, c);
			continue;
		}
		/* never back in the CPU's own time (a wake-up applied late, a cut residency) */
		if (ev->ts_ns < c->last_ns)
			ev->ts_ns = c->last_ns;
		c->last_ns = ev->ts_ns;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------ the CPUs' heap */

static bool earlier(const struct ivf_feed *f, unsigned int a, unsigned int b)
{
	const struct trace_event *x = &f->cpu[a].next, *y = &f->cpu[b].next;

	return x->ts_ns < y->ts_ns || (x->ts_ns == y->ts_ns && a < b);
}

static void heap_push(struct ivf_feed *f, unsigned int cpu)
{
	unsigned int i = f->heap_len++, parent;

	for (; i > 0; i = parent) {
		parent = (i - 1) / 2;
		if (!earlier(f, cpu, f->heap[parent]))
			break;
		f->heap[i] = f->heap[parent];
	}
	f->heap[i] = cpu;
}

/* the top's key changed (or it left: @gone): its place again */
static void heap_settle_top(struct ivf_feed *f, bool gone)
{
	unsigned int cpu = gone ? f->heap[--f->heap_len] : f->heap[0];
	unsigned int i = 0, c;

	if (!f->heap_len)
		return;
	for (;;) {
		c = 2 * i + 1;
		if (c >= f->heap_len)
			break;
		if (c + 1 < f->heap_len && earlier(f, f->heap[c + 1], f->heap[c]))
			c++;
		if (!earlier(f, f->heap[c], cpu))
			break;
		f->heap[i] = f->heap[c];
		i = c;
	}
	f->heap[i] = cpu;
}

/* ------------------------------------------------------------ reading */

/* no CPU with intervals still to read can have an event before this */
static int64_t safe_before(const struct ivf_feed *f)
{
	int64_t safe = INT64_MAX;
	unsigned int cpu;

	if (f->all_read)
		return INT64_MAX;
	for (cpu = 0; cpu < f->nr_cpus; cpu++)
		if (f->cpu[cpu].left && f->cpu[cpu].horizon_ns < safe)
			safe = f->cpu[cpu].horizon_ns;
	return safe;
}

/* the next interval into its CPU's queue: 1, 0 at the end, or an error */
static int read_interval(struct trace_reader *r, struct ivf_feed *f)
{
	struct idle_interval iv;
	struct cpu_feed *c;
	int64_t next_entry;
	int ret = ivf_next(f->iv, &iv);

	if (ret <= 0) {
		if (ret < 0)
			return fail_said(r, ret, ivf_error(f->iv));
		f->all_read = true;
		f->safe_ns = INT64_MAX;
		return 0;
	}
	f->read++;
	c = &f->cpu[iv.cpu];
	if (!c->left)	/* not as the first pass counted: the file changed */
		return trace_fail(r, -EINVAL, 0, "interval %llu: more intervals of CPU %u "
				  "than a moment ago (the file changed while read)",
				  (unsigned long long)f->read, iv.cpu);
	if (c->len == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16, i;
		struct idle_interval *q = malloc(cap * sizeof(*q));

		if (!q)
			return trace_fail(r, -ENOMEM, 0, "%s", strerror(ENOMEM));
		for (i = 0; i < c->len; i++)
			q[i] = c->q[(c->head + i) % (c->cap ? c->cap : 1)];
		free(c->q);
		c->q = q;
		c->cap = cap;
		c->head = 0;
	}
	c->q[(c->head + c->len++) % c->cap] = iv;
	c->left--;
	next_entry = later(later(iv.start_ns, iv.idle_ns), iv.busy_ns);
	if (next_entry > c->horizon_ns)
		c->horizon_ns = next_entry;
	f->safe_ns = safe_before(f);
	if (c->len == 1) {
		interval_begin(f, c);
		if (feed_step(f, iv.cpu)) {
			c->has_next = true;
			heap_push(f, iv.cpu);
		}
	}
	return 1;
}

int trace_ivf_next(struct trace_reader *r, struct trace_event *ev)
{
	struct ivf_feed *f = r->ivf;
	unsigned int cpu;
	int ret;

	for (;;) {
		if (f->heap_len && f->cpu[f->heap[0]].next.ts_ns < f->safe_ns)
			break;
		if (f->all_read) {
			if (!f->heap_len)
				return 0;
			break;
		}
		ret = read_interval(r, f);
		if (ret < 0)
			return ret;
	}
	cpu = f->heap[0];
	*ev = f->cpu[cpu].next;
	f->cpu[cpu].has_next = feed_step(f, cpu);
	heap_settle_top(f, !f->cpu[cpu].has_next);
	return 1;
}

int trace_ivf_open(struct trace_reader *r, const char *path)
{
	struct ivf_feed *f = calloc(1, sizeof(*f));
	char err[600];
	unsigned int cpu;
	int ret;

	if (!f)
		return trace_fail(r, -ENOMEM, 0, "%s", strerror(ENOMEM));
	r->ivf = f;
	f->path = r->path;
	ret = ivf_open(path, &f->iv, err, sizeof(err));
	if (ret)
		return fail_said(r, ret, err);
	f->info = *ivf_reader_info(f->iv);
	f->nr_cpus = f->info.nr_cpus;
	f->cpu = calloc(f->nr_cpus ? f->nr_cpus : 1, sizeof(*f->cpu));
	f->heap = calloc(f->nr_cpus ? f->nr_cpus : 1, sizeof(*f->heap));
	if (!f->cpu || !f->heap)
		return trace_fail(r, -ENOMEM, 0, "%s", strerror(ENOMEM));
	for (cpu = 0; cpu < f->nr_cpus; cpu++)
		f->cpu[cpu].horizon_ns = f->cpu[cpu].last_ns = INT64_MIN;
	ret = first_pass(r, f);
	if (ret)
		return ret;
	f->safe_ns = safe_before(f);
	r->fmt = (enum trace_format)f->info.source_format;
	if (f->info.notes_known) {
		size_t len = f->info.notes.recording_len;

		if (len > sizeof(r->info.recording))
			len = sizeof(r->info.recording);
		memcpy(r->info.recording, f->info.notes.recording, len);
		r->info.recording_len = len;
	}
	return 0;
}

void trace_ivf_close(struct trace_reader *r)
{
	struct ivf_feed *f = r->ivf;
	unsigned int cpu;

	if (!f)
		return;
	for (cpu = 0; cpu < f->nr_cpus && f->cpu; cpu++)
		free(f->cpu[cpu].q);
	free(f->cpu);
	free(f->heap);
	ivf_close(f->iv);
	free(f);
	r->ivf = NULL;
}

const struct trace_ivf_approx *trace_ivf_approx(const struct trace_reader *r)
{
	return r && r->ivf ? &r->ivf->approx : NULL;
}

const struct ivf_info *trace_ivf_info(const struct trace_reader *r)
{
	return r && r->ivf ? &r->ivf->info : NULL;
}
