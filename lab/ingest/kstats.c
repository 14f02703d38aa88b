// SPDX-License-Identifier: MIT
/*
 * kstats.c - the kernel's own idle statistics, from a trace.
 *
 * Every idle entry followed by its exit on the same CPU is one hit of the
 * state entered, lasting exit - entry (the kernel's own residency, exit
 * latency included).  An exit without an entry (the CPU was idle when the
 * trace began) and an entry without an exit (still idle at its end) are
 * not counted, as idlestat does not count them.
 *
 * Above/below: the kernel's cpu_idle_miss verdicts where the trace has
 * them.  Otherwise they are recomputed with the kernel's definitions
 * (cpuidle_enter_state(): too deep if shorter than the state's target
 * residency and a shallower state exists; too shallow if the stay less the
 * exit latency reaches the next deeper state's target residency), from a
 * state table: a platform's, given by the caller.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivf.h"
#include "reconstruct.h"
#include "kstats.h"
#include "kstats_cluster.h"

/* the events asked of the reader at once (trace_next_batch()) */
#define KSTATS_BATCH	64

/*
 * The types of event the C-states read (on_event()): of the others (the
 * wake-ups, timers, interrupts that kwake reads) they ask only the time
 * and CPU, which a reader that leaves them out says (trace_want()).  A
 * frequency change asks nothing of them (no part of the span): read, so
 * that it is not summed with the others.
 */
#define KSTATS_CSTATE_TYPES	(1u << TEV_IDLE_ENTER | 1u << TEV_IDLE_EXIT | \
				 1u << TEV_IDLE_MISS | 1u << TEV_HALT_POLL_NS | \
				 1u << TEV_LOST | 1u << TEV_CPU_FREQ)

/*
 * read_pass(): the reader left events out and says they came out of order,
 * or it left out the tick's vote and the read failed: read again
 */
#define KSTATS_AGAIN	1

struct cpu_track {
	int64_t entry_ns;	/* -1: not in idle */
	int state;
	bool pending;		/* @stay ended, its verdict may still come */
	struct kstats_stay stay;
};

/*
 * One read: the tally, what it asks beside the C-states (@wakeups: kwake,
 * also for the stays' wake-ups; @freqs: kfreq), each CPU's idle period
 * (@track, ks->nr_cpus of them), the CPUs with events of their own (@own)
 * and with idle events (@idle), the clusters, and where errors go.
 */
struct kread {
	struct kstats *ks;
	const struct cpuidle_platform_state *states;
	int nr_states;
	bool wakeups, freqs;
	bool skipping;		/* only KSTATS_CSTATE_TYPES asked of the reader */
	struct kstats_sink sink;
	struct cpu_track *track;
	uint64_t own[TRACE_MAX_CPUS / 64], idle[TRACE_MAX_CPUS / 64];
	bool seen[TRACE_MAX_CPUS];	/* @own, a byte each: a look per event */
	struct kstats_clusters cl;
	struct trace_reader *r;
	const char *path;
	char *err;
	size_t errlen;
	bool backstep;		/* @err says how the trace went back in time */
};

/* the CPUs up to @cpu tracked */
static int grow(struct kread *k, unsigned int cpu)
{
	struct kstats *ks = k->ks;
	unsigned int n = ks->nr_cpus, want = cpu + 1, i;
	struct kstate_stats *c;
	struct cpu_track *t;

	c = realloc(ks->cpu, (size_t)want * TRACE_MAX_STATES * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + (size_t)n * TRACE_MAX_STATES, 0,
	       (size_t)(want - n) * TRACE_MAX_STATES * sizeof(*c));
	ks->cpu = c;
	t = realloc(k->track, want * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = n; i < want; i++) {
		t[i].entry_ns = -1;
		t[i].pending = false;
	}
	k->track = t;
	ks->nr_cpus = want;
	return 0;
}

/* The kernel's verdict on one stay of @d ns in @state of @states: 1 above, -1 below, else 0. */
static int verdict(const struct cpuidle_platform_state *states, int nr_states, int state,
		   int64_t d)
{
	if (state >= nr_states)
		return 0;
	if (d < states[state].target_residency_ns)
		return state > 0;
	if (state + 1 < nr_states && d > states[state].exit_latency_ns &&
	    d - states[state].exit_latency_ns >= states[state + 1].target_residency_ns)
		return -1;
	return 0;
}

/*
 * @t's ended stay, whose verdict can no longer come, handed on with what
 * ended it (kwake's source of the CPU's current period: called before the
 * CPU's next entry reaches kwake)
 */
static void flush(struct kread *k, struct cpu_track *t)
{
	const struct kwake *w = &k->ks->wake;
	unsigned int cpu = t->stay.index;

	if (!t->pending)
		return;
	t->stay.wake = KWAKE_UNKNOWN;
	if (cpu < w->nr_cpus && w->cpu[cpu].last >= 0)
		t->stay.wake = (int)w->cpu[cpu].src[w->cpu[cpu].last].kind;
	kstats_hand_on(&k->sink, &t->stay);
	t->pending = false;
}

/* @ev to the tables asked for beside the C-states */
static inline int tables(struct kread *k, const struct trace_event *ev)
{
	int ret = k->wakeups ? kwake_event(&k->ks->wake, ev) : 0;

	if (!ret && k->freqs)
		ret = kfreq_event(&k->ks->freq, ev);
	return ret;
}

/* the tracer lost events of a CPU: the entry in progress may have lost its exit */
static int on_lost(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	int ret;

	if (!ks->lost_gaps++) {
		ks->lost_cpu = ev->cpu;
		ks->lost_line = ev->line;
		ks->lost_n = ev->value;
	}
	if (ev->value > 0)
		ks->lost_events += (uint64_t)ev->value;
	ret = tables(k, ev);
	if (ret)
		return ret;
	if (ev->cpu < ks->nr_cpus) {
		struct cpu_track *t = &k->track[ev->cpu];

		flush(k, t);
		if (t->entry_ns >= 0)
			kstats_cluster_move(&k->cl, ks, ev->cpu, t->state, -1, ev->ts_ns);
		t->entry_ns = -1;
	}
	/*
	 * As in reconstruction: a marker with a time of its own (perf's)
	 * moves the newest on, never back, once the trace has begun; one
	 * older than that is not an error.
	 */
	if (ks->events && ev->ts_ns > ks->last_ns)
		ks->last_ns = ev->ts_ns;
	return 0;
}

/* the span moves on; a trace out of order as reconstruction refuses it is refused */
static inline int on_time(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	char msg[320];

	if (!ks->events++) {
		ks->first_ns = ks->last_ns = ev->ts_ns;
	} else if (ev->ts_ns > ks->last_ns) {
		ks->last_ns = ev->ts_ns;
	} else if (ev->ts_ns < ks->last_ns - IV_REORDER_WINDOW_NS) {
		/* what reconstruction refuses (iv_builder_feed()), refused */
		iv_describe_backstep(msg, sizeof(msg), ks->last_ns - ev->ts_ns, ev->cpu);
		snprintf(k->err, k->errlen, "%s%s%llu: %s", k->path,
			 trace_is_binary(k->r) ? ": byte " : ":", (unsigned long long)ev->line,
			 msg);
		k->backstep = true;
		return -EINVAL;
	} else if (ev->ts_ns < ks->first_ns) {
		ks->first_ns = ev->ts_ns;
	}
	return 0;
}

/* an idle event's CPU, tracked */
static inline struct cpu_track *tracked(struct kread *k, unsigned int cpu)
{
	if (cpu >= k->ks->nr_cpus && grow(k, cpu))
		return NULL;
	return &k->track[cpu];
}

/* what an idle entry and an idle exit do first: the tables, the CPU marked idle, its track */
static inline int idle_event_track(struct kread *k, const struct trace_event *ev,
				   struct cpu_track **t)
{
	int ret = tables(k, ev);

	if (ret)
		return ret;
	k->idle[ev->cpu / 64] |= 1ull << (ev->cpu % 64);
	*t = tracked(k, ev->cpu);
	return *t ? 0 : -ENOMEM;
}

static int on_idle_enter(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	struct cpu_track *t;
	int ret;

	/* the stay that ended: its source before this entry opens another */
	if (ev->cpu < ks->nr_cpus)
		flush(k, &k->track[ev->cpu]);
	ret = idle_event_track(k, ev, &t);
	if (ret)
		return ret;
	if (t->entry_ns >= 0)	/* its exit was not traced */
		kstats_cluster_move(&k->cl, ks, ev->cpu, t->state, -1, ev->ts_ns);
	kstats_cluster_move(&k->cl, ks, ev->cpu, ev->state, 1, ev->ts_ns);
	t->entry_ns = ev->ts_ns;
	t->state = ev->state;
	if (ev->state + 1 > ks->nr_states)
		ks->nr_states = ev->state + 1;
	return 0;
}

static int on_idle_exit(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	struct cpu_track *t;
	int ret = idle_event_track(k, ev, &t);

	if (ret)
		return ret;
	flush(k, t);
	if (t->entry_ns >= 0 && ev->ts_ns >= t->entry_ns) {
		int64_t d = ev->ts_ns - t->entry_ns;
		int v = k->states ? verdict(k->states, k->nr_states, t->state, d) : 0;
		struct kstate_stats *st = kstats_get(ks, ev->cpu, t->state);

		kstats_tally(st, d);
		if (!ks->misses_recorded) {
			st->above += v > 0;
			st->below += v < 0;
		}
		if (k->sink.fn) {
			t->stay = (struct kstats_stay){
				.start_ns = t->entry_ns,
				.ns = d,
				.index = ev->cpu,
				.state = t->state,
				.judged_above = v > 0,
				.judged_below = v < 0,
			};
			t->pending = true;
		}
	}
	if (t->entry_ns >= 0)
		kstats_cluster_move(&k->cl, ks, ev->cpu, t->state, -1, ev->ts_ns);
	t->entry_ns = -1;
	return 0;
}

/* the kernel's own verdict on a stay (cpu_idle_miss) */
static int on_idle_miss(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	struct cpu_track *t = tracked(k, ev->cpu);

	if (!t)
		return -ENOMEM;
	if (!ks->misses_recorded) {
		/* the kernel's own verdicts replace any recomputed so far */
		unsigned int c;
		int s;

		for (c = 0; c < ks->nr_cpus; c++)
			for (s = 0; s < TRACE_MAX_STATES; s++)
				kstats_get(ks, c, s)->above = kstats_get(ks, c, s)->below = 0;
		ks->misses_recorded = true;
	}
	if (ev->below)
		kstats_get(ks, ev->cpu, ev->state)->below++;
	else
		kstats_get(ks, ev->cpu, ev->state)->above++;
	if (t->pending && t->stay.state == ev->state) {
		t->stay.kernel_below |= ev->below;
		t->stay.kernel_above |= !ev->below;
	}
	if (ev->state + 1 > ks->nr_states)
		ks->nr_states = ev->state + 1;
	return 0;
}

/*
 * @ev's CPU takes part in its cluster from its first event on, which the
 * reader always gives; the events it left out before @ev move the time on
 * first, as they would have if given (trace_skipped_before())
 */
static __attribute__((noinline)) void join(struct kread *k, const struct trace_event *ev)
{
	if (k->skipping)
		kstats_clusters_advance(&k->cl, trace_skipped_before(k->r, ev));
	kstats_cluster_join(&k->cl, k->ks, ev->cpu, ev->ts_ns);
}

/* one event of the trace: 0 or a negative errno (-EINVAL with k->backstep) */
static inline int on_event(struct kread *k, const struct trace_event *ev)
{
	struct kstats *ks = k->ks;
	unsigned int cpu = ev->cpu;
	int ret;

	if (ev->type == TEV_CPU_FREQ)	/* no part of the span, the CPUs, the idle periods */
		return k->freqs ? kfreq_event(&ks->freq, ev) : 0;
	if (!k->seen[cpu]) {	/* the CPU's first event */
		k->seen[cpu] = true;
		k->own[cpu / 64] |= 1ull << (cpu % 64);
		if (!kstats_cluster_member(ks, cpu))
			join(k, ev);
	}
	kstats_clusters_advance(&k->cl, ev->ts_ns);
	if (ev->type == TEV_LOST)
		return on_lost(k, ev);
	ret = on_time(k, ev);
	if (ret)
		return ret;
	switch (ev->type) {
	case TEV_IDLE_ENTER:
		return on_idle_enter(k, ev);
	case TEV_IDLE_EXIT:
		return on_idle_exit(k, ev);
	case TEV_IDLE_MISS:
		return on_idle_miss(k, ev);
	case TEV_HALT_POLL_NS:
		ks->windows++;
		ks->windows_widened += ev->value > ev->old;
		ks->window_sum_ns += (double)ev->value;
		return 0;
	default:	/* a wake-up, a timer, ...: the C-states ask only its time */
		return tables(k, ev);
	}
}

/*
 * An interval file's CPUs without idle events have no events at all: in
 * the trace they had events of their own, so they took part in their
 * cluster (always busy); from the trace's start here, not from their first
 * event, which the file does not keep.
 */
static void join_idle_less(struct kread *k, const struct trace_reader *r)
{
	const struct ivf_info *in = trace_ivf_info(r);
	unsigned int cpu;

	if (!in->notes_known)
		return;
	for (cpu = 0; cpu < TRACE_MAX_CPUS; cpu++) {
		if (!(in->notes.idle_less[cpu / 64] >> (cpu % 64) & 1))
			continue;
		k->seen[cpu] = true;
		k->own[cpu / 64] |= 1ull << (cpu % 64);
		if (!kstats_cluster_member(k->ks, cpu))
			kstats_cluster_join(&k->cl, k->ks, cpu, in->first_ns);
	}
}

/*
 * An interval file's events span its intervals, not the trace's first and
 * last events; they have no lost-event markers, and CPUs without idle
 * events have no events at all: its header and notes say these.
 */
static void from_notes(struct kstats *ks, const struct trace_reader *r)
{
	const struct ivf_info *in = trace_ivf_info(r);
	const struct iv_notes *n = &in->notes;

	ks->approx = *trace_ivf_approx(r);
	if (in->first_ns < ks->first_ns)
		ks->first_ns = in->first_ns;
	if (in->last_ns > ks->last_ns)
		ks->last_ns = in->last_ns;
	if (!in->notes_known)
		return;
	ks->lost_gaps = n->lost_gaps;
	ks->lost_events = n->lost_events;
	ks->lost_cpu = n->lost_cpu;
	ks->lost_line = n->lost_line;
	ks->lost_n = n->lost_n;
	ks->nr_idle_less = n->nr_idle_less;
	memcpy(ks->idle_less, n->idle_less, sizeof(ks->idle_less));
}

/*
 * The trace read without error: what is known only at its end; the events
 * the reader left out counted, and the latest of them, as if given, moving
 * the span and the clusters' time on (none of them came first: the reader
 * gives each CPU's first event)
 */
static int finish(struct kread *k, const struct trace_reader *r, struct trace_info *info)
{
	struct kstats *ks = k->ks;
	int ret = kwake_finish(&ks->wake);
	struct trace_skipped sk;

	if (ret)
		return ret;
	trace_skipped(r, &sk);
	if (sk.events) {
		ks->events += sk.events;
		if (sk.last_ns > ks->last_ns)
			ks->last_ns = sk.last_ns;
		kstats_clusters_advance(&k->cl, sk.last_ns);
	}
	kstats_clusters_finish(&k->cl, ks);
	for (size_t i = 0; i < TRACE_MAX_CPUS / 64; i++) {
		/* CPUs with events of their own but no idle entry or exit */
		ks->idle_less[i] = k->own[i] & ~k->idle[i];
		ks->nr_idle_less += (unsigned int)__builtin_popcountll(ks->idle_less[i]);
	}
	ks->misses_recomputed = !ks->misses_recorded && k->states;
	if (ks->from_intervals)
		from_notes(ks, r);
	if (info)
		*info = *trace_info(r);
	return 0;
}

/* every event of @r through on_event(): 0 at the end, or the first failure */
static int read_all(struct kread *k, struct trace_reader *r)
{
	const struct trace_event *evs[KSTATS_BATCH];
	int n, i, ret;

	while ((n = trace_next_batch(r, evs, KSTATS_BATCH)) > 0)
		for (i = 0; i < n; i++) {
			ret = on_event(k, evs[i]);
			if (ret)
				return ret;
			if (k->sink.ret)
				return k->sink.ret;
		}
	return n;
}

int kstats_from_trace(const char *path, const struct cpuidle_platform *p,
		      struct kstats *out, struct trace_info *info, char *err, size_t errlen)
{
	return kstats_from_trace_each(path, p, NULL, NULL, out, info, err, errlen);
}

int kstats_from_trace_each(const char *path, const struct cpuidle_platform *p,
			   kstats_stay_fn fn, void *ctx, struct kstats *out,
			   struct trace_info *info, char *err, size_t errlen)
{
	const struct kstats_want every = { .wakeups = true, .freqs = true, .stay = fn, .ctx = ctx };

	return kstats_read(path, p, &every, out, info, err, errlen);
}

/*
 * One read of @path, as kstats_read(); with @skip, the reader asked for the
 * C-states' events alone (trace_want()).  Return: as kstats_read(), or
 * KSTATS_AGAIN (@out freed) where the reader cannot vouch for what it left
 * out (or for its failure).
 */
static int read_pass(const char *path, const struct cpuidle_platform *p,
		     const struct kstats_want *want, bool skip, struct kstats *out,
		     struct trace_info *info, char *err, size_t errlen)
{
	struct kread *k = calloc(1, sizeof(*k));
	struct trace_skipped sk;
	struct trace_reader *r;
	unsigned int cpu;
	int ret;

	memset(out, 0, sizeof(*out));
	kwake_init(&out->wake, p ? p->states : NULL, p ? p->state_count : 0);
	if (!k) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	*k = (struct kread){
		.ks = out,
		.states = p ? p->states : NULL,
		.nr_states = p ? p->state_count : 0,
		.wakeups = want->wakeups || want->stay,
		.freqs = want->freqs,
		.sink = { .fn = want->stay, .ctx = want->ctx },
		.path = path,
		.err = err,
		.errlen = errlen,
	};
	out->from_intervals = ivf_is_file(path) == 1;
	if (out->from_intervals)
		ret = trace_open_intervals(path, &r, err, errlen);
	else
		ret = trace_open(path, &r, err, errlen);
	if (ret) {
		free(k);
		return ret;
	}
	k->r = r;
	if (skip && !out->from_intervals) {
		trace_want(r, KSTATS_CSTATE_TYPES);
		k->skipping = true;
	}
	ret = kstats_clusters_init(&k->cl, out, p, trace_info(r), &k->sink);
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		free(k);
		trace_close(r);
		return ret;
	}
	if (out->from_intervals)
		join_idle_less(k, r);
	ret = read_all(k, r);
	if (k->skipping) {
		trace_skipped(r, &sk);
		if (sk.redo || (ret < 0 && sk.redo_failed)) {
			kstats_free(out);
			free(k->track);
			free(k);
			trace_close(r);
			return KSTATS_AGAIN;
		}
	}
	for (cpu = 0; ret >= 0 && cpu < out->nr_cpus; cpu++)
		flush(k, &k->track[cpu]);
	if (ret >= 0 && k->sink.ret)
		ret = k->sink.ret;
	if (ret < 0) {
		if (k->sink.ret)
			snprintf(err, errlen, "%s: %s", path, strerror(-k->sink.ret));
		else if (!k->backstep)
			snprintf(err, errlen, "%s", trace_error(r));
		kstats_free(out);
	} else {
		ret = finish(k, r, info);
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
			kstats_free(out);
		}
	}
	free(k->track);
	free(k);
	trace_close(r);
	return ret;
}

int kstats_read(const char *path, const struct cpuidle_platform *p,
		const struct kstats_want *want, struct kstats *out, struct trace_info *info,
		char *err, size_t errlen)
{
	/* the lean read: the C-states alone, whose other events give only their time and CPU */
	bool lean = !want->wakeups && !want->freqs && !want->stay;
	int ret = read_pass(path, p, want, lean, out, info, err, errlen);

	if (ret == KSTATS_AGAIN)
		ret = read_pass(path, p, want, false, out, info, err, errlen);
	return ret;
}

void kstats_free(struct kstats *ks)
{
	free(ks->cpu);
	ks->cpu = NULL;
	free(ks->cluster);
	ks->cluster = NULL;
	ks->nr_cpus = 0;
	kwake_free(&ks->wake);
	kfreq_free(&ks->freq);
}

/* @trace, a name from an idlestat header, names @plat (maybe cut at a space). */
static bool same_name(const char *trace, const char *plat)
{
	size_t n = strcspn(plat, " ");

	return !strcmp(trace, plat) || (strlen(trace) == n && !strncmp(trace, plat, n));
}

bool kstats_platform_mismatch(int nr_states, const struct trace_info *info,
			      const struct cpuidle_platform *p, char *msg, size_t len)
{
	int s;

	if (info && info->nr_states > 0) {
		int n = info->nr_states > nr_states ? info->nr_states : nr_states;

		if (n != p->state_count) {
			snprintf(msg, len, "the trace has %d idle state%s, platform %s has %d", n,
				 n == 1 ? "" : "s", p->name, p->state_count);
			return true;
		}
		for (s = 0; s < info->nr_states; s++)
			if (!same_name(info->state_names[s], p->states[s].name)) {
				snprintf(msg, len, "the trace's state %d is \"%s\", platform %s's "
					 "is \"%s\"", s, info->state_names[s], p->name,
					 p->states[s].name);
				return true;
			}
		return false;
	}
	if (nr_states > p->state_count) {
		snprintf(msg, len, "the trace enters %d idle state%s, platform %s has %d",
			 nr_states, nr_states == 1 ? "" : "s", p->name, p->state_count);
		return true;
	}
	return false;
}
