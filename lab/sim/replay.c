// SPDX-License-Identifier: MIT
/*
 * replay.c - the replay engine.
 *
 * Each run is one simulated machine: a cpuidle system with the platform's
 * table driver, one device per CPU and the governor under test.  Every
 * interval is replayed on its CPU's clock, anchored at the interval's start
 * in trace time (so the tick falls where it fell on the recorded machine):
 * the engine calls cpuidle_idle_call() with the time to the next timer, as
 * the kernel's idle loop would, until the interval is used up.  A polling
 * state stops at its time limit, a kept tick wakes the CPU at the next tick
 * boundary, and the idle loop then runs the governor again, as in the
 * kernel.  The exit latency of the state a real wake-up finds the CPU in is
 * the wake-up latency the governor added.
 *
 * Energy: each state's model power times the time accounted in it, plus
 * its entry and exit energy per entry; the CPUs' active power times the run
 * time between intervals.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "domain.h"
#include "lab_trace.h"
#include "lookahead.h"
#include "replay.h"
#include "replay_internal.h"

#define TRACE_QOS_REQUEST	"trace"

static uint64_t replay_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)ctx;
	return ((struct replay_cpu *)dev->embed_data)->clock;
}

/*
 * Time from @c's clock to its next tick boundary (ticks fall on multiples
 * of TICK_NSEC of the trace clock).  The boundary is kept, so the division
 * happens only when the clock has passed it.
 */
static int64_t time_to_tick(const struct replay_machine *m, struct replay_cpu *c)
{
	if (c->clock >= c->next_tick || c->clock + (uint64_t)m->tick_ns < c->next_tick)
		c->next_tick = (c->clock / (uint64_t)m->tick_ns + 1) * (uint64_t)m->tick_ns;
	return (int64_t)(c->next_tick - c->clock);
}

/*
 * The idle callback in kernel_loop mode (fidelity), where the interval
 * says what the kernel did in this entry (replay_cpu.kernel_*).  Where we
 * entered the kernel's state:
 *
 * - a poll lasts as long as the kernel's if that ran past our limit
 *   (poll_idle() reads the clock only every 200 spins, and in a VM those
 *   can take long), and ends as a cut one if the kernel's limit ended it,
 *   even at the end of the interval;
 * - any other state ends where the kernel's entry ended, and the governor
 *   sees the kernel's residency: the exit comes after the wake-up (in a VM
 *   the tick arrives late, and the interrupt's handler runs before the
 *   exit), and at a threshold (haltpoll's guest_halt_poll_ns) those
 *   microseconds decide.
 *
 * A tick that runs nothing does not end a poll, as in the kernel
 * (need_resched does).  The rest is replay_idle()'s.
 */
__attribute__((noinline))
static int kernel_loop_idle(struct replay_machine *m, struct replay_cpu *c,
			    struct cpuidle_device *dev, struct cpuidle_state *state, int index)
{
	bool polling = state->flags & CPUIDLE_FLAG_POLLING, cut = false, tick_inside = false;
	bool kernel = index == c->kernel_state && c->kernel_ns > 0;
	int64_t stay = c->remaining, limit, span;

	c->wake = REPLAY_WAKE_EVENT;
	if (kernel && !polling) {
		if (!c->kernel_last) {
			if (c->kernel_ns < stay)
				stay = c->kernel_ns;
			if (c->kernel_tick)
				c->wake = REPLAY_WAKE_TICK;
		}
		c->ctx->got_tick = c->kernel_last ? c->kernel_wake_tick : c->kernel_tick;
		c->consumed = stay;
		/*
		 * The last entry: the wake-up ended the stay, the exit came
		 * later.  The governor sees what the kernel's clock measured,
		 * the trace's residency less the events' cost around it; the
		 * replay's clock catches up after the accounting.
		 */
		span = c->kernel_last ? c->kernel_ns : stay;
		c->skew_owed = m->residency_skew_ns < span ? m->residency_skew_ns : 0;
		c->clock += (uint64_t)(span - c->skew_owed);
		return 0;
	}
	/*
	 * Not the kernel's state, and the kernel's entry ended before the
	 * interval's wake-up in a state that does not poll: an interrupt woke
	 * it (its tick, or one the trace does not show: the entry would have
	 * gone on otherwise) and nothing ran.  It wakes ours too, in any state
	 * that does not poll, as the kernel's tick does.
	 */
	if (!kernel && !polling && !c->kernel_last && c->kernel_ns > 0 && c->kernel_ns < stay &&
	    c->kernel_state >= 0 && c->kernel_state < dev->state_count &&
	    !(dev->states[c->kernel_state].flags & CPUIDLE_FLAG_POLLING)) {
		stay = c->kernel_ns;
		c->wake = REPLAY_WAKE_TICK;
	}
	if (polling) {
		limit = (int64_t)cpuidle_poll_time(dev);
		if (kernel && c->kernel_ns > limit) {
			limit = c->kernel_ns;
			cut = c->kernel_cut;
		} else if (kernel && !c->kernel_last && c->kernel_ns < stay) {
			/*
			 * The kernel's poll ended within its limit, yet the CPU
			 * went round the idle loop again: need_resched was set
			 * and nothing ran.  Ours ends there too, not at the limit.
			 */
			stay = c->kernel_ns;
		}
		if (stay > limit) {
			stay = limit;
			cut = true;
		}
		if (cut) {
			dev->poll_time_limit = true;
			c->wake = REPLAY_WAKE_POLL_LIMIT;
		}
	}
	if (!c->ctx->stop_tick || m->tick_periodic || (c->kernel_tick && !polling)) {
		int64_t tick = time_to_tick(m, c);

		if (tick < stay && polling) {
			tick_inside = true;
		} else if (tick < stay) {
			stay = tick;
			c->wake = REPLAY_WAKE_TICK;
		}
	}
	c->ctx->got_tick = c->wake == REPLAY_WAKE_TICK || tick_inside;
	c->consumed = stay;
	c->clock += (uint64_t)(stay + state->exit_latency_ns);
	return 0;
}

/* The table driver's idle callback: let simulated time pass. */
static int replay_idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index,
		       void *ctx)
{
	struct replay_machine *m = ctx;
	struct replay_cpu *c = dev->embed_data;
	int64_t stay = c->remaining;

	if (m->kernel_loop)
		return kernel_loop_idle(m, c, dev, state, index);
	c->wake = REPLAY_WAKE_EVENT;
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		int64_t limit = (int64_t)cpuidle_poll_time(dev);

		if (stay > limit) {
			stay = limit;
			c->wake = REPLAY_WAKE_POLL_LIMIT;
		}
	}
	/*
	 * A tick ends a poll here, unlike the kernel's: the CPU comes back
	 * to the governor, which sees the tick.
	 */
	if (!c->ctx->stop_tick || m->tick_periodic) {
		/* replay_interval() brought next_tick up to this clock */
		int64_t tick = (int64_t)(c->next_tick - c->clock);

		if (tick < stay) {
			stay = tick;
			c->wake = REPLAY_WAKE_TICK;
		}
	}
	/* the limit only if it, not a tick before it, ended the poll */
	if (c->wake == REPLAY_WAKE_POLL_LIMIT)
		dev->poll_time_limit = true;
	c->ctx->got_tick = c->wake == REPLAY_WAKE_TICK;
	c->consumed = stay;
	c->clock += (uint64_t)(stay + state->exit_latency_ns);
	return 0;
}

int64_t replay_remaining_ns(const struct cpuidle_device *dev)
{
	return ((const struct replay_cpu *)dev->embed_data)->remaining;
}

const struct cpuidle_platform_state *replay_state_model(const struct cpuidle_device *dev,
							int index)
{
	return cpuidle_table_state_model(&dev->states[index]);
}

const struct cpuidle_platform_cluster *replay_cluster(const struct cpuidle_device *dev)
{
	return ((const struct replay_cpu *)dev->embed_data)->cluster;
}

int64_t replay_siblings_idle_ns(const struct cpuidle_device *dev, int64_t stay_ns,
				unsigned int *siblings)
{
	const struct replay_cpu *c = dev->embed_data;

	*siblings = 1;
	if (!c->machine->lookahead)
		return 0;	/* nobody knows: no coupling counted on */
	return lookahead_siblings_idle_ns(c->machine->lookahead, dev->cpu, (int64_t)c->clock,
					  (int64_t)c->clock + stay_ns, siblings);
}

/* The tracing wrapper's sink: the simulated time, then the call. */
static void log_decision(void *ctx, const struct cpuidle_device *dev,
			 const struct cpuidle_decision *d)
{
	const struct cpuidle_lab_run *cfg = ctx;
	const struct replay_cpu *c = dev->embed_data;
	char line[512];

	if (cfg->on_decision)
		cfg->on_decision(cfg->decision_ctx, (int64_t)c->clock, dev, d);
	if (!cfg->decisions)
		return;
	cpuidle_decision_format(d, line, sizeof(line));
	fprintf(cfg->decisions, "t_ns=%llu %s\n", (unsigned long long)c->clock, line);
}

static void machine_destroy(struct replay_machine *m)
{
	unsigned int i;

	lookahead_destroy(m->lookahead);
	domain_tracker_destroy(m->domains);
	cpuidle_system_destroy(m->sys);
	replay_queues_free(m);
	for (i = 0; m->cpus && i < m->nr_cpus; i++)
		replay_steady_free(m->cpus[i].steady);
	free(m->cpus);
}

/* The run's "PATH=VALUE" attribute writes (governor tunables, say). */
/*
 * kernel_loop: each CPU's polling window as the trace began (iv_notes), so
 * that the replay starts where the kernel's device was, not where an
 * enable left it.
 */
static void start_windows(struct replay_machine *m, const struct iv_notes *notes)
{
	unsigned int i;

	for (i = 0; i < m->nr_cpus && i < LAB_MAX_CPUS; i++)
		if (notes->window_known[i / 64] >> (i % 64) & 1)
			m->cpus[i].dev.poll_limit_ns = notes->window_start[i];
}

static int apply_attrs(struct cpuidle_system *sys, const char *const *attrs)
{
	char path[256];
	const char *eq;
	int ret;

	for (; attrs && *attrs; attrs++) {
		eq = strchr(*attrs, '=');
		if (!eq || (size_t)(eq - *attrs) >= sizeof(path))
			return -EINVAL;
		memcpy(path, *attrs, (size_t)(eq - *attrs));
		path[eq - *attrs] = '\0';
		ret = cpuidle_attr_write(sys, path, eq + 1);
		if (ret)
			return ret;
	}
	return 0;
}

static int machine_init(struct replay_machine *m, const struct cpuidle_lab_run *cfg)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = replay_clock, .cluster_view = replay_cluster_view },
		.ctx = m,
		.tick_hz = cfg->platform->tick_hz,
		.governor = cfg->governor,
	};
	const struct cpuidle_governor *gov;
	unsigned int i;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = cpuidle_system_create(&opts, &m->sys);
	if (ret)
		return ret;
	if (!strcmp(cfg->governor, CPUIDLE_LAB_ORACLE)) {
		m->sees_end = true;	/* it reads the time left (steady.c) */
		ret = cpuidle_register_governor(m->sys, &replay_oracle_governor);
		if (ret)
			goto err;
	}
	for (i = 0; cfg->governors && cfg->governors[i]; i++) {
		ret = cpuidle_register_governor(m->sys, cfg->governors[i]);
		if (ret)
			goto err;
	}
	m->tick_ns = cpuidle_tick_nsec(m->sys);
	m->kernel_loop = cfg->kernel_loop;
	m->tick_periodic = cfg->tick_periodic;
	gov = cpuidle_current_governor(m->sys);
	if (!gov || strcmp(gov->name, cfg->governor)) {
		ret = -ENOENT;
		goto err;
	}
	if (cfg->decisions || cfg->on_decision) {	/* the same governor, its calls logged */
		ret = cpuidle_governor_tracer_init(&m->tracer, gov, log_decision, (void *)cfg);
		if (!ret)
			ret = cpuidle_register_governor(m->sys, &m->tracer.gov);
		if (!ret)
			ret = cpuidle_attr_write(m->sys, "cpuidle/current_governor",
						 m->tracer.gov.name);
		if (ret)
			goto err;
	}
	ret = cpuidle_table_driver_init(&m->td, cfg->platform, replay_idle, m);
	if (!ret)
		ret = cpuidle_register_driver(m->sys, &m->td.drv);
	if (ret)
		goto err;
	m->nr_cpus = cpuidle_lab_trace_cpus(cfg->trace);
	m->cpus = calloc(m->nr_cpus, sizeof(*m->cpus));
	if (!m->cpus) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < m->nr_cpus; i++) {
		struct replay_cpu *c = &m->cpus[i];
		int cl = cpuidle_platform_cluster_of(m->td.platform, i);

		c->first_ns = UINT64_MAX;

		if (cl < 0) {	/* the trace has more CPUs than the platform */
			ret = -ERANGE;
			goto err;
		}
		c->machine = m;
		c->cluster = &m->td.platform->clusters[cl];
		ret = cpuidle_table_device_init(&m->td, &c->dev, i);
		if (ret)
			goto err;
		if (c->dev.state_count != m->td.platform->state_count) {
			ret = -EOPNOTSUPP;	/* results are kept per state index */
			goto err;
		}
		c->dev.embed_data = c;
		ret = cpuidle_register_device(m->sys, &c->dev);
		if (ret)
			goto err;
	}
	ret = domain_tracker_create(m->td.platform, m->nr_cpus, cfg->overlap, &m->domains);
	if (ret)
		goto err;
	replay_siblings_init(m, cfg);
	/* the oracle's domain choices need its siblings' future */
	for (i = 0; i < m->nr_cpus && !m->lookahead; i++)
		if (!strcmp(cfg->governor, CPUIDLE_LAB_ORACLE) &&
		    domain_tracker_has_domain(m->domains, i)) {
			ret = lookahead_create(m->td.platform, m->nr_cpus, &m->lookahead);
			if (ret)
				goto err;
		}
	m->qos_us = cfg->qos_us >= 0 ? cfg->qos_us : PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE;
	ret = pm_qos_add_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY, TRACE_QOS_REQUEST,
				     m->qos_us);
	if (ret)
		goto err;
	ret = apply_attrs(m->sys, cfg->attrs);
	if (ret)
		goto err;
	if (cfg->event_cost_off && lab_trace_notes(cfg->trace))
		m->event_cost_ns = lab_trace_notes(cfg->trace)->residency_skew_ns;
	if (cfg->kernel_loop && lab_trace_notes(cfg->trace)) {
		start_windows(m, lab_trace_notes(cfg->trace));
		m->residency_skew_ns = lab_trace_notes(cfg->trace)->residency_skew_ns;
	}
	return 0;
err:
	machine_destroy(m);
	return ret;
}

static bool qos_meetable(const struct cpuidle_device *dev, int64_t limit_ns)
{
	int i;

	for (i = 0; i < dev->state_count; i++)
		if (!cpuidle_is_disabled(dev, i) && dev->states[i].exit_latency_ns <= limit_ns)
			return true;
	return false;
}

/*
 * The polling window after entry @entry (index @idx; @before: the window
 * before it) against the one the kernel logged there, if it logged one
 * (haltpoll's power:guest_halt_poll_ns).  A kernel adjustment counts as
 * reproduced only if we entered the same state and then held the same
 * window; a change of ours after a non-polling entry where the kernel
 * logged none (as far as the interval shows) is an extra one.  (A polling
 * entry may change the window without a governor: cpuidle_poll_time()
 * caches the derived limit.)
 */
static void compare_window(const struct cpuidle_device *dev, const struct idle_interval *iv,
			   unsigned int entry, int idx, uint64_t before, struct replay_counts *res)
{
	if (entry < IV_MAX_KSTATES && (iv->kwindow_mask & (1u << entry)))
		res->window_matched += iv->kstates[entry] == idx &&
				       dev->poll_limit_ns == iv->kwindow[entry];
	else if (dev->poll_limit_ns != before && !(dev->states[idx].flags & CPUIDLE_FLAG_POLLING) &&
		 (entry < IV_MAX_KSTATES || entry >= iv->nr_entries))
		res->window_extra++;
}

/*
 * The kernel's residency in entry @entry of @iv, 0 if the interval cannot
 * tell.  The interval keeps each in 32 bits of ns, saturated at 4.29 s (a
 * quiet server's halt lasts longer); where every entry is kept and only
 * this one saturated, it is the kernel's idle time less the others'.
 */
static int64_t kernel_residency(const struct idle_interval *iv, unsigned int entry)
{
	int64_t rest = iv->kernel_idle_ns;
	unsigned int j;

	if (iv->kresidency[entry] < UINT32_MAX)
		return iv->kresidency[entry];
	if (iv->nr_entries > IV_MAX_KSTATES)
		return 0;
	for (j = 0; j < iv->nr_entries; j++) {
		if (j == entry)
			continue;
		if (iv->kresidency[j] == UINT32_MAX)
			return 0;	/* two saturated: neither can be told */
		rest -= iv->kresidency[j];
	}
	return rest >= UINT32_MAX ? rest : 0;
}

/*
 * kernel_loop: what the kernel did in its entry @entry of @iv, as far as
 * the interval tells.
 */
static void kernel_entry(struct replay_cpu *c, const struct idle_interval *iv,
			 unsigned int entry)
{
	c->kernel_tick = false;
	c->kernel_state = -1;
	c->kernel_ns = 0;
	c->kernel_last = false;
	c->kernel_cut = false;
	c->kernel_wake_tick = false;
	if (entry >= IV_MAX_KSTATES || entry >= iv->nr_entries)
		return;
	c->kernel_tick = iv->ktick_mask & (1u << entry);
	c->kernel_state = iv->kstates[entry];
	c->kernel_ns = kernel_residency(iv, entry);
	c->kernel_last = entry + 1u == iv->nr_entries;
	c->kernel_cut = !c->kernel_last ||
			(iv->wake == IV_WAKE_UNKNOWN && !(iv->flags & IV_TASK_WAKE));
	c->kernel_wake_tick = c->kernel_last && iv->wake == IV_WAKE_TICK;
}

/*
 * Begin replaying @iv on its CPU: the clock anchored at its start, the
 * timer as the trace knew it.  replay_step() then makes its entries one
 * at a time until its idle time is used up, and replay_end() closes it.
 */
int replay_begin(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		 const struct idle_interval *iv, struct cpuidle_lab_result *res)
{
	struct replay_cpu *c = &m->cpus[iv->cpu];

	c->iv = *iv;
	memset(&c->idle, 0, sizeof(c->idle));
	c->ctx = &c->idle;
	c->timer_left = iv->timer_ns;
	c->tick_stopped = false;	/* the CPU ran before: the tick runs */
	c->loop_ns = 0;
	c->segments = m->domains && domain_tracker_wants_segments(m->domains, iv->cpu);
	c->entry = 0;
	c->active = true;
	res->timer_guessed += !!(iv->flags & IV_TIMER_GUESSED);
	if (iv->flags & IV_TIMER_UNKNOWN) {
		c->timer_left = CPUIDLE_TIME_INFINITE;
		res->timer_unknown++;
	}
	else if (c->timer_left < iv->idle_ns)	/* the trace lost a cancel */
		c->timer_left = iv->idle_ns;

	res->kernel_entries += iv->nr_entries;
	res->kernel_windows += iv->nr_kwindows;
	if (cfg->kernel_loop && iv->nr_entries > 1)
		c->loop_ns = iv->kernel_loop_ns / (iv->nr_entries - 1);
	c->clock = (uint64_t)iv->start_ns;
	c->remaining = iv->idle_ns;
	if (m->event_cost_ns && !cfg->kernel_loop) {
		/* the trace's cost of writing the events around it, not idle */
		c->remaining -= m->event_cost_ns;
		if (c->remaining < 1)
			c->remaining = 1;
	}
	res->intervals++;
	res->idle_ns += (uint64_t)iv->idle_ns;
	res->busy_ns += (uint64_t)iv->busy_ns;
	c->busy_ns += (uint64_t)iv->busy_ns;
	c->first_ns = c->first_ns < (uint64_t)iv->start_ns ? c->first_ns : (uint64_t)iv->start_ns;
	c->end_ns = (uint64_t)(iv->start_ns + iv->idle_ns + iv->busy_ns);
	return 0;
}

/* One idle entry of @c's interval: select, enter, account, reflect. */
int replay_step(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		struct replay_cpu *c, struct cpuidle_lab_result *res)
{
	const struct idle_interval *iv = &c->iv;
	struct cpuidle_idle_ctx *ctx = &c->idle;
	uint64_t exact = cfg->exact_entries ? cfg->exact_entries : CPUIDLE_LAB_EXACT_ENTRIES;
	int64_t tick, limit_ns;
	uint64_t entered, window;
	int idx, ret;

	/* the QoS in force for this CPU's interval (another's may have changed it) */
	if (cfg->qos_us < 0 && iv->qos_us != m->qos_us) {
		ret = pm_qos_update_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY,
						TRACE_QOS_REQUEST, iv->qos_us);
		if (ret)
			return ret;
		m->qos_us = iv->qos_us;
	}
	if (c->entry >= exact) {	/* a very long interval (steady.c) */
		ret = c->entry == exact ? replay_steady_begin(&c->steady, &c->dev) : 0;
		if (!ret)
			ret = replay_steady_step(m, c, res, &c->timer_left,
						 c->entry / CPUIDLE_LAB_CAP_FACTOR >= exact);
		if (ret)
			return ret;
	}
	tick = time_to_tick(m, c);
	entered = c->clock;

	ctx->sleep_length_ns = c->timer_left;
	ctx->delta_tick_ns = c->timer_left < tick ? c->timer_left : tick;
	ctx->tick_stopped = c->tick_stopped;
	window = c->dev.poll_limit_ns;
	if (cfg->kernel_loop)
		kernel_entry(c, iv, c->entry);
	idx = cpuidle_idle_call(&c->dev, ctx);
	if (idx < 0)
		return idx;
	c->clock += (uint64_t)c->skew_owed;
	c->skew_owed = 0;
	c->n.entries++;
	compare_window(&c->dev, iv, c->entry, idx, window, &c->n);
	/* what the siblings see of it until its next entry */
	c->seen_entered = (int64_t)entered;
	c->seen_end = (int64_t)entered + c->consumed;
	c->seen_state = idx;
	c->seen_timer = c->timer_left == CPUIDLE_TIME_INFINITE ? CPUIDLE_TIME_INFINITE :
			(int64_t)entered + c->timer_left;
	c->seen_expected = ctx->expected_stay_ns < 0 ? CPUIDLE_TIME_UNKNOWN :
			   (int64_t)entered + ctx->expected_stay_ns;
	if (c->segments) {
		ret = domain_segment(m->domains, iv->cpu, (int64_t)entered, c->consumed,
				     (int64_t)(c->clock - entered), idx);
		if (ret)
			return ret;
	}
	/*
	 * The limit the governor was given: the CPU latency QoS or the
	 * device's own resume latency (-s cpuN/power/...), the smaller.
	 */
	limit_ns = cpuidle_governor_latency_req(&c->dev);
	if (c->dev.states[idx].exit_latency_ns > limit_ns) {
		/* a violation only if a state within the limit was there to take */
		if (qos_meetable(&c->dev, limit_ns))
			c->n.qos_violations++;
		else
			c->n.qos_unmeetable++;
	}
	if (c->entry < IV_MAX_KSTATES) {	/* where the kernel's state is known */
		int kstate = iv->kstates[c->entry];
		bool known = (c->entry < iv->nr_entries) & (kstate >= 0);

		c->n.kernel_compared += known;
		c->n.kernel_matched += known & (kstate == idx);
	} else if ((iv->flags & IV_KSTATES_REST) && c->entry < iv->nr_entries) {
		c->n.kernel_compared++;
		c->n.kernel_matched += iv->kstates[IV_MAX_KSTATES - 1] == idx;
	}
	if (c->entry < UINT_MAX)
		c->entry++;
	c->remaining -= c->consumed;
	if (c->timer_left != CPUIDLE_TIME_INFINITE)
		c->timer_left -= c->consumed;
	c->tick_stopped = ctx->stop_tick && !c->kernel_tick && !m->tick_periodic;
	if (c->loop_ns && c->remaining > 0) {	/* the idle loop goes round */
		int64_t gap = c->loop_ns < c->remaining ? c->loop_ns : c->remaining;

		c->clock += (uint64_t)gap;
		c->remaining -= gap;
		if (c->timer_left != CPUIDLE_TIME_INFINITE)
			c->timer_left -= gap;
	}
	if (c->entry > exact)
		replay_steady_note(c->steady, idx, (int64_t)(c->clock - entered), c->wake,
				   c->tick_stopped);
	if (c->wake == REPLAY_WAKE_EVENT) {
		uint64_t lat = (uint64_t)c->dev.states[idx].exit_latency_ns;

		res->states[idx].wakes++;
		c->wakes[idx]++;
		res->added_latency_ns += lat;
		if (lat > res->max_added_latency_ns)
			res->max_added_latency_ns = lat;
	}
	return 0;
}

/* @c's interval is used up: its timeline is known up to its next entry. */
void replay_end(struct replay_machine *m, struct replay_cpu *c)
{
	const struct idle_interval *iv = &c->iv;

	c->active = false;
	if (m->domains)
		domain_interval_done(m->domains, iv->cpu, iv->start_ns,
				     iv->start_ns + iv->idle_ns + iv->busy_ns, true);
}

static int replay_interval(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
			   const struct idle_interval *iv, struct cpuidle_lab_result *res)
{
	struct replay_cpu *c = &m->cpus[iv->cpu];
	int ret = replay_begin(m, cfg, iv, res);

	while (!ret && c->remaining > 0)
		ret = replay_step(m, cfg, c, res);
	if (ret)
		return ret;
	replay_end(m, c);
	return 0;
}

int replay_next(struct replay_machine *m, struct replay_source *src, struct idle_interval *iv)
{
	int ret = src->next(src, iv);

	/* whatever the source checked: its CPUs, no negative times */
	if (ret > 0 && ((iv->cpu >= m->nr_cpus) |
			((uint64_t)(iv->idle_ns | iv->busy_ns | iv->qos_us) >> 63)))
		return -ERANGE;
	return ret;
}

/* One interval from the source: partial ones only tell the domains. */
int replay_one(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
	       const struct idle_interval *iv, struct cpuidle_lab_result *res)
{
	if (iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END)) {
		domain_interval_done(m->domains, iv->cpu, iv->start_ns,
				     iv->start_ns + iv->idle_ns + iv->busy_ns, false);
		res->skipped++;
		return 0;
	}
	return replay_interval(m, cfg, iv, res);
}

/*
 * The 99th percentile of added latency over every real wake-up: a wake-up
 * adds the exit latency of the state its CPU was in, by that CPU's own
 * table (clusters may differ), so the values are taken per CPU and state.
 */
struct lat_bucket {
	int64_t latency_ns;
	uint64_t wakes;
};

static int by_latency(const void *a, const void *b)
{
	const struct lat_bucket *x = a, *y = b;

	return (x->latency_ns > y->latency_ns) - (x->latency_ns < y->latency_ns);
}

static uint64_t p99_latency(const struct replay_machine *m, const struct cpuidle_lab_result *res)
{
	struct lat_bucket *b;
	uint64_t total = 0, seen = 0, p99 = res->max_added_latency_ns;
	size_t n = 0, k;
	unsigned int i;
	int s;

	b = malloc((size_t)m->nr_cpus * CPUIDLE_STATE_MAX * sizeof(*b));
	if (!b)
		return p99;	/* the largest: never an understatement */
	for (i = 0; i < m->nr_cpus; i++)
		for (s = 0; s < m->cpus[i].dev.state_count; s++)
			if (m->cpus[i].wakes[s]) {
				b[n].latency_ns = m->cpus[i].dev.states[s].exit_latency_ns;
				b[n++].wakes = m->cpus[i].wakes[s];
				total += m->cpus[i].wakes[s];
			}
	qsort(b, n, sizeof(*b), by_latency);
	for (k = 0; k < n; k++) {
		seen += b[k].wakes;
		if (seen * 100 >= total * 99) {
			p99 = (uint64_t)b[k].latency_ns;
			break;
		}
	}
	free(b);
	return total ? p99 : 0;
}

/*
 * The time the replay covers, as a wall clock: from the first replayed
 * interval's start on any CPU to the last one's end (its busy time
 * included) on any CPU.  Energy over it is the machine's mean power.
 */
static uint64_t wall_span(const struct replay_machine *m)
{
	uint64_t first = UINT64_MAX, end = 0;
	unsigned int i;

	for (i = 0; i < m->nr_cpus; i++) {
		if (m->cpus[i].first_ns == UINT64_MAX)
			continue;	/* nothing replayed on it */
		if (m->cpus[i].first_ns < first)
			first = m->cpus[i].first_ns;
		if (m->cpus[i].end_ns > end)
			end = m->cpus[i].end_ns;
	}
	return first < end ? end - first : 0;
}

static void collect(const struct replay_machine *m, struct cpuidle_lab_result *res)
{
	struct domain_totals dom;
	unsigned int i;
	int s;

	res->state_count = m->cpus[0].dev.state_count;
	res->energy_known = true;
	res->active_known = true;
	for (i = 0; i < m->nr_cpus; i++) {
		const struct replay_cpu *c = &m->cpus[i];

		res->entries += c->n.entries;
		res->qos_violations += c->n.qos_violations;
		res->qos_unmeetable += c->n.qos_unmeetable;
		res->kernel_compared += c->n.kernel_compared;
		res->kernel_matched += c->n.kernel_matched;
		res->window_matched += c->n.window_matched;
		res->window_extra += c->n.window_extra;

		for (s = 0; s < res->state_count; s++) {
			const struct cpuidle_state_usage *cs = &c->dev.states_usage[s];
			const struct cpuidle_platform_state *ps =
				cpuidle_table_state_model(&c->dev.states[s]);
			struct cpuidle_lab_state_result *st = &res->states[s];
			int power = replay_model_power_mw(ps);

			st->usage += cs->usage;
			st->time_ns += cs->time_ns;
			st->above += cs->above;
			st->below += cs->below;
			st->rejected += cs->rejected;
			if (power < 0) {
				res->energy_known = false;
				continue;
			}
			/* mW x ns = 1e-12 J = 1e-9 mJ; nJ = 1e-6 mJ */
			res->idle_energy_mj += (double)power * (double)cs->time_ns * 1e-9 +
					       (double)cs->usage * (double)replay_transition_nj(ps) * 1e-6;
		}
		if (c->cluster->active_power_mw < 0)
			res->active_known = false;
		else
			res->active_energy_mj += (double)c->cluster->active_power_mw *
						 (double)c->busy_ns * 1e-9;
	}
	domain_finish(m->domains, &dom);
	res->idle_energy_mj += dom.cpu_correction_mj;
	res->cluster_energy_mj = dom.cluster_energy_mj;
	res->domain_ns = dom.domain_ns;
	res->domain_forced = dom.forced;
	for (s = 0; s < res->state_count; s++) {
		res->states[s].effective_ns = dom.effective_ns[s];
		res->states[s].together_ns = dom.together_ns[s];
	}
	if (!res->active_known)
		res->active_energy_mj = 0;
	res->span_ns = wall_span(m);
	res->p99_added_latency_ns = p99_latency(m, res);
}

/* Why no governor is called @name; for NAME@RELEASE, the releases known. */
static void unknown_governor(const char *name, char *msg, size_t len)
{
	char known[256];

	if (strchr(name, '@') && cpuidle_governor_releases(name, known, sizeof(known)))
		snprintf(msg, len, "unknown governor '%s': the releases of %.*s known here are %s",
			 name, (int)strcspn(name, "@"), name, known);
	else
		snprintf(msg, len, "unknown governor '%s'", name);
}

int cpuidle_lab_replay(const struct cpuidle_lab_run *cfg, struct cpuidle_lab_result *res)
{
	struct replay_source *src = NULL;
	struct idle_interval iv;
	struct timespec t0, t1;
	struct replay_machine m;
	bool eof;
	int ret;

	if (cfg && cfg->isolated && cfg->platform && cfg->governor && cfg->trace)
		return replay_isolated(cfg, res);
	memset(res, 0, sizeof(*res));
	if (!cfg || !cfg->platform || !cfg->governor || !cfg->trace ||
	    !cpuidle_lab_trace_cpus(cfg->trace) || cpuidle_lab_trace_cpus(cfg->trace) > LAB_MAX_CPUS)
		return res->error = -EINVAL;
	snprintf(res->governor, sizeof(res->governor), "%s", cfg->governor);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = machine_init(&m, cfg);
	if (ret == -ENOENT)
		unknown_governor(cfg->governor, res->error_msg, sizeof(res->error_msg));
	if (ret)
		return res->error = ret;
	ret = lab_trace_stream(cfg->trace, &src);
	if (!ret && m.interleaved)
		ret = replay_interleaved(&m, cfg, src, res);
	while (!ret && !m.interleaved) {
		ret = replay_next(&m, src, &iv);
		if (ret < 0)
			break;
		eof = ret == 0;
		ret = 0;
		if (!m.lookahead) {
			if (eof)
				break;
			ret = replay_one(&m, cfg, &iv, res);
			continue;
		}
		/* the oracle on domain states: replay what the siblings' future allows */
		if (!eof)
			ret = lookahead_push(m.lookahead, &iv);
		while (!ret && lookahead_pop(m.lookahead, eof, &iv))
			ret = replay_one(&m, cfg, &iv, res);
		if (eof)
			break;
	}
	if (ret < 0 && src && src->error && src->error(src))
		snprintf(res->error_msg, sizeof(res->error_msg), "%s", src->error(src));
	if (src)
		src->close(src);
	collect(&m, res);
	machine_destroy(&m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->host_seconds = (double)(t1.tv_sec - t0.tv_sec) +
			    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return res->error = ret;
}
