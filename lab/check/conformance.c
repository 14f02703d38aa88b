// SPDX-License-Identifier: MIT
/*
 * conformance.c - the rules every governor keeps, checked on simulated
 * machines.
 */

/**
 * DOC: conformance
 *
 * A governor is judged by its select() answers, made through the real
 * idle path: the core computes its inputs (the QoS limit, the sleep length,
 * the tick) from what the embedding, here the checker, gives it, exactly as
 * in a replay.  Each run is one small system of two CPUs on one driver
 * shape, each CPU with its own fake clock, which the states' enter()
 * advances by the stay.  Idle periods come from a seeded generator with
 * regimes (random; timer-driven and periodic; intercepted, the timer far
 * away; short bursts), next timers at, around and far from the states'
 * target residencies, sometimes none; a period continues through
 * re-entries when a polling state reaches its time limit, the kept tick
 * fires, or the driver refuses an entry.  Between idle calls the CPU
 * latency QoS request changes (removed, 0, each state's exit latency and
 * 1 us either side, values between two states), states are disabled and
 * enabled again, per CPU by the user or on every CPU by the driver, bus
 * master activity (CHECK_BM demotion) and the broadcast timer (TIMER_STOP
 * demotion) come and go.
 *
 * The rules, judged after every select() from the inputs it had (the QoS
 * limit in force, the disabled states), are those of enum
 * conformance_check_id.  "No enabled state meets the QoS limit" is the one
 * exception the core and the replay know (replay counts it as
 * qos_unmeetable, not as a violation): the QoS rule then cannot hold, and
 * state 0 is the kernel's last resort even when disabled (menu, teo and
 * cpuidle_find_deepest_state() fall back to it).  A polling state 0 always
 * meets any limit, so it is always allowed while enabled.
 *
 * The governor is also switched to mid-run from every partner and back
 * (so it meets devices another governor used, in mid idle period); there a
 * broken rule counts against "switch" unless the governor already broke it
 * alone.  Determinism: each shape's run is repeated on a fresh system and
 * compared decision by decision (index, entered state, tick, stay), then
 * run once more as two systems stepped alternately in one process, which
 * must agree with each other and with the first run: a governor keeping
 * anything outside dev->governor_data, a static counter or rand(), fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conformance_internal.h"

static const struct {
	const char *name;
	const char *unit;
	const char *desc;
} conf_checks[CONFORMANCE_NR_CHECKS] = {
	[CONFORMANCE_ENABLE] = { "enable", "shapes",
		"enables on every driver shape; every idle call goes through" },
	[CONFORMANCE_INDEX] = { "index", "decisions",
		"select() returns an index in [0, state_count)" },
	[CONFORMANCE_DISABLED] = { "disabled", "decisions",
		"never a disabled state (state 0 allowed when no enabled state meets QoS)" },
	[CONFORMANCE_QOS] = { "qos", "decisions",
		"exit latency within a QoS limit above 0, unless no enabled state meets it" },
	[CONFORMANCE_QOS0] = { "qos0", "decisions",
		"QoS 0: only a polling state, when an enabled one exists" },
	[CONFORMANCE_SWITCH] = { "switch", "decisions",
		"switched to and from every partner mid-run, it keeps the rules" },
	[CONFORMANCE_DETERMINISM] = { "determinism", "runs",
		"the same input gives the same decisions, also interleaved with a twin" },
};

/* ------------------------------------------------------------ judging */

static const char *conf_state_name(const struct conf_machine *m, int i)
{
	return m->cpus[0].dev.states[i].name;
}

static bool conf_polls(const struct conf_machine *m, int i)
{
	return m->cpus[0].dev.states[i].flags & CPUIDLE_FLAG_POLLING;
}

/*
 * Judge @d against @rule.  Return: -1 if the rule does not constrain this
 * decision, 0 if kept, 1 if broken (@why then says how).
 */
static int conf_judge(const struct conf_machine *m, const struct conf_decision *d,
		      enum conformance_check_id rule, char *why, size_t len)
{
	int n = m->shape->count, idx = d->selected, i, meets = -1, poll = -1, deeper = 0;
	int64_t limit = (int64_t)d->qos_us * CPUIDLE_NSEC_PER_USEC;
	bool off;

	if (rule == CONFORMANCE_INDEX) {
		if (idx >= 0 && idx < n)
			return 0;
		snprintf(why, len, "index %d outside [0, %d)", idx, n);
		return 1;
	}
	if (idx < 0 || idx >= n)
		return -1;
	for (i = 0; i < n; i++) {
		if (conf_exit_ns(m, i) > limit)
			deeper++;
		if (d->disabled & (1u << i))
			continue;
		if (conf_exit_ns(m, i) <= limit && meets < 0)
			meets = i;
		if (conf_polls(m, i) && poll < 0)
			poll = i;
	}
	off = d->disabled & (1u << idx);

	switch (rule) {
	case CONFORMANCE_DISABLED:
		if (!d->disabled)
			return -1;
		if (!off)
			return 0;
		if (meets < 0 && idx == 0)
			return 0;	/* the kernel's last resort */
		if (meets >= 0)
			snprintf(why, len, "state %d is disabled while state %d (%s) is enabled "
				 "and meets the QoS limit", idx, meets, conf_state_name(m, meets));
		else
			snprintf(why, len, "state %d is disabled; with no enabled state meeting "
				 "the QoS limit only an enabled state or state 0 may be chosen", idx);
		return 1;
	case CONFORMANCE_QOS:
		if (d->qos_us == 0 || meets < 0 || !deeper)
			return -1;
		if (conf_exit_ns(m, idx) <= limit)
			return 0;
		snprintf(why, len, "exit latency %lld ns above the QoS limit %lld ns while "
			 "state %d (%s, %lld ns) is enabled and meets it",
			 (long long)conf_exit_ns(m, idx), (long long)limit, meets,
			 conf_state_name(m, meets), (long long)conf_exit_ns(m, meets));
		return 1;
	case CONFORMANCE_QOS0:
		if (d->qos_us != 0 || n < 2 || (poll < 0 && meets < 0))
			return -1;
		if (poll >= 0 ? conf_polls(m, idx) : conf_exit_ns(m, idx) == 0)
			return 0;
		if (poll >= 0)
			snprintf(why, len, "QoS 0 allows only polling, and state %d does not poll "
				 "while state %d (%s) does and is enabled", idx, poll,
				 conf_state_name(m, poll));
		else
			snprintf(why, len, "QoS 0: exit latency %lld ns while state %d (%s) has 0",
				 (long long)conf_exit_ns(m, idx), meets, conf_state_name(m, meets));
		return 1;
	default:
		return -1;
	}
}

static void conf_fmt_decision(const struct conf_machine *m, const struct conf_decision *d,
			      char *buf, size_t len)
{
	char timer[32], qos[32], state[48];

	if (d->sleep_ns == CPUIDLE_TIME_INFINITE)
		snprintf(timer, sizeof(timer), "none");
	else
		snprintf(timer, sizeof(timer), "%lld", (long long)d->sleep_ns);
	if (d->qos_us >= PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE)
		snprintf(qos, sizeof(qos), "none");
	else
		snprintf(qos, sizeof(qos), "%d", d->qos_us);
	if (d->selected >= 0 && d->selected < m->shape->count)
		snprintf(state, sizeof(state), "%d (%s)", d->selected,
			 conf_state_name(m, d->selected));
	else
		snprintf(state, sizeof(state), "%d", d->selected);
	snprintf(buf, len, "next_timer_ns=%s delta_tick_ns=%lld tick_stopped=%d qos_us=%s "
		 "disabled=0x%x last_state=%d last_residency_ns=%llu -> state %s", timer,
		 (long long)d->delta_tick_ns, d->tick_stopped, qos, d->disabled, d->last_state,
		 (unsigned long long)d->last_residency_ns, state);
}

static void conf_fail(struct conf_ctx *cc, enum conformance_check_id check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conf_fail(struct conf_ctx *cc, enum conformance_check_id check, const char *fmt, ...)
{
	struct conformance_result *r = &cc->rep->checks[check];
	va_list ap;
	int n;

	if (r->failures++)
		return;
	n = snprintf(r->message, sizeof(r->message), "%s: ", cc->gov->name);
	if (n < 0 || (size_t)n >= sizeof(r->message))
		return;
	va_start(ap, fmt);
	vsnprintf(r->message + n, sizeof(r->message) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* "shape 4-state, seed 7, idle entry 12, cpu 1" */
static void conf_where(const struct conf_ctx *cc, const struct conf_machine *m,
		       const struct conf_decision *d, char *buf, size_t len)
{
	snprintf(buf, len, "shape %s, seed %llu, idle entry %llu, cpu %u", m->shape->name,
		 (unsigned long long)cc->seed, (unsigned long long)m->entries, d->cpu);
}

/*
 * Judge a decision of the governor under test on every rule.  @partner
 * set: made after a switch from it, when a newly broken rule counts as a
 * failed switch.
 */
static void conf_judge_all(struct conf_ctx *cc, const struct conf_machine *m,
			   const struct conf_decision *d, const char *partner,
			   uint64_t switched_at)
{
	static const enum conformance_check_id rules[] = {
		CONFORMANCE_INDEX, CONFORMANCE_DISABLED, CONFORMANCE_QOS, CONFORMANCE_QOS0,
	};
	char why[200], where[96], dec[320];
	unsigned int i;

	if (!d->selected_valid)
		return;
	if (partner)
		cc->rep->checks[CONFORMANCE_SWITCH].checked++;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct conformance_result *r = &cc->rep->checks[rules[i]];
		int v = conf_judge(m, d, rules[i], why, sizeof(why));

		if (v < 0)
			continue;
		if (!partner)
			r->checked++;
		if (v == 0)
			continue;
		conf_where(cc, m, d, where, sizeof(where));
		conf_fmt_decision(m, d, dec, sizeof(dec));
		if (!partner)
			conf_fail(cc, rules[i], "%s: %s: %s", where, dec, why);
		else if (!r->failures)	/* broken alone too: no news */
			conf_fail(cc, CONFORMANCE_SWITCH, "%s, switched from %s at entry %llu: "
				  "rule %s: %s: %s", where, partner,
				  (unsigned long long)switched_at, conf_checks[rules[i]].name,
				  dec, why);
		if (rules[i] == CONFORMANCE_INDEX)
			break;
	}
}

/* An idle call failing otherwise than by a bad index or a refused entry. */
static bool conf_call_failed(const struct conf_decision *d)
{
	return d->ret < 0 && d->ret != -ERANGE && !(d->ret == -EBUSY && d->selected_valid);
}

/* ------------------------------------------------------------ runs */

static uint64_t conf_seed(const struct conf_ctx *cc, int shape, unsigned int variant)
{
	uint64_t s = cc->seed ^ ((uint64_t)(shape + 1) << 32) ^ ((uint64_t)variant << 48);

	return rng_next(&s);
}

static void conf_rec_of(const struct conf_decision *d, struct conf_rec *r)
{
	r->selected = d->selected;
	r->entered = (int16_t)d->entered;
	r->cpu = (uint8_t)d->cpu;
	r->stop_tick = d->stop_tick;
	r->stay = d->stay;
}

static bool conf_rec_equal(const struct conf_rec *a, const struct conf_rec *b)
{
	return a->selected == b->selected && a->entered == b->entered && a->cpu == b->cpu &&
	       a->stop_tick == b->stop_tick && a->stay == b->stay;
}

static void conf_fmt_rec(const struct conf_rec *r, char *buf, size_t len)
{
	snprintf(buf, len, "cpu %u state %d (entered %d, stop_tick %d, stay %lld ns)", r->cpu,
		 r->selected, r->entered, r->stop_tick, (long long)r->stay);
}

/* A machine for the governor under test, or the enable failure recorded. */
static int conf_start(struct conf_ctx *cc, int shape, const struct cpuidle_governor *start,
		      uint64_t seed, struct conf_machine **m)
{
	bool dev_err;
	int ret = conf_machine_init(cc, shape, start, seed, m, &dev_err);

	if (ret && dev_err && start == cc->gov) {
		conf_fail(cc, CONFORMANCE_ENABLE, "shape %s: registering a device under it "
			  "failed: enable() %d (%s)", conf_shapes[shape].name, ret, strerror(-ret));
		return 1;
	}
	if (ret && dev_err) {
		conf_fail(cc, CONFORMANCE_SWITCH, "shape %s: partner %s failed to enable: %d (%s)",
			  conf_shapes[shape].name, start->name, ret, strerror(-ret));
		return 1;
	}
	return ret;
}

/* The shape alone: every rule judged; the decisions kept for determinism. */
static int conf_run_base(struct conf_ctx *cc, int shape)
{
	uint64_t seed = conf_seed(cc, shape, 0);
	struct conf_machine *m;
	struct conf_decision d;
	char where[96], dec[320];
	unsigned int i;
	int ret;

	cc->rec_ok = false;
	ret = conf_start(cc, shape, cc->gov, seed, &m);
	if (ret)
		return ret > 0 ? 0 : ret;
	cc->rep->checks[CONFORMANCE_ENABLE].checked++;
	for (i = 0; i < cc->entries; i++) {
		conf_step(m, &d);
		conf_judge_all(cc, m, &d, NULL, 0);
		if (conf_call_failed(&d)) {
			conf_where(cc, m, &d, where, sizeof(where));
			conf_fmt_decision(m, &d, dec, sizeof(dec));
			conf_fail(cc, CONFORMANCE_ENABLE, "%s: %s: the idle call failed: %d (%s)",
				  where, dec, d.ret, strerror(-d.ret));
		}
		if (i < cc->nr_rec)
			conf_rec_of(&d, &cc->rec[i]);
	}
	cc->rep->entries += m->entries;
	conf_machine_fini(m);
	cc->rec_ok = true;
	return 0;
}

/*
 * Partner first, then the governor under test from a quarter of the run,
 * the partner again from half, the governor again from three quarters.
 */
static int conf_run_switch(struct conf_ctx *cc, int shape, unsigned int p)
{
	const struct cpuidle_governor *partner = cc->partners[p];
	uint64_t seed = conf_seed(cc, shape, 1 + p), switched_at = 0;
	const struct cpuidle_governor *cur = partner;
	struct conf_machine *m;
	struct conf_decision d;
	char where[96], dec[320];
	unsigned int i, phase = 0;
	int ret;

	ret = conf_start(cc, shape, partner, seed, &m);
	if (ret)
		return ret > 0 ? 0 : ret;
	for (i = 0; i < cc->entries; i++) {
		if (i == (phase + 1) * (cc->entries / 4) && phase < 3) {
			const struct cpuidle_governor *next = cur == partner ? cc->gov : partner;

			phase++;
			ret = cpuidle_switch_governor(m->sys, next->name);
			if (ret) {
				conf_fail(cc, CONFORMANCE_SWITCH, "shape %s, seed %llu: switching "
					  "from %s to %s at entry %llu failed: %d (%s)",
					  m->shape->name, (unsigned long long)cc->seed, cur->name,
					  next->name, (unsigned long long)m->entries, ret,
					  strerror(-ret));
				break;
			}
			cur = next;
			switched_at = m->entries;
		}
		conf_step(m, &d);
		if (cur != cc->gov)
			continue;
		conf_judge_all(cc, m, &d, partner->name, switched_at);
		if (conf_call_failed(&d)) {
			conf_where(cc, m, &d, where, sizeof(where));
			conf_fmt_decision(m, &d, dec, sizeof(dec));
			conf_fail(cc, CONFORMANCE_SWITCH, "%s, switched from %s at entry %llu: "
				  "%s: the idle call failed: %d (%s)", where, partner->name,
				  (unsigned long long)switched_at, dec, d.ret, strerror(-d.ret));
		}
	}
	cc->rep->entries += m->entries;
	conf_machine_fini(m);
	return 0;
}

/* @who made decision @b where @ref made @a. */
static void conf_diverged(struct conf_ctx *cc, int shape, const char *who, const char *ref,
			  uint64_t entry, const struct conf_rec *a, const struct conf_rec *b)
{
	char sa[96], sb[96];

	conf_fmt_rec(a, sa, sizeof(sa));
	conf_fmt_rec(b, sb, sizeof(sb));
	conf_fail(cc, CONFORMANCE_DETERMINISM, "shape %s, seed %llu: %s diverged from %s at "
		  "idle entry %llu: %s instead of %s", conf_shapes[shape].name,
		  (unsigned long long)cc->seed, who, ref, (unsigned long long)entry, sb, sa);
}

/*
 * The base run again on a fresh system, then twice more interleaved:
 * every decision must match the base run's.
 */
static int conf_run_determinism(struct conf_ctx *cc, int shape)
{
	uint64_t seed = conf_seed(cc, shape, 0);
	struct conf_machine *m[2] = { NULL, NULL };
	struct conf_decision d;
	struct conf_rec r[2];
	unsigned int i, n = cc->entries < cc->nr_rec ? cc->entries : cc->nr_rec;
	bool failed = false;
	int ret, k;

	if (!cc->rec_ok)
		return 0;
	/* alone, on a fresh system */
	ret = conf_start(cc, shape, cc->gov, seed, &m[0]);
	if (ret)
		return ret > 0 ? 0 : ret;
	cc->rep->checks[CONFORMANCE_DETERMINISM].checked++;
	for (i = 0; i < n; i++) {
		conf_step(m[0], &d);
		conf_rec_of(&d, &r[0]);
		if (!conf_rec_equal(&r[0], &cc->rec[i])) {
			conf_diverged(cc, shape, "a second system fed the same input",
				      "the first", i + 1, &cc->rec[i], &r[0]);
			break;
		}
	}
	cc->rep->entries += m[0]->entries;
	conf_machine_fini(m[0]);
	m[0] = NULL;

	/* two systems in lock step */
	for (k = 0; k < 2; k++) {
		ret = conf_start(cc, shape, cc->gov, seed, &m[k]);
		if (ret) {
			conf_machine_fini(m[0]);
			return ret > 0 ? 0 : ret;
		}
	}
	cc->rep->checks[CONFORMANCE_DETERMINISM].checked++;
	for (i = 0; i < n && !failed; i++) {
		for (k = 0; k < 2; k++) {
			conf_step(m[k], &d);
			conf_rec_of(&d, &r[k]);
		}
		if (!conf_rec_equal(&r[0], &r[1])) {
			conf_diverged(cc, shape, "the second of two systems run interleaved",
				      "the first", i + 1, &r[0], &r[1]);
			failed = true;
		} else if (!conf_rec_equal(&r[0], &cc->rec[i])) {
			conf_diverged(cc, shape, "a system run interleaved with a twin",
				      "the same system alone", i + 1, &cc->rec[i], &r[0]);
			failed = true;
		}
	}
	for (k = 0; k < 2; k++) {
		cc->rep->entries += m[k]->entries;
		conf_machine_fini(m[k]);
	}
	return 0;
}

int conformance_check(const struct cpuidle_governor *gov, const struct conformance_options *opt,
		      struct conformance_report *rep)
{
	const struct cpuidle_governor *const *p;
	struct conf_ctx cc = { 0 };
	unsigned int shapes, i;
	int shape, ret = 0;

	if (!gov || !rep || !gov->select || !memchr(gov->name, 0, sizeof(gov->name)) ||
	    !gov->name[0])
		return -EINVAL;
	shapes = opt && opt->shapes ? opt->shapes : CONFORMANCE_ALL_SHAPES;
	if (shapes & ~CONFORMANCE_ALL_SHAPES)
		return -EINVAL;
	if (opt && opt->entries > CONFORMANCE_MAX_ENTRIES)
		return -EINVAL;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->governor, sizeof(rep->governor), "%s", gov->name);
	cc.gov = gov;
	cc.rep = rep;
	cc.seed = opt && opt->seed ? opt->seed : CONFORMANCE_DEFAULT_SEED;
	cc.entries = opt && opt->entries ? opt->entries : CONFORMANCE_DEFAULT_ENTRIES;
	rep->seed = cc.seed;
	p = opt && opt->partners ? opt->partners : cpuidle_builtin_governors();
	for (; *p; p++) {
		if (conf_same_name(*p, gov))
			continue;
		if (cc.nr_partners == sizeof(cc.partners) / sizeof(cc.partners[0]))
			return -EINVAL;
		cc.partners[cc.nr_partners++] = *p;
	}
	cc.nr_rec = cc.entries < CONF_MAX_REC ? cc.entries : CONF_MAX_REC;
	cc.rec = calloc(cc.nr_rec, sizeof(*cc.rec));
	if (!cc.rec)
		return -ENOMEM;

	/* alone first, so that a switch is blamed only for what is new */
	for (shape = 0; shape < CONFORMANCE_NR_SHAPES && !ret; shape++) {
		if (!(shapes & (1u << shape)))
			continue;
		ret = conf_run_base(&cc, shape);
		if (!ret)
			ret = conf_run_determinism(&cc, shape);
	}
	for (shape = 0; shape < CONFORMANCE_NR_SHAPES && !ret; shape++) {
		if (!(shapes & (1u << shape)))
			continue;
		for (i = 0; i < cc.nr_partners && !ret; i++)
			ret = conf_run_switch(&cc, shape, i);
	}
	free(cc.rec);
	if (ret)
		return ret;
	for (i = 0; i < CONFORMANCE_NR_CHECKS; i++)
		rep->nr_failed += rep->checks[i].failures > 0;
	return 0;
}

const char *conformance_check_name(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].name : NULL;
}

const char *conformance_check_unit(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].unit : NULL;
}

const char *conformance_check_desc(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].desc : NULL;
}

const char *conformance_shape_name(enum conformance_shape_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_SHAPES ? conf_shapes[id].name : NULL;
}

const char *conformance_shape_desc(enum conformance_shape_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_SHAPES ? conf_shapes[id].desc : NULL;
}

int conformance_shape_find(const char *name)
{
	int i;

	for (i = 0; name && i < CONFORMANCE_NR_SHAPES; i++)
		if (!strcmp(conf_shapes[i].name, name))
			return i;
	return -EINVAL;
}
