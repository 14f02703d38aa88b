// SPDX-License-Identifier: MIT
/*
 * trace_perf.c - perf.data, read natively: the file perf record writes, in
 * file mode (a header with sections) or pipe mode (perf record -o -), plain
 * or compressed (trace_read.c), its records zstd-compressed or not (perf
 * record -z).  The layout is the one tools/perf/Documentation/
 * perf.data-file-format.txt documents; nothing of perf's code is used.
 *
 * File mode: the header locates the attributes, the data and, after the
 * data, the feature sections, the first of which (HEADER_TRACING_DATA) holds
 * the event formats the kernel wrote.  They are needed before the first
 * sample can be read, so the data is read after them: a plain file seeks, a
 * compressed one is decompressed twice (trace_src_rewind()), a pipe cannot
 * be read so and is refused with the way out.  Pipe mode carries the same
 * things as records before the samples (HEADER_ATTR, HEADER_TRACING_DATA).
 *
 * Attributes are read at the size the file declares for them, larger or
 * smaller than this file knows: only their first fields (type, config,
 * sample_type, read_format, flags) are used.  A sample is matched to its
 * attribute by PERF_SAMPLE_IDENTIFIER, else by PERF_SAMPLE_ID at the
 * position every attribute must then share, else (one attribute) by that
 * one; its fields are walked in the documented order up to the raw data.
 * Other record types are skipped by their size, AUXTRACE with the data
 * after it.
 *
 * Order.  Each CPU's ring buffer is in time order, but perf writes them one
 * after another: a sample may come after later samples of other CPUs.  The
 * events of the records read since the last FINISHED_ROUND wait in a queue;
 * at a FINISHED_ROUND those not after the previous round's newest time
 * stamp come out in time order (ties in file order).  perf guarantees that
 * nothing later in the file goes before them; perf script orders the same
 * way, so its text and this reader give the same events in the same order.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tep_lib.h"

#include "page_block.h"
#include "trace_perf.h"

int perf_fail(struct perf_reader *p, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* an error at byte @off of the (decompressed) file */
int perf_fail(struct perf_reader *p, int err, uint64_t off, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return trace_fail(p->r, err, 0, "byte %llu: %s", (unsigned long long)off, msg);
}


/* exactly @n bytes at the source's position, or the error (truncated: @what) */
int perf_need(struct perf_reader *p, size_t n, const unsigned char **b, const char *what)
{
	uint64_t off = trace_src_offset(p->src);
	ssize_t got = trace_src_bytes(p->src, n, b);

	if (got < 0)
		return trace_src_fail(p->r, (int)got);
	if ((size_t)got < n)
		return perf_fail(p, -EINVAL, off, "the file ends in %s (truncated: %zd of %zu bytes)",
			     what, got, n);
	return 0;
}

int perf_skip_to(struct perf_reader *p, uint64_t off, const char *what)
{
	uint64_t here = trace_src_offset(p->src);
	int64_t got;

	if (off < here)
		return perf_fail(p, -EINVAL, here, "%s lies before this point", what);
	got = trace_src_skip(p->src, off - here);
	if (got < 0)
		return trace_src_fail(p->r, (int)got);
	if ((uint64_t)got < off - here)
		return perf_fail(p, -EINVAL, here + (uint64_t)got, "the file ends before %s at byte "
			     "%llu (truncated)", what, (unsigned long long)off);
	return 0;
}

/* back to the file's first byte (file mode reads its sections out of order) */
int perf_rewind(struct perf_reader *p)
{
	int err = trace_src_rewind(p->src);

	if (err == -ESPIPE)
		return trace_fail(p->r, -EINVAL, 0, "a perf.data file on a pipe: its event "
				  "formats come after its data, so it must be read from a file "
				  "(give its name), or recorded in pipe mode (perf record -o -)");
	return err ? trace_src_fail(p->r, err) : 0;
}

/* ---- the queue ---- */

/*
 * An event that would go back past more than LANE_MAX_STEPS of its CPU's
 * queued events goes to a heap instead, so that a file out of order costs
 * a logarithm per event, never a walk over the queue.  A file that never
 * ends a round (perf record does, each time it empties its buffers) would
 * queue all its events: past QUEUE_MAX, the oldest half comes out, as perf
 * script's own queue does when it is full.
 */
#define LANE_MAX_STEPS	64
#define QUEUE_MAX	(1 << 20)
/*
 * The first sizes of a lane and of the marks' ring, in events: a few pages
 * each (8.5 KiB, 16 KiB), doubled as they fill
 */
#define LANE_FIRST	64
#define MARKS_FIRST	1024

/*
 * The steps of a sample's way into the queue, inlined into the loop that
 * reads the records (read_records()) whatever the compiler's heuristics
 * would say: a call per step cost a tenth of the reader's instructions.
 */
#define HOT	static inline __attribute__((always_inline))

static inline bool before(const struct queued *x, const struct queued *y)
{
	return x->ev.ts_ns < y->ev.ts_ns || (x->ev.ts_ns == y->ev.ts_ns && x->seq < y->seq);
}

/* the lane of CPU @cpu, made if it is new */
static struct lane *lane_of(struct perf_reader *p, unsigned int cpu)
{
	unsigned int n;
	struct lane *nl;
	unsigned int *na;

	if (cpu >= p->nr_lanes) {
		n = p->nr_lanes ? p->nr_lanes : 8;
		while (n <= cpu)
			n *= 2;
		nl = realloc(p->lanes, n * sizeof(*nl));
		if (!nl)
			return NULL;
		memset(nl + p->nr_lanes, 0, (n - p->nr_lanes) * sizeof(*nl));
		p->lanes = nl;
		p->run = NULL;		/* it pointed into the old array */
		p->run_left = 0;
		na = realloc(p->active, n * sizeof(*na));
		if (!na)
			return NULL;
		p->active = na;
		p->nr_lanes = n;
	}
	if (!p->lanes[cpu].cap) {
		p->lanes[cpu].q = page_block_alloc(LANE_FIRST * sizeof(struct queued),
						   &p->lanes[cpu].mapped);
		if (!p->lanes[cpu].q)
			return NULL;
		p->lanes[cpu].cap = LANE_FIRST;
		p->active[p->nr_active++] = cpu;
	}
	return &p->lanes[cpu];
}

/*
 * A full lane, twice as big: a block of its own pages (page_block.c), which
 * grows in the address space it spans, or by moving its pages, never by
 * copying them into new ones, so that the memory is touched once, as it
 * fills (a copy into a new block touched it twice; the lanes' first touch
 * was a third of a small file's page faults).  The events that wrapped
 * round to the ring's start move up after the old end.
 */
static int lane_grow(struct lane *l)
{
	struct queued *nq = page_block_grow(l->q, &l->mapped, 2 * l->cap * sizeof(*nq));
	size_t wrapped;

	if (!nq)
		return -ENOMEM;
	wrapped = l->head + l->len > l->cap ? l->head + l->len - l->cap : 0;
	memcpy(nq + l->cap, nq, wrapped * sizeof(*nq));
	l->q = nq;
	l->cap *= 2;
	return 0;
}

static int heap_push(struct perf_reader *p, const struct queued *e)
{
	struct queued *nh, t;
	size_t i, up;

	if (p->heap_len == p->heap_cap) {
		size_t cap = p->heap_cap ? 2 * p->heap_cap : 256;

		nh = realloc(p->heap, cap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		p->heap = nh;
		p->heap_cap = cap;
	}
	i = p->heap_len++;
	p->heap[i] = *e;
	while (i && before(&p->heap[i], &p->heap[up = (i - 1) / 2])) {
		t = p->heap[up];
		p->heap[up] = p->heap[i];
		p->heap[i] = t;
		i = up;
	}
	return 0;
}

static void heap_pop(struct perf_reader *p)
{
	struct queued t;
	size_t i = 0, c;

	p->heap[0] = p->heap[--p->heap_len];
	for (;;) {
		c = 2 * i + 1;
		if (c >= p->heap_len)
			break;
		if (c + 1 < p->heap_len && before(&p->heap[c + 1], &p->heap[c]))
			c++;
		if (!before(&p->heap[c], &p->heap[i]))
			break;
		t = p->heap[c];
		p->heap[c] = p->heap[i];
		p->heap[i] = t;
		i = c;
	}
}

/*
 * The events left out (trace_want()) stand for themselves in what the
 * caller reads only while the events come out in time order: each read at
 * or after the rounds' limit (struct perf_reader.skip_limit), and the queue
 * never so full that it lets out a count rather than a time.  Past that,
 * nothing more is left out, and the caller is told to read again
 * (trace_skipped()).
 */
static void skip_stop(struct perf_reader *p)
{
	p->skipping = false;
	p->skip_stopped = true;
	p->skip_limit = INT64_MIN;
}

/* the queue, with the events left out that it would hold, is over QUEUE_MAX */
static __attribute__((noinline)) void queue_full(struct perf_reader *p)
{
	if (p->skip_recent)
		skip_stop(p);
	if (p->queued > QUEUE_MAX)
		p->queued_over = true;
}

/*
 * The slot after the last event of CPU @cpu's lane (the ring buffer its
 * events came from), for an event to be decoded into in place; @lp: the
 * lane, for lane_commit().  NULL if out of memory.
 */
static struct queued *lane_reserve(struct perf_reader *p, unsigned int cpu, struct lane **lp)
{
	struct lane *l = lane_of(p, cpu);

	if (!l || (l->len == l->cap && lane_grow(l)))
		return NULL;
	*lp = l;
	return &l->q[(l->head + l->len) & (l->cap - 1)];
}

/* the event in the slot lane_reserve() gave joins the queue, in time order */
static int lane_commit(struct perf_reader *p, struct lane *l)
{
	size_t mask = l->cap - 1, end = (l->head + l->len) & mask, i, steps, at, prev;
	struct queued *e = &l->q[end], moved;
	int64_t ts = e->ev.ts_ns;

	e->seq = p->seq++;
	p->run = NULL;		/* the merge looks again */
	p->run_left = 0;
	/* a CPU's events come in time order: where it goes is nearly always the end */
	for (i = l->len, steps = 0; i > 0 && steps <= LANE_MAX_STEPS; i--, steps++)
		if (!before(e, &l->q[(l->head + i - 1) & mask]))
			break;
	if (steps > LANE_MAX_STEPS) {
		if (heap_push(p, e))
			return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	} else {
		if (i < l->len) {
			/* the events after its place move up one */
			moved = *e;
			at = end;
			for (size_t k = l->len; k > i; k--) {
				prev = (l->head + k - 1) & mask;
				l->q[at] = l->q[prev];
				at = prev;
			}
			l->q[(l->head + i) & mask] = moved;
		} else {
			l->last_ts = ts;
		}
		l->len++;
	}
	if (++p->queued + p->skip_recent > QUEUE_MAX)
		queue_full(p);
	if (ts > p->round_max)
		p->round_max = ts;
	if (ts < p->floor_ts)
		p->floor_ts = ts;
	if (ts < p->skip_limit)
		skip_stop(p);
	return 0;
}

/* lane_reserve(), inline where the lane is there and has room */
HOT struct queued *lane_slot(struct perf_reader *p, unsigned int cpu, struct lane **lp)
{
	struct lane *l;

	if (cpu < p->nr_lanes) {
		l = &p->lanes[cpu];
		if (l->len < l->cap) {
			*lp = l;
			return &l->q[(l->head + l->len) & (l->cap - 1)];
		}
	}
	return lane_reserve(p, cpu, lp);
}

/*
 * lane_commit(), inline where the event (in @e, the slot lane_slot() gave)
 * goes at the end of its lane (not before its CPU's last: the usual case),
 * as lane_commit() would put it
 */
HOT int lane_push(struct perf_reader *p, struct lane *l, struct queued *e)
{
	int64_t ts = e->ev.ts_ns;

	if (l->len && ts < l->last_ts)
		return lane_commit(p, l);
	e->seq = p->seq++;
	l->last_ts = ts;
	l->len++;
	p->run = NULL;
	p->run_left = 0;
	if (++p->queued + p->skip_recent > QUEUE_MAX)
		queue_full(p);
	if (ts > p->round_max)
		p->round_max = ts;
	if (ts < p->floor_ts)
		p->floor_ts = ts;
	if (ts < p->skip_limit)
		skip_stop(p);
	return 0;
}

/* queue a copy of @ev in the lane of CPU @cpu */
static int queue_event(struct perf_reader *p, const struct trace_event *ev, unsigned int cpu)
{
	struct lane *l;
	struct queued *slot = lane_reserve(p, cpu, &l);

	if (!slot)
		return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	slot->ev = *ev;
	return lane_commit(p, l);
}

/*
 * A round ended: the events left out before the end of the round before
 * the last come, in the order the events come out, before any still to
 * come out (their times are at or before the rounds' limit, the newest
 * time read by then; every event queued comes after it, and every one
 * still to read at or after it, later in the file): only their latest time
 * is kept.  (Called while nothing may come out, before the limit moves.)
 */
static void skip_fold(struct perf_reader *p)
{
	size_t n = p->marks_len - p->skip_recent, mask = p->marks_cap - 1;

	for (size_t i = 0; i < n; i++) {
		const struct skip_mark *m = &p->marks[(p->marks_head + i) & mask];

		if (m->ts > p->skip_folded)
			p->skip_folded = m->ts;
	}
	p->marks_head = (p->marks_head + n) & mask;
	p->marks_len -= n;
	p->skip_recent = p->skip_round;
	p->skip_round = 0;
}

/*
 * A round ended: what was read before the last round's end may come out
 * (perf record writes nothing after a round's end that goes before it).
 */
static void flush_round(struct perf_reader *p)
{
	if (p->marks_off) {
		/* (the counts go on: a full queue is judged by them) */
		p->skip_recent = p->skip_round;
		p->skip_round = 0;
	} else if (p->marks_len) {
		skip_fold(p);
	}
	p->out_limit = p->flush_limit;
	p->flush_limit = p->round_max;
	if (p->skipping)
		p->skip_limit = p->out_limit;
}

/* may @e come out in the run before @second (NULL: none), now? */
static inline bool in_run(const struct perf_reader *p, const struct queued *e,
			  const struct queued *second)
{
	return (!second || before(e, second)) && (p->out_all || e->ev.ts_ns <= p->out_limit);
}

/* merge_scan()'s looks one by one before galloping (video-haltpoll200: 4 events a run) */
#define RUN_PROBE	8

/*
 * Where the merge stands: the lane whose head comes first and the key every
 * other head (and the heap's top) comes after, so that a run of events
 * from one lane comes out without looking at the others each time; and
 * how many events of that run may come out now (@run_left: before that
 * key and within the rounds ended, or all once the file ended), which
 * dequeue() then takes without a comparison.  Valid until an event is
 * queued (lane_commit(), lane_push(), heap_push() clear it).
 */
static void merge_scan(struct perf_reader *p)
{
	struct lane *best = NULL, *l;
	const struct queued *second = NULL, *h, *e;
	unsigned int i;
	size_t n, mask, lo, hi;

	for (i = 0; i < p->nr_active; i++) {
		l = &p->lanes[p->active[i]];
		if (!l->len)
			continue;
		h = &l->q[l->head];
		if (!best || before(h, &best->q[best->head])) {
			if (best)
				second = &best->q[best->head];
			best = l;
		} else if (!second || before(h, second)) {
			second = h;
		}
	}
	if (p->heap_len && (!second || before(&p->heap[0], second)))
		second = &p->heap[0];
	p->run = best;
	p->run_bounded = second != NULL;
	if (second) {
		p->run_bound_ts = second->ev.ts_ns;
		p->run_bound_seq = second->seq;
	}
	p->run_left = 0;
	if (!best || p->queued_over)
		return;		/* (a full queue lets out a count, not a time: one by one) */
	/*
	 * A lane is in order, so its events in the run are its first ones: the
	 * run's end found by a look at each of the first RUN_PROBE (where CPUs
	 * take turns a run is a few events), then by galloping and halving (a
	 * few looks, whatever the run's length).
	 */
	mask = best->cap - 1;
	for (n = 0; n < RUN_PROBE; n++) {
		if (n == best->len || !in_run(p, &best->q[(best->head + n) & mask], second)) {
			p->run_left = n;
			return;
		}
	}
	lo = RUN_PROBE;
	hi = 2 * RUN_PROBE;
	while (hi <= best->len && in_run(p, &best->q[(best->head + hi - 1) & mask], second)) {
		lo = hi;
		hi *= 2;
	}
	if (hi > best->len)
		hi = best->len + 1;
	n = hi - 1;	/* the first not in it is in [lo, n] */
	while (lo < n) {
		size_t mid = lo + (n - lo) / 2;

		e = &best->q[(best->head + mid) & mask];
		if (in_run(p, e, second))
			lo = mid + 1;
		else
			n = mid;
	}
	p->run_left = n;
}

/* dequeue() when no run is known to be ready */
static const struct trace_event *dequeue_slow(struct perf_reader *p)
{
	const struct queued *head;
	struct lane *l;

	if (!p->queued)
		return NULL;
	/* while a round is read, nothing may come out: say so without a merge */
	if (!p->queued_over && !p->out_all && p->floor_ts > p->out_limit)
		return NULL;
	l = p->run;
	if (!l || !l->len ||
	    (p->run_bounded && (l->q[l->head].ev.ts_ns > p->run_bound_ts ||
				(l->q[l->head].ev.ts_ns == p->run_bound_ts &&
				 l->q[l->head].seq > p->run_bound_seq)))) {
		merge_scan(p);
		l = p->run;
	}
	head = l ? &l->q[l->head] : NULL;
	if (p->heap_len && (!head || before(&p->heap[0], head)))
		head = &p->heap[0];
	/* a queue that went over QUEUE_MAX lets its oldest half out */
	if (p->queued_over && p->queued <= QUEUE_MAX / 2)
		p->queued_over = false;
	p->floor_ts = head->ev.ts_ns;	/* the earliest: the rest come at or after it */
	if (!p->queued_over && !p->out_all && head->ev.ts_ns > p->out_limit)
		return NULL;
	p->queued--;
	if (p->heap_len && head == &p->heap[0]) {
		p->taken = head->ev;	/* the heap's slots move as it settles */
		p->taken_seq = head->seq;
		heap_pop(p);
		p->run = NULL;		/* the heap's next top is unknown */
		p->run_left = 0;
		return &p->taken;
	}
	l->head = (l->head + 1) & (l->cap - 1);
	l->len--;
	if (p->run_left)
		p->run_left--;	/* it was the run's first */
	return &head->ev;
}

/*
 * The next event that may come out, merged across CPUs, taken from the
 * queue: where it lies, which nothing overwrites before the next record is
 * read (its lane's slot, or perf_reader.taken), or NULL.  Within a run
 * merge_scan() measured, the lane's head, as it is (the floor it leaves
 * stays a lower bound of what is queued).
 */
static inline const struct trace_event *dequeue(struct perf_reader *p)
{
	struct lane *l = p->run;
	const struct trace_event *ev;

	if (!p->run_left)
		return dequeue_slow(p);
	ev = &l->q[l->head].ev;
	l->head = (l->head + 1) & (l->cap - 1);
	l->len--;
	p->run_left--;
	p->queued--;
	return ev;
}

/* ---- samples and other records ---- */

struct sample {
	const struct perf_attr *attr;
	uint32_t pid;
	int64_t time;
	uint32_t cpu;
	bool has_cpu;
	const unsigned char *raw;
	uint32_t raw_size;
};

/* a sample's attribute, by its id: NULL with -EINVAL (too short) or -ENOENT in @err */
static inline const struct perf_attr *sample_attr(const struct perf_reader *p,
						  const unsigned char *b, size_t len, int *err)
{
	const struct perf_attr *a;

	if (p->identifier) {
		if (len < 8) {
			*err = -EINVAL;
			return NULL;
		}
		a = perf_attr_of(p, get64(b));
	} else if (p->id_pos >= 0) {
		if (len < 8 * (size_t)(p->id_pos + 1)) {
			*err = -EINVAL;
			return NULL;
		}
		a = perf_attr_of(p, get64(b + 8 * p->id_pos));
	} else {
		a = &p->attrs[0];
	}
	*err = a ? 0 : -ENOENT;
	return a;
}

/* walk a sample's fields up to its raw data (-EINVAL if it is too short) */
static int parse_sample(const struct perf_reader *p, const unsigned char *b, size_t len,
			struct sample *s)
{
	const unsigned char *q = b, *end = b + len;
	const struct perf_attr *a;
	uint64_t st, rf, nr;
	int err;

#define TAKE(n)	do { if ((size_t)(end - q) < (size_t)(n)) return -EINVAL; q += (n); } while (0)
	a = sample_attr(p, b, len, &err);
	if (!a)
		return err;
	s->attr = a;
	st = a->sample_type;
	if (st & S_IDENTIFIER)
		TAKE(8);
	if (st & S_IP)
		TAKE(8);
	if (st & S_TID) {
		TAKE(8);
		s->pid = get32(q - 8);
	}
	if (st & S_TIME) {
		TAKE(8);
		s->time = (int64_t)get64(q - 8);
	}
	if (st & S_ADDR)
		TAKE(8);
	if (st & S_ID)
		TAKE(8);
	if (st & S_STREAM_ID)
		TAKE(8);
	if (st & S_CPU) {
		TAKE(8);
		s->cpu = get32(q - 8);
		s->has_cpu = true;
	}
	if (st & S_PERIOD)
		TAKE(8);
	if (st & S_READ) {
		rf = a->read_format;
		if (rf & RF_GROUP) {
			TAKE(8);
			nr = get64(q - 8);
			TAKE(8 * (!!(rf & RF_ENABLED) + !!(rf & RF_RUNNING)));
			if (nr > (uint64_t)(end - q) / 8)
				return -EINVAL;
			TAKE(nr * 8 * (1 + !!(rf & RF_ID) + !!(rf & RF_LOST)));
		} else {
			TAKE(8 * (1 + !!(rf & RF_ENABLED) + !!(rf & RF_RUNNING) + !!(rf & RF_ID) +
				  !!(rf & RF_LOST)));
		}
	}
	if (st & S_CALLCHAIN) {
		TAKE(8);
		nr = get64(q - 8);
		if (nr > (uint64_t)(end - q) / 8)
			return -EINVAL;
		TAKE(nr * 8);
	}
	if (st & S_RAW) {
		TAKE(4);
		s->raw_size = get32(q - 4);
		s->raw = q;
		TAKE(s->raw_size);
	}
#undef TAKE
	return 0;
}

/*
 * The time and CPU a record other than a sample carries at its end, if its
 * attribute says sample_id_all: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
 */
static bool sample_id_trailer(const struct perf_reader *p, const unsigned char *b, size_t len,
			      int64_t *time, uint32_t *cpu)
{
	const struct perf_attr *a;
	const unsigned char *q = b + len;
	uint64_t st;

	if (!p->nr_attrs)
		return false;	/* pipe mode, before the attributes */
	a = &p->attrs[0];
	if (p->identifier) {
		if (len < 8)
			return false;
		a = perf_attr_of(p, get64(b + len - 8));
		if (!a)
			return false;
	}
	if (!a->sample_id_all)
		return false;
	st = a->sample_type;
	if ((size_t)(__builtin_popcountll(st & (S_TID | S_TIME | S_ID | S_STREAM_ID | S_CPU |
						 S_IDENTIFIER))) * 8 > len)
		return false;
	if (st & S_IDENTIFIER)
		q -= 8;
	if (!(st & S_CPU) || !(st & S_TIME))
		return false;
	q -= 8;
	*cpu = get32(q);
	if (st & S_STREAM_ID)
		q -= 8;
	if (st & S_ID)
		q -= 8;
	q -= 8;
	*time = (int64_t)get64(q);
	return true;
}

/*
 * The ring of left-out events' marks, twice as big (its events in order
 * from 0): its own pages, as a lane's (lane_grow())
 */
static int marks_grow(struct perf_reader *p)
{
	size_t cap = p->marks_cap ? 2 * p->marks_cap : MARKS_FIRST, wrapped;
	struct skip_mark *nm = p->marks ? page_block_grow(p->marks, &p->marks_mapped,
							  cap * sizeof(*nm)) :
		page_block_alloc(cap * sizeof(*nm), &p->marks_mapped);

	if (!nm)
		return -ENOMEM;
	wrapped = p->marks_head + p->marks_len > p->marks_cap ?
		p->marks_head + p->marks_len - p->marks_cap : 0;
	memcpy(nm + p->marks_cap, nm, wrapped * sizeof(*nm));
	p->marks = nm;
	p->marks_cap = cap;
	return 0;
}

/*
 * A sample of a type the caller does not read (trace_want()), left out of
 * the queue where nothing is lost by it: one that tp_decode_quick() would
 * make an event of without fail (tp_quick_makes(): so no error goes
 * unsaid) and that is not the earliest of its CPU's so far (so that every
 * CPU's first event is given); its time and place noted, counted, and the
 * rounds' limit moved by its time as by any event's.  Return: true if it
 * was left out.
 */
HOT bool perf_skip(struct perf_reader *p, const unsigned char *raw, uint32_t size, int64_t time,
		   uint32_t cpu)
{
	const struct tp_decoder *d = p->dec;
	const struct tp_event *te;
	struct skip_mark *m;
	unsigned int slot;
	uint16_t type;

	if (size < d->quick_from)
		return false;
	memcpy(&type, raw + d->type_offset, 2);
	slot = d->slot[type];
	if (!slot || !p->skip_event[slot - 1])
		return false;
	te = &d->events[slot - 1];
	if (size < te->quick_min || !tp_quick_makes(d, te, raw, size))
		return false;
	/* (time >= 0: on_sample() refused others) */
	if (INT64_MAX - time > p->skip_left[cpu]) {
		p->skip_left[cpu] = INT64_MAX - time;
		return false;
	}
	if (!p->marks_off) {
		if (p->marks_len == p->marks_cap && marks_grow(p))
			return false;	/* (given, then) */
		m = &p->marks[(p->marks_head + p->marks_len++) & (p->marks_cap - 1)];
		m->ts = time;
		m->seq = p->seq;
	}
	p->seq++;
	p->skip_n++;
	p->skip_round++;
	if (time > p->skip_max)
		p->skip_max = time;
	if (time > p->round_max)
		p->round_max = time;
	if (time < p->skip_limit || p->queued + ++p->skip_recent > QUEUE_MAX)
		skip_stop(p);
	return true;
}

/* a sample of ours, its time and CPU checked: decoded in place at the end of its CPU's lane */
HOT int decode_sample(struct perf_reader *p, const unsigned char *raw, uint32_t raw_size,
		      int64_t time, uint32_t cpu, uint32_t pid, uint64_t off)
{
	struct trace_event *ev;
	struct queued *slot;
	struct lane *lane;
	char why[200];
	bool fn_addr;
	int ret;

	if (p->skipping && perf_skip(p, raw, raw_size, time, cpu))
		return 0;
	slot = lane_slot(p, cpu, &lane);
	if (!slot)
		return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	ev = &slot->ev;
	*ev = p->blank;
	ev->ts_ns = time;
	ev->cpu = cpu;
	ev->line = off;
	ev->pid = (int32_t)pid < 0 ? -1 : (int)pid;
	ret = tp_decode_quick(p->dec, raw, raw_size, ev, &fn_addr, why, sizeof(why));
	if (ret < 0)
		return perf_fail(p, ret, off, "%s", why);
	if (!ret)
		return 0;
	return lane_push(p, lane, slot);
}

/* does the tick's vote (the prescan) read this raw event?  hrtimer and tick_stop events only */
static inline bool votes(const struct perf_reader *p, const unsigned char *raw, uint32_t raw_size)
{
	int id = tp_decoder_event_id(p->dec, raw, raw_size);

	return id == EV_HRTIMER_START || id == EV_HRTIMER_EXPIRE || id == EV_HRTIMER_CANCEL ||
	       id == EV_TICK_STOP;
}

/* a sample walked field by field: any layout, and every error said */
static int on_sample_walk(struct perf_reader *p, const unsigned char *b, size_t len,
			  uint64_t off)
{
	struct sample s = { 0 };
	int ret;

	ret = parse_sample(p, b, len, &s);
	if (ret == -ENOENT)
		return perf_fail(p, -EINVAL, off, "a sample of an id no event attribute has");
	if (ret)
		return perf_fail(p, -EINVAL, off, "a sample too short for the fields its event "
			     "says it has (%zu bytes)", len);
	if (s.attr->type != PERF_TYPE_TRACEPOINT || !s.raw)
		return 0;
	if (!(s.attr->sample_type & S_TIME) || !s.has_cpu || s.time < 0 ||
	    s.cpu >= TRACE_MAX_CPUS) {
		if (tp_decoder_event_id(p->dec, s.raw, s.raw_size) < 0)
			return 0;	/* not ours: its time and CPU need not be there */
		if (!(s.attr->sample_type & S_TIME))
			return perf_fail(p, -EINVAL, off, "samples have no time stamp (perf record "
				     "-T, or any recording with more than one event, has them)");
		if (!s.has_cpu)
			return perf_fail(p, -EINVAL, off, "samples do not say their CPU (record "
				     "with -a, or --sample-cpu)");
		if (s.time < 0)
			return perf_fail(p, -ERANGE, off, "time stamp %llu out of range",
				     (unsigned long long)s.time);
		return perf_fail(p, -ERANGE, off, "CPU %u out of range", s.cpu);
	}
	if (p->in_prescan && !votes(p, s.raw, s.raw_size))
		return 0;
	return decode_sample(p, s.raw, s.raw_size, s.time, s.cpu, s.pid, off);
}

/*
 * A sample in the prescan: on_sample()'s direct loads where the layout is
 * fixed, for the events the tick's vote reads only; out of the main read's
 * loop, whose code it would otherwise grow (the compiler then calls what it
 * inlined there: 6 instructions an event more)
 */
static __attribute__((noinline)) int on_sample_vote(struct perf_reader *p,
						    const unsigned char *b, size_t len,
						    uint64_t off)
{
	const struct perf_attr *a;
	uint32_t raw_size, cpu;
	int64_t time;
	int err;

	a = sample_attr(p, b, len, &err);
	if (a && a->fixed && len >= (size_t)a->raw_at + 4) {
		raw_size = get32(b + a->raw_at);
		time = (int64_t)get64(b + a->time_at);
		cpu = get32(b + a->cpu_at);
		if (raw_size <= len - a->raw_at - 4 && time >= 0 && cpu < TRACE_MAX_CPUS) {
			if (!votes(p, b + a->raw_at + 4, raw_size))
				return 0;
			return decode_sample(p, b + a->raw_at + 4, raw_size, time, cpu,
					     get32(b + a->tid_at), off);
		}
	}
	return on_sample_walk(p, b, len, off);
}

/*
 * A sample: read by direct loads where its attribute's layout is fixed
 * (struct perf_attr.fixed) and all is well, else walked (on_sample_walk(),
 * which also says what is wrong).
 */
HOT int on_sample(struct perf_reader *p, const unsigned char *b, size_t len, uint64_t off)
{
	const struct perf_attr *a;
	uint32_t raw_size, cpu;
	int64_t time;
	int err;

	a = sample_attr(p, b, len, &err);
	if (a && a->fixed && len >= (size_t)a->raw_at + 4 && !p->in_prescan) {
		raw_size = get32(b + a->raw_at);
		time = (int64_t)get64(b + a->time_at);
		cpu = get32(b + a->cpu_at);
		if (raw_size <= len - a->raw_at - 4 && time >= 0 && cpu < TRACE_MAX_CPUS)
			return decode_sample(p, b + a->raw_at + 4, raw_size, time, cpu,
					     get32(b + a->tid_at), off);
	}
	if (p->in_prescan)
		return on_sample_vote(p, b, len, off);
	return on_sample_walk(p, b, len, off);
}

static int on_lost(struct perf_reader *p, const unsigned char *b, size_t len, uint64_t off,
		   uint64_t lost)
{
	static const struct trace_event none = { .pid = -1 };
	struct trace_event ev = none;
	int64_t time;
	uint32_t cpu;

	if (!sample_id_trailer(p, b, len, &time, &cpu) || cpu >= TRACE_MAX_CPUS || time < 0)
		return 0;	/* lost events of no known CPU: nothing to say */
	ev.type = TEV_LOST;
	ev.cpu = cpu;
	ev.ts_ns = time;
	ev.line = off;
	ev.value = lost > INT64_MAX ? INT64_MAX : (int64_t)lost;
	return queue_event(p, &ev, cpu);
}

static int on_record(struct perf_reader *p, uint32_t type, const unsigned char *b, size_t len,
		     uint64_t off, bool nested);

/*
 * A compressed record: its zstd data, decompressed (perf_inflate()), is
 * more records, the last of which may go on in the next compressed record.
 */
static int on_compressed(struct perf_reader *p, const unsigned char *data, size_t len,
			 uint64_t off)
{
	size_t rl;
	uint16_t size;
	int err;

	err = perf_inflate(p, data, len, off);
	if (err)
		return err;
	p->dz_offset = off;
	/* the whole records it holds */
	while (p->dz_len - p->dz_pos >= 8) {
		size = get16(p->dz + p->dz_pos + 6);
		if (size < 8)
			return perf_fail(p, -EINVAL, off, "a record of %u bytes in a compressed record "
				     "(corrupt)", size);
		rl = size;
		if (p->dz_len - p->dz_pos < rl)
			break;
		err = on_record(p, get32(p->dz + p->dz_pos), p->dz + p->dz_pos + 8, rl - 8, off,
				true);
		if (err)
			return err;
		p->dz_pos += rl;
	}
	return 0;
}

/*
 * One record of type @type, its body (what follows its 8-byte header)
 * @len bytes at @b, at @off.  @nested: it came out of a compressed record.
 */
static int on_record(struct perf_reader *p, uint32_t type, const unsigned char *b, size_t len,
		     uint64_t off, bool nested)
{
	switch (type) {
	case REC_SAMPLE:
		return p->dec ? on_sample(p, b, len, off) : 0;
	case REC_LOST:
		if (len < 16)
			return 0;
		return on_lost(p, b + 16, len - 16, off, get64(b + 8));
	case REC_LOST_SAMPLES:
		if (len < 8)
			return 0;
		return on_lost(p, b + 8, len - 8, off, get64(b));
	case REC_FINISHED_ROUND:
		flush_round(p);
		return 0;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (nested)
			return perf_fail(p, -EINVAL, off, "a compressed record inside another");
		if (type == REC_COMPRESSED2) {
			uint64_t n = len >= 8 ? get64(b) : UINT64_MAX;

			if (n > len - 8)
				return perf_fail(p, -EINVAL, off, "a compressed record's data size is "
					     "beyond the record");
			return on_compressed(p, b + 8, (size_t)n, off);
		}
		return on_compressed(p, b, len, off);
	default:
		return 0;
	}
}

/* ---- reading the data ---- */

/*
 * The next record of the data section (or the pipe): its type, its body
 * (@len bytes at @b, after its 8-byte header) and its offset.  Records of
 * pipe mode's header (attributes, tracing data) are taken here.  Return:
 * 1, 0 at the data's end, or the error.
 */
static int next_record(struct perf_reader *p, uint32_t *type, const unsigned char **b,
		       size_t *len, uint64_t *off)
{
	const unsigned char *h;
	uint64_t here;
	uint16_t size;
	ssize_t got;
	int err;

	for (;;) {
		here = trace_src_offset(p->src);
		if (here >= p->data_end)
			return 0;
		/* the usual case: a whole sample or round in the buffer, taken in place */
		if (!p->pipe && p->src->out_len - p->src->out_pos >= 8) {
			const unsigned char *q = (const unsigned char *)p->src->out + p->src->out_pos;

			*type = get32(q);
			size = get16(q + 6);
			if ((*type == REC_SAMPLE || *type == REC_FINISHED_ROUND) && size >= 8 &&
			    p->src->out_len - p->src->out_pos >= size &&
			    p->data_end - here >= size) {
				p->src->out_pos += size;
				*b = q + 8;
				*len = size - 8u;
				*off = here;
				return 1;
			}
		}
		if (p->data_end - here < 8)
			return perf_fail(p, -EINVAL, here, "the data section ends inside a record "
				     "header (its size in the file header is wrong)");
		got = trace_src_bytes(p->src, 8, &h);
		if (got < 0)
			return trace_src_fail(p->r, (int)got);
		if (!got && p->pipe)
			return 0;
		if (got < 8)
			return perf_fail(p, -EINVAL, here, "the file ends inside a record header "
				     "(truncated)");
		*type = get32(h);
		size = get16(h + 6);
		if (size < 8)
			return perf_fail(p, -EINVAL, here, "a record of %u bytes, less than its own "
				     "header (corrupt)", size);
		if (p->data_end - here < size)
			return perf_fail(p, -EINVAL, here, "a record of %u bytes goes past the data "
				     "section's end", size);
		err = perf_need(p, size - 8u, b, "a record");
		if (err)
			return err;
		*len = size - 8u;
		*off = here;
		if (*type == REC_AUXTRACE) {
			/* its trace data follows it, outside its size */
			uint64_t extra = *len >= 8 ? get64(*b) : 0;

			if (extra > UINT64_MAX - here - size)
				return perf_fail(p, -EINVAL, here, "an AUXTRACE record of %llu bytes",
					     (unsigned long long)extra);
			err = perf_skip_to(p, here + size + extra, "the end of an AUXTRACE record's data");
			if (err)
				return err;
			continue;
		}
		if (!p->pipe)
			return 1;
		if (*type == REC_HEADER_ATTR) {
			uint32_t asize;

			if (*len < 8)
				return perf_fail(p, -EINVAL, here, "an attribute record of %u bytes", size);
			asize = get32(*b + 4);
			if (!asize)
				asize = ATTR_VER0_SIZE;
			if (asize > *len)
				return perf_fail(p, -EINVAL, here, "an attribute of %u bytes in a record "
					     "of %u", asize, size);
			err = perf_add_attr(p, *b, asize, here);
			if (!err)
				err = perf_add_ids(p, *b + asize, (*len - asize) / 8, here);
			if (err)
				return err;
			continue;
		}
		if (*type == REC_HEADER_TRACING_DATA) {
			if (*len < 4)
				return perf_fail(p, -EINVAL, here, "a tracing data record of %u bytes",
					     size);
			err = perf_read_tracing_data(p, get32(*b));
			if (err)
				return err;
			continue;
		}
		return 1;
	}
}

/* the events are known: the decoder, once the attributes and formats are in */
int perf_start_decoding(struct perf_reader *p, uint64_t off)
{
	char why[300];
	int err;

	if (p->dec)
		return 0;
	err = perf_settle_attrs(p, off);
	if (err)
		return err;
	if (!p->tracing_data)
		return perf_fail(p, -EINVAL, off, "no tracing data: the file holds no tracepoint "
			     "formats (was it recorded with -e power:cpu_idle?)");
	/* (its 64 KiB table by event type read at a few places: page_block.c) */
	p->dec = page_block_alloc(sizeof(*p->dec), &p->dec_mapped);
	if (!p->dec)
		return perf_fail(p, -ENOMEM, off, "out of memory");
	err = tp_decoder_init_formats(p->dec, p->formats, p->nr_formats, p->big_endian,
				      "the tracing data", why, sizeof(why));
	p->dec->tep = p->tep;
	if (err)
		return perf_fail(p, err, off, "%s", why);
	/* the printk strings name IPI reasons (arm64), and nothing else read */
	if (tp_decoder_has(p->dec, EV_IPI_ENTRY) &&
	    tp_decoder_strings(p->dec, p->printk ? p->printk : ""))
		return perf_fail(p, -ENOMEM, off, "out of memory");
	if (!p->dec->nr)
		return perf_fail(p, -EINVAL, off, "none of the events the lab reads was recorded "
			     "(power:cpu_idle and the others: see cpuidle-record(1))");
	return 0;
}

static int next_event(struct perf_reader *p, const struct trace_event **ev);

/* the queue and the compressed records' state, as at the data's start */
static void reset_data(struct perf_reader *p)
{
	for (unsigned int i = 0; i < p->nr_active; i++)
		p->lanes[p->active[i]].len = 0;
	p->heap_len = 0;
	p->run = NULL;
	p->run_left = 0;
	p->queued = 0;
	p->queued_over = false;
	p->seq = 0;
	p->round_max = p->flush_limit = p->out_limit = p->floor_ts = INT64_MIN;
	p->out_all = p->eof = false;
	perf_inflate_reset(p);
	p->skip_n = 0;
	p->skip_max = p->skip_limit = p->skip_folded = INT64_MIN;
	p->marks_head = p->marks_len = p->skip_round = p->skip_recent = 0;
	p->nr_joined = 0;
	memset(p->joined, 0, sizeof(p->joined));
	p->marks_off = p->asked_late = false;
	if (p->skip_left)
		memset(p->skip_left, 0, TRACE_MAX_CPUS * sizeof(*p->skip_left));
}

/*
 * File mode, before the data: the tick's function, by a vote over the
 * events in time order, read until it cannot change (usually within the
 * first second of the recording) or to the end.
 */
static int prescan_tick(struct perf_reader *p)
{
	const struct trace_event *ev;
	bool done = false, skipping = p->skipping;
	uint64_t fn = 0;
	int ret;

	p->in_prescan = true;
	p->skipping = false;	/* (the vote's events are all given to it) */
	while (!done && (ret = next_event(p, &ev)) > 0) {
		tp_tick_vote_feed(&p->vote, ev);
		tp_tick_vote_result(&p->vote, &fn, &done);
	}
	p->in_prescan = false;
	if (ret < 0)
		return ret;
	p->dec->tick_fn_known = tp_tick_vote_result(&p->vote, &fn, &done);
	p->dec->tick_fn = fn;
	reset_data(p);
	p->skipping = skipping;
	return 0;
}

/* do the hrtimer events' functions need naming by a vote? */
bool perf_needs_vote(const struct perf_reader *p)
{
	int i;

	for (i = 0; i < p->dec->nr; i++) {
		if (p->dec->events[i].id == EV_HRTIMER_START ||
		    p->dec->events[i].id == EV_HRTIMER_EXPIRE)
			return true;
	}
	return false;
}

/* file mode: header, attributes, features, then to the data */

static int perf_cut(struct trace_reader *r);

int trace_perf_open(struct trace_reader *r)
{
	struct perf_reader *p;
	const unsigned char *hdr;
	uint64_t size;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return trace_fail(r, -ENOMEM, 0, "out of memory");
	r->perf = p;
	p->r = r;
	p->src = &r->src;
	trace_src_map(p->src);		/* a plain file: read in place, not copied */
	p->id_pos = -1;
	p->blank.pid = -1;
	p->round_max = INT64_MIN;
	p->flush_limit = INT64_MIN;
	p->out_limit = INT64_MIN;
	p->floor_ts = INT64_MIN;
	p->skip_max = p->skip_limit = p->skip_folded = INT64_MIN;
	p->vote.nr_cpus = TRACE_MAX_CPUS;
	/* (96 KiB, of which the vote touches its CPUs', if it runs: page_block.c) */
	p->vote.cpu = page_block_alloc(TRACE_MAX_CPUS * sizeof(*p->vote.cpu), &p->vote_mapped);
	if (!p->vote.cpu)
		return trace_fail(r, -ENOMEM, 0, "out of memory");

	err = perf_need(p, PIPE_HEADER_SIZE, &hdr, "the file header");
	if (err)
		return err;
	if (!memcmp(hdr, magic_be, sizeof(magic_be)))
		return trace_fail(r, -EINVAL, 0, "a perf.data file written on a big-endian "
				  "machine: not read here yet (convert it there with perf script "
				  "-F comm,pid,cpu,time,event,trace --ns)");
	if (memcmp(hdr, magic_le, sizeof(magic_le)))
		return trace_fail(r, -EINVAL, 0, "not a perf.data file");
	size = get64(hdr + 8);
	if (size == PIPE_HEADER_SIZE) {
		p->pipe = true;
		p->data_end = UINT64_MAX;
		return 0;	/* attributes and formats come as records */
	}
	if (size < FILE_HEADER_SIZE)
		return perf_fail(p, -EINVAL, 8, "a file header of %llu bytes (a perf.data file's is "
			     "%d, or %d in pipe mode)", (unsigned long long)size, FILE_HEADER_SIZE,
			     PIPE_HEADER_SIZE);
	{
		unsigned char full[FILE_HEADER_SIZE];

		memcpy(full, hdr, PIPE_HEADER_SIZE);
		err = perf_need(p, FILE_HEADER_SIZE - PIPE_HEADER_SIZE, &hdr, "the file header");
		if (err)
			return err;
		memcpy(full + PIPE_HEADER_SIZE, hdr, FILE_HEADER_SIZE - PIPE_HEADER_SIZE);
		err = perf_open_file_mode(p, full);
		return err && trace_map_shrank(p->src) ? perf_cut(r) : err;
	}
}

/*
 * Could an event come out now?  What dequeue_slow() asks before merging
 * (the floor is a lower bound of the queued events' times): while it says
 * no, records are read on.
 */
static inline bool may_come_out(const struct perf_reader *p)
{
	return p->queued && (p->queued_over || p->out_all || p->floor_ts <= p->out_limit);
}

#define READ_AHEAD	2048	/* bytes: ~17 samples, ~0.4 us of reading */

/*
 * A record of a file-mode recording that on_record() does nothing with
 * (perf record's synthesized and kernel records: MMAP, COMM, FORK, ...):
 * passed over in read_records()' loop, not read through next_record()
 */
static inline bool passed_over(uint32_t type)
{
	return type != REC_LOST && type != REC_LOST_SAMPLES && type != REC_AUXTRACE &&
	       type != REC_COMPRESSED && type != REC_COMPRESSED2;
}

/*
 * Records read until an event may come out, or the data ends, or at least
 * one record: the samples and round ends that lie whole in the source's
 * buffer of a file-mode recording (nearly all of it) are taken in a loop
 * of their own; others go through next_record().  Return: 0 or the error.
 */
static int read_records(struct perf_reader *p)
{
	struct trace_src *src = p->src;
	const unsigned char *b = NULL;
	uint32_t type = 0;
	uint64_t off = 0, base;
	size_t len = 0, pos, end, start;
	uint16_t size;
	int ret;

	if (!p->pipe && p->dec) {
		const unsigned char *buf = (const unsigned char *)src->out;

		base = src->out_base;
		pos = start = src->out_pos;
		end = src->out_len;
		if (base >= p->data_end)
			end = pos;
		else if (p->data_end - base < end)
			end = (size_t)(p->data_end - base);
		while (pos < end && end - pos >= 8) {
			/*
			 * The bytes half a page on, asked for now: the hardware's
			 * prefetch stops at a page's end, and a mapped file's next
			 * page is anywhere in memory
			 */
			__builtin_prefetch(buf + pos + READ_AHEAD);
			type = get32(buf + pos);
			size = get16(buf + pos + 6);
			if (size < 8 || size > end - pos)
				break;
			if (type == REC_SAMPLE) {
				src->out_pos = pos + size;
				ret = on_sample(p, buf + pos + 8, size - 8u, base + pos);
				if (ret)
					return ret;
				pos += size;
				if (p->floor_ts <= p->out_limit || p->queued_over)
					break;
			} else if (type == REC_FINISHED_ROUND) {
				pos += size;
				flush_round(p);
				if (may_come_out(p))
					break;
			} else if (passed_over(type)) {
				pos += size;
			} else {
				break;
			}
		}
		src->out_pos = pos;
		if (pos != start)
			return 0;
	}
	ret = next_record(p, &type, &b, &len, &off);
	if (ret < 0)
		return ret;
	if (!ret) {
		if (p->dz_len > p->dz_pos)
			return perf_fail(p, -EINVAL, p->dz_offset, "the compressed records end "
				     "inside a record (truncated)");
		p->eof = true;
		p->out_all = true;
		return 0;
	}
	if (!p->dec && (type == REC_SAMPLE || type == REC_COMPRESSED ||
			type == REC_COMPRESSED2)) {
		/* pipe mode: attributes and formats came before the first sample */
		ret = perf_start_decoding(p, off);
		if (ret)
			return ret;
		p->voting = perf_needs_vote(p);
	}
	return on_record(p, type, b, len, off, false);
}

/*
 * The next event in time order (the tick's flag as decoded), where
 * dequeue() leaves it: 1, 0 or the error
 */
static int next_event(struct perf_reader *p, const struct trace_event **ev)
{
	int ret;

	for (;;) {
		*ev = dequeue(p);
		if (*ev)
			return 1;
		if (p->eof)
			return 0;
		ret = read_records(p);
		if (ret)
			return ret;
	}
}

/*
 * The next event, where it lies (until the next call): 1, 0 or the error.
 *
 * An hrtimer event is the tick's if its function is the one the vote
 * found: over the data first in file mode (prescan_tick(); not at all if
 * trace_want() asks no hrtimer event), where the events are decoded with
 * its result; as the events come in pipe mode, where those before the vote
 * is settled are not known to be the tick's, and each event, a copy in the
 * reader's own, gets the flag as it stands.
 */
static int perf_next(struct trace_reader *r, const struct trace_event **evp)
{
	struct perf_reader *p = r->perf;
	struct trace_event *ev;
	uint64_t fn;
	bool done;
	int ret;

	if (p->prescan) {
		/* file mode: the tick's vote first, then the data from its start */
		p->prescan = false;
		ret = prescan_tick(p);
		if (!ret)
			ret = perf_rewind(p);
		if (!ret)
			ret = perf_skip_to(p, p->data_off, "the data");
		if (ret)
			return ret;
	}
	ret = next_event(p, evp);
	if (ret <= 0 || !p->pipe)
		return ret;
	r->lent = **evp;
	ev = &r->lent;
	*evp = ev;
	if (p->voting) {
		tp_tick_vote_feed(&p->vote, ev);
		if (tp_tick_vote_result(&p->vote, &fn, &done)) {
			p->dec->tick_fn = fn;
			p->dec->tick_fn_known = true;
			p->voting = false;
		}
	}
	if ((ev->type == TEV_HRTIMER_START || ev->type == TEV_HRTIMER_EXPIRE) &&
	    p->dec->tick_fn_known)
		ev->tick = ev->function == p->dec->tick_fn;
	return 1;
}

/*
 * The file shrank under its mapped window (trace_map.c): what was read
 * from there on is zeros, and nothing of it may come out.
 */
static int perf_cut(struct trace_reader *r)
{
	return trace_fail(r, -EIO, 0, "the file shrank while it was read (another program "
			  "truncated or rewrote it)");
}

/* perf_next() and what it says, unless the file shrank while it was read */
static int perf_next_checked(struct trace_reader *r, const struct trace_event **ev)
{
	int ret = perf_next(r, ev);

	if (trace_src_cut(&r->src) || (ret < 0 && trace_map_shrank(&r->src)))
		return perf_cut(r);
	return ret;
}

/**
 * trace_perf_next() - trace_next() for a perf.data file
 */
int trace_perf_next(struct trace_reader *r, struct trace_event *ev)
{
	const struct trace_event *e;
	int ret = perf_next_checked(r, &e);

	if (ret > 0)
		*ev = *e;
	return ret;
}

/*
 * trace_next_ref() for a perf.data file: the event where it lies; within a
 * run of a file-mode recording, taken here (the rest of perf_next() has
 * nothing to do for it)
 */
int trace_perf_next_ref(struct trace_reader *r, const struct trace_event **ev)
{
	struct perf_reader *p = r->perf;
	struct lane *l = p->run;

	if (p->run_left && !p->pipe && !trace_src_cut(p->src)) {
		*ev = &l->q[l->head].ev;
		l->head = (l->head + 1) & (l->cap - 1);
		l->len--;
		p->run_left--;
		p->queued--;
		return 1;
	}
	return perf_next_checked(r, ev);
}

/* up to @max of the events of the run merge_scan() measured, lent where they lie */
static size_t take_run(struct perf_reader *p, const struct trace_event **evs, size_t max)
{
	struct lane *l = p->run;
	size_t i, n = p->run_left < max ? p->run_left : max, h = l->head, mask = l->cap - 1;

	if (h + n <= l->cap) {
		const struct queued *q = &l->q[h];	/* (the usual case: no wrap) */

		for (i = 0; i < n; i++)
			evs[i] = &q[i].ev;
	} else {
		for (i = 0; i < n; i++)
			evs[i] = &l->q[(h + i) & mask].ev;
	}
	l->head = (h + n) & mask;
	l->len -= n;
	p->run_left -= n;
	p->queued -= n;
	return n;
}

/*
 * trace_next_batch() for a perf.data file: in a file-mode recording, the
 * events that may come out before the next record must be read, run after
 * run of the merge, up to @max: they lie in their lanes, which nothing
 * overwrites before a record is read, the next call's; one out of the
 * heap (perf_reader.taken, which the heap's next would overwrite) ends
 * the batch.  Else one event, as trace_perf_next_ref().
 */
int trace_perf_next_batch(struct trace_reader *r, const struct trace_event **evs, size_t max)
{
	struct perf_reader *p = r->perf;
	const struct trace_event *ev;
	size_t n = 0;
	int ret;

	if (max > INT_MAX)
		max = INT_MAX;
	if (p->pipe || trace_src_cut(p->src))
		return perf_next_checked(r, evs);
	if (!p->run_left) {
		/* (what may read records, and the prescan, the first time) */
		ret = perf_next_checked(r, evs);
		if (ret <= 0 || evs[0] == &p->taken)
			return ret;
		n = 1;
	}
	while (n < max) {
		if (p->run_left) {
			n += take_run(p, evs + n, max - n);
			continue;
		}
		if (!p->heap_len && !p->queued_over) {
			/*
			 * dequeue_slow() where the lanes hold all: the next run
			 * measured, and taken whole (not its first event alone)
			 */
			if (!p->queued || (!p->out_all && p->floor_ts > p->out_limit))
				break;
			merge_scan(p);
			p->floor_ts = p->run->q[p->run->head].ev.ts_ns;
			if (!p->run_left)
				break;
			continue;
		}
		ev = dequeue_slow(p);	/* reads no record: NULL until one is read */
		if (!ev)
			break;
		evs[n++] = ev;
		if (ev == &p->taken)
			break;
	}
	return (int)n;
}

void trace_perf_close(struct trace_reader *r)
{
	struct perf_reader *p = r->perf;

	if (!p)
		return;
	if (p->tep)
		tep_lib(NULL, 0)->tep_free(p->tep);	/* loaded: it made p->tep */
	for (size_t i = 0; i < p->nr_formats; i++) {
		free((char *)p->formats[i].system);
		free((char *)p->formats[i].text);
	}
	free(p->formats);
	perf_inflate_free(p);
	if (p->dec)
		tp_decoder_free(p->dec);
	page_block_free(p->dec, p->dec_mapped);
	free(p->printk);
	page_block_free(p->vote.cpu, p->vote_mapped);
	free(p->attrs);
	free(p->ids);
	free(p->id_dense);
	free(p->dz);
	for (unsigned int i = 0; i < p->nr_active; i++)
		page_block_free(p->lanes[p->active[i]].q, p->lanes[p->active[i]].mapped);
	free(p->lanes);
	free(p->active);
	free(p->heap);
	page_block_free(p->skip_left, p->skip_left_mapped);
	page_block_free(p->marks, p->marks_mapped);
	free(p);
	r->perf = NULL;
}

/* the types of event @te makes where tp_quick_makes() says it would (a bit each), else 0 */
static uint32_t quick_types(const struct tp_event *te)
{
	if (te->quick_min == SIZE_MAX)
		return 0;
	switch (te->id) {
	case EV_WAKEUP:
		return 1u << TEV_WAKEUP;
	case EV_HRTIMER_START:
		return 1u << TEV_HRTIMER_START;
	case EV_HRTIMER_EXPIRE:
		return 1u << TEV_HRTIMER_EXPIRE;
	case EV_HRTIMER_CANCEL:
		return 1u << TEV_HRTIMER_CANCEL;
	case EV_IRQ:
		return 1u << TEV_IRQ | 1u << TEV_LOCAL_TIMER;
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		return 1u << te->bare_type;
	default:
		return 0;
	}
}

/* the hrtimer events that carry a function, the tick's or another */
#define HRTIMER_FN_TYPES	(1u << TEV_HRTIMER_START | 1u << TEV_HRTIMER_EXPIRE)

/**
 * trace_perf_want() - trace_want() for a perf.data file: its samples of
 * other types left out where the file can be read again (a regular file
 * opened by its name, in file mode: not a pipe, not standard input)
 *
 * A caller that reads no hrtimer event (of them, only their time and CPU)
 * need not know which function is the tick's: the vote that finds it, a
 * read of the data before the data (prescan_tick()), is left out, and the
 * hrtimer records are left out as if it were known (tp_decoder.tick_unasked:
 * they decode, or fail, alike without it).  What the vote's read would
 * have found wrong first (a corrupt record further on, before a failure of
 * the events' own) is not looked for, so a failing read is no answer
 * (trace_skipped().redo_failed): read again without trace_want(), it says
 * what it says with the vote.
 */
void trace_perf_want(struct trace_reader *r, uint32_t types)
{
	struct perf_reader *p = r->perf;
	bool any = false;
	struct stat st;

	if (p->pipe || !p->dec || !r->src.close_fd || fstat(r->src.fd, &st) ||
	    !S_ISREG(st.st_mode))
		return;
	if (p->prescan && !(types & HRTIMER_FN_TYPES)) {
		p->prescan = false;
		p->dec->tick_unasked = true;
	}
	for (int i = 0; i < p->dec->nr; i++) {
		uint32_t makes = quick_types(&p->dec->events[i]);

		p->skip_event[i] = makes && !(makes & types);
		any |= p->skip_event[i];
	}
	if (!any)
		return;
	/* zeroed by the kernel: its pages touched by the CPUs that come */
	p->skip_left = page_block_alloc(TRACE_MAX_CPUS * sizeof(*p->skip_left),
					&p->skip_left_mapped);
	if (!p->skip_left)
		return;		/* (every event given) */
	p->skipping = true;
}

/** trace_perf_skipped() - trace_skipped() for a perf.data file */
void trace_perf_skipped(const struct trace_reader *r, struct trace_skipped *out)
{
	const struct perf_reader *p = r->perf;

	out->events = p->skip_n;
	out->last_ns = p->skip_max;
	out->redo = (p->skip_stopped || p->asked_late) && p->skip_n;
	out->redo_failed = p->dec && p->dec->tick_unasked;	/* (no vote ran: trace_perf_want()) */
}

/*
 * @cpu was asked of: once every CPU the file says the machine had was (each
 * at its first event), no more asks come, and no more marks are kept
 */
static void joined(struct perf_reader *p, unsigned int cpu)
{
	uint64_t bit = 1ull << (cpu % 64);

	if (cpu >= TRACE_MAX_CPUS || (p->joined[cpu / 64] & bit))
		return;
	p->joined[cpu / 64] |= bit;
	if (++p->nr_joined < p->nr_cpus || !p->nr_cpus)
		return;
	p->marks_off = true;
	p->marks_head = p->marks_len = 0;
}

/** trace_perf_skipped_before() - trace_skipped_before() for a perf.data file */
int64_t trace_perf_skipped_before(struct trace_reader *r, const struct trace_event *ev)
{
	struct perf_reader *p = r->perf;
	int64_t latest = p->skip_folded;
	size_t mask = p->marks_cap - 1;
	uint64_t seq;

	if (p->marks_off) {
		/* (no answer kept: one more CPU than the file said) */
		p->asked_late = true;
		return p->skip_max;
	}
	if (!p->skip_n) {
		joined(p, ev->cpu);
		return INT64_MIN;
	}
	/* (lent from its lane, where its place in the order is beside it, or from the heap) */
	seq = ev == &p->taken ? p->taken_seq :
		((const struct queued *)((const char *)ev - offsetof(struct queued, ev)))->seq;
	for (size_t i = 0; i < p->marks_len; i++) {
		const struct skip_mark *m = &p->marks[(p->marks_head + i) & mask];

		if ((m->ts < ev->ts_ns || (m->ts == ev->ts_ns && m->seq < seq)) && m->ts > latest)
			latest = m->ts;
	}
	joined(p, ev->cpu);
	return latest;
}
