// SPDX-License-Identifier: MIT
/*
 * trace_event.c - the events the lab reads, by name, and their payloads,
 * as the kernel's TP_printk() formats write them.  Numbers are parsed
 * exactly, in integers, and one out of its type's range is an error.
 *
 * Fields are found by key ("state=") at the start of a token, so fields
 * added by newer kernels (hrtimer_start's was_armed=) or missing ones we do
 * not need (softexpires=) do not matter.  The two fields whose values are
 * free text are read by position: an irq's name= is the rest of the line,
 * and sched_wakeup's target_cpu= is its last field, after a comm= that may
 * hold spaces or even "target_cpu=".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "trace_internal.h"

enum ev_id {
	EV_CPU_IDLE,
	EV_CPU_IDLE_MISS,
	EV_HALT_POLL_NS,
	EV_QOS_ADD,
	EV_QOS_UPDATE,
	EV_QOS_REMOVE,
	EV_HRTIMER_START,
	EV_HRTIMER_CANCEL,
	EV_HRTIMER_EXPIRE,
	EV_TICK_STOP,
	EV_LOCAL_TIMER,
	EV_RESCHED,
	EV_CALL_FUNC,
	EV_CALL_FUNC_SINGLE,
	EV_IRQ,
	EV_WAKEUP,
	EV_NR,
};

static const struct {
	const char *group;
	const char *name;
} events[EV_NR] = {
	[EV_CPU_IDLE] = { "power", "cpu_idle" },
	[EV_CPU_IDLE_MISS] = { "power", "cpu_idle_miss" },
	[EV_HALT_POLL_NS] = { "power", "guest_halt_poll_ns" },
	[EV_QOS_ADD] = { "power", "pm_qos_add_request" },
	[EV_QOS_UPDATE] = { "power", "pm_qos_update_request" },
	[EV_QOS_REMOVE] = { "power", "pm_qos_remove_request" },
	[EV_HRTIMER_START] = { "timer", "hrtimer_start" },
	[EV_HRTIMER_CANCEL] = { "timer", "hrtimer_cancel" },
	[EV_HRTIMER_EXPIRE] = { "timer", "hrtimer_expire_entry" },
	[EV_TICK_STOP] = { "timer", "tick_stop" },
	[EV_LOCAL_TIMER] = { "irq_vectors", "local_timer_entry" },
	[EV_RESCHED] = { "irq_vectors", "reschedule_entry" },
	[EV_CALL_FUNC] = { "irq_vectors", "call_function_entry" },
	[EV_CALL_FUNC_SINGLE] = { "irq_vectors", "call_function_single_entry" },
	[EV_IRQ] = { "irq", "irq_handler_entry" },
	[EV_WAKEUP] = { "sched", "sched_wakeup" },
};

#define IDLE_EXIT_STATE		4294967295ULL	/* PWR_EVENT_EXIT, (u32)-1 */

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool tok_end(char c)
{
	return c == ' ' || c == '\t' || c == '\0';
}

/**
 * trace_parse_u64() - a decimal number at *@p, advancing *@p past it
 * Return: 0; -EINVAL if there is no digit; -ERANGE if it exceeds UINT64_MAX.
 */
int trace_parse_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned int d;

	if (!is_digit(*s))
		return -EINVAL;
	for (; is_digit(*s); s++) {
		d = (unsigned int)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -ERANGE;
		x = x * 10 + d;
	}
	*p = s;
	*v = x;
	return 0;
}

/* a signed decimal in [@min, @max] */
static int parse_s64(const char **p, int64_t min, int64_t max, int64_t *v)
{
	const char *s = *p;
	bool neg = *s == '-';
	uint64_t x;
	int err;

	if (neg)
		s++;
	err = trace_parse_u64(&s, &x);
	if (err)
		return err;
	if (neg ? x > (uint64_t)INT64_MAX + 1 : x > (uint64_t)INT64_MAX)
		return -ERANGE;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	if (*v < min || *v > max)
		return -ERANGE;
	*p = s;
	return 0;
}

/* a hex number, with or without 0x ("%p" in perf, hashed in ftrace) */
static int parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	unsigned int d;
	bool any = false;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (;; s++) {
		if (is_digit(*s))
			d = (unsigned int)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			break;
		if (x >> 60)
			return -ERANGE;
		x = x << 4 | d;
		any = true;
	}
	if (!any)
		return -EINVAL;
	*p = s;
	*v = x;
	return 0;
}

/**
 * trace_parse_cpu() - the text between the brackets of "[001]"
 * Return: 0; -ERANGE if negative or >= TRACE_MAX_CPUS; -EINVAL.
 */
int trace_parse_cpu(const char *s, size_t len, unsigned int *cpu)
{
	const char *p = s;
	uint64_t v;
	int err;

	if (*p == '-')
		return -ERANGE;
	err = trace_parse_u64(&p, &v);
	if (err)
		return err;
	if ((size_t)(p - s) != len)
		return -EINVAL;
	if (v >= TRACE_MAX_CPUS)
		return -ERANGE;
	*cpu = (unsigned int)v;
	return 0;
}

/**
 * trace_parse_ts() - "SECS.FRAC" (1 to 9 decimals) to ns, without floats
 * Return: 0; -ERANGE past INT64_MAX ns; -EINVAL if malformed.
 */
int trace_parse_ts(const char *s, size_t len, int64_t *ns)
{
	const char *p = s, *f;
	uint64_t sec, frac = 0;
	int digits, err;

	err = trace_parse_u64(&p, &sec);
	if (err)
		return err;
	if (*p != '.')
		return -EINVAL;
	f = ++p;
	while (p < s + len && is_digit(*p))
		frac = frac * 10 + (uint64_t)(*p++ - '0');
	digits = (int)(p - f);
	if (p != s + len || digits < 1 || digits > 9)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	if (sec > ((uint64_t)INT64_MAX - frac) / 1000000000ULL)
		return -ERANGE;
	*ns = (int64_t)(sec * 1000000000ULL + frac);
	return 0;
}

/**
 * trace_event_lookup() - one of our events?
 * @name: "group:name" (perf) or "name" (ftrace), not NUL-terminated
 * @len: its length
 *
 * Return: the event's id for trace_parse_payload(), or -1.
 */
int trace_event_lookup(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);
	const char *ev = name;
	size_t glen = 0, evlen = len;
	int i;

	if (colon) {
		glen = (size_t)(colon - name);
		ev = colon + 1;
		evlen = len - glen - 1;
	}
	for (i = 0; i < EV_NR; i++) {
		if (strlen(events[i].name) != evlen || memcmp(events[i].name, ev, evlen))
			continue;
		if (colon && (strlen(events[i].group) != glen ||
			      memcmp(events[i].group, name, glen)))
			return -1;	/* same name, another group */
		return i;
	}
	return -1;
}

/* does a line that is no event line still name one of ours ("cpu_idle:")? */
bool trace_names_event(const char *line)
{
	const char *p;
	size_t n;
	int i;

	for (i = 0; i < EV_NR; i++) {
		n = strlen(events[i].name);
		for (p = strstr(line, events[i].name); p; p = strstr(p + 1, events[i].name)) {
			if (p[n] == ':' && (p == line || p[-1] == ' ' || p[-1] == ':'))
				return true;
		}
	}
	return false;
}

/* ---- payloads ---- */

struct payload {
	const char *s;		/* the payload */
	const char *event;	/* the event's name, for messages */
	int event_len;
	char *why;
	size_t whylen;
};

static int bad(struct payload *pl, int err, const char *what)
{
	snprintf(pl->why, pl->whylen, "%.*s: %s%s", pl->event_len, pl->event,
		 err == -ERANGE ? "out of range: " : "cannot parse ", what);
	return err;
}

/* the value of "key=" at the start of a token, or NULL */
static const char *field(const char *s, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = strstr(s, key); p; p = strstr(p + 1, key)) {
		if (p == s || p[-1] == ' ' || p[-1] == '\t')
			return p + n;
	}
	return NULL;
}

/* "key=N" as an unsigned number <= @max */
static int field_u64(struct payload *pl, const char *key, uint64_t max, uint64_t *v)
{
	const char *p = field(pl->s, key);
	int err;

	if (!p)
		return bad(pl, -EINVAL, key);
	err = trace_parse_u64(&p, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	if (!err && *v > max)
		err = -ERANGE;
	return err ? bad(pl, err, key) : 0;
}

static int field_s64(struct payload *pl, const char *key, int64_t min, int64_t max, int64_t *v)
{
	const char *p = field(pl->s, key);
	int err;

	if (!p)
		return bad(pl, -EINVAL, key);
	err = parse_s64(&p, min, max, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	return err ? bad(pl, err, key) : 0;
}

static int field_hex(struct payload *pl, const char *key, uint64_t *v)
{
	const char *p = field(pl->s, key);
	int err;

	if (!p)
		return bad(pl, -EINVAL, key);
	err = parse_hex(&p, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	return err ? bad(pl, err, key) : 0;
}

/* does "key=" hold exactly @word? */
static bool field_is(const char *s, const char *key, const char *word)
{
	const char *p = field(s, key);
	size_t n = strlen(word);

	return p && !strncmp(p, word, n) && tok_end(p[n]);
}

static int parse_idle(struct payload *pl, struct trace_event *ev)
{
	uint64_t state, cpu;
	int err;

	err = field_u64(pl, "state=", UINT64_MAX, &state);
	if (!err)
		err = field_u64(pl, "cpu_id=", TRACE_MAX_CPUS - 1, &cpu);
	if (err)
		return err;
	ev->cpu = (unsigned int)cpu;
	if (state == IDLE_EXIT_STATE || state == UINT64_MAX) {
		ev->type = TEV_IDLE_EXIT;
		return 1;
	}
	if (state >= TRACE_MAX_STATES)
		return bad(pl, -ERANGE, "state=");
	ev->type = TEV_IDLE_ENTER;
	ev->state = (int)state;
	return 1;
}

static int parse_idle_miss(struct payload *pl, struct trace_event *ev)
{
	uint64_t state, cpu;
	int err;

	err = field_u64(pl, "state=", TRACE_MAX_STATES - 1, &state);
	if (!err)
		err = field_u64(pl, "cpu_id=", TRACE_MAX_CPUS - 1, &cpu);
	if (err)
		return err;
	if (field_is(pl->s, "type=", "below"))
		ev->below = true;
	else if (!field_is(pl->s, "type=", "above"))
		return bad(pl, -EINVAL, "type=");
	ev->type = TEV_IDLE_MISS;
	ev->cpu = (unsigned int)cpu;
	ev->state = (int)state;
	return 1;
}

/* "halt_poll_ns 50000 (grow 0)": the new window, the way, the old window */
static int parse_halt_poll(struct payload *pl, struct trace_event *ev)
{
	static const char head[] = "halt_poll_ns ";
	const char *p = pl->s;
	uint64_t value, old;
	int err;

	if (strncmp(p, head, sizeof(head) - 1))
		return bad(pl, -EINVAL, "halt_poll_ns");
	p += sizeof(head) - 1;
	err = trace_parse_u64(&p, &value);
	if (err)
		return bad(pl, err, "halt_poll_ns");
	if (!strncmp(p, " (grow ", 7)) {
		ev->grow = true;
		p += 7;
	} else if (!strncmp(p, " (shrink ", 9)) {
		p += 9;
	} else {
		return bad(pl, -EINVAL, "(grow|shrink N)");
	}
	err = trace_parse_u64(&p, &old);
	if (!err && (p[0] != ')' || !tok_end(p[1])))
		err = -EINVAL;
	if (!err && (value > INT64_MAX || old > INT64_MAX))
		err = -ERANGE;
	if (err)
		return bad(pl, err, "(grow|shrink N)");
	ev->type = TEV_HALT_POLL_NS;
	ev->value = (int64_t)value;
	ev->old = (int64_t)old;
	return 1;
}

/*
 * "CPU_DMA_LATENCY value=0" (Linux 5.7 on); before, "pm_qos_class=NAME
 * value=V" for every class.  Only the CPU latency class is kept.
 */
static int parse_qos(struct payload *pl, struct trace_event *ev, enum trace_ev_type type)
{
	static const char cls[] = "CPU_DMA_LATENCY";
	const char *p = pl->s;
	int64_t value;
	int err;

	if (!strncmp(p, "pm_qos_class=", 13))
		p += 13;
	if (tok_end(*p))
		return bad(pl, -EINVAL, "the class");
	err = field_s64(pl, "value=", INT32_MIN, INT32_MAX, &value);
	if (err)
		return err;
	if (strncmp(p, cls, sizeof(cls) - 1) || !tok_end(p[sizeof(cls) - 1]))
		return 0;	/* another class: not for the lab */
	ev->type = type;
	ev->qos_class = 0;
	ev->value = value;
	return 1;
}

static bool tick_function(const char *s)
{
	return field_is(s, "function=", "tick_nohz_handler") ||
	       field_is(s, "function=", "tick_sched_timer");
}

static int parse_hrtimer(struct payload *pl, struct trace_event *ev, enum trace_ev_type type)
{
	uint64_t v;
	int err;

	err = field_hex(pl, "hrtimer=", &ev->timer);
	if (err)
		return err;
	ev->type = type;
	if (type == TEV_HRTIMER_CANCEL)
		return 1;
	if (!field(pl->s, "function="))
		return bad(pl, -EINVAL, "function=");
	ev->tick = tick_function(pl->s);
	if (type == TEV_HRTIMER_START) {
		err = field_u64(pl, "expires=", INT64_MAX, &v);
		ev->expires_ns = (int64_t)v;
	} else {
		err = field_u64(pl, "now=", INT64_MAX, &v);
		ev->now_ns = (int64_t)v;
	}
	return err ? err : 1;
}

static int parse_tick_stop(struct payload *pl, struct trace_event *ev)
{
	int64_t v;
	int err;

	err = field_s64(pl, "success=", INT32_MIN, INT32_MAX, &v);
	if (err)
		return err;
	ev->type = TEV_TICK_STOP;
	ev->success = v != 0;
	return 1;
}

/* "irq=36 name=virtio1-req.0": the name is the rest of the line */
static int parse_irq(struct payload *pl, struct trace_event *ev)
{
	const char *name;
	int64_t irq;
	size_t n;
	int err;

	err = field_s64(pl, "irq=", 0, INT_MAX, &irq);
	if (err)
		return err;
	name = field(pl->s, "name=");
	if (!name)
		return bad(pl, -EINVAL, "name=");
	n = strlen(name);
	while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
		n--;
	if (n >= sizeof(ev->name))
		n = sizeof(ev->name) - 1;	/* names are for display */
	memcpy(ev->name, name, n);
	ev->name[n] = '\0';
	ev->type = TEV_IRQ;
	ev->irq = (int)irq;
	return 1;
}

/* "comm=... pid=N prio=N target_cpu=001": the last target_cpu= is ours */
static int parse_wakeup(struct payload *pl, struct trace_event *ev)
{
	static const char key[] = "target_cpu=";
	const char *p, *last = NULL;
	uint64_t cpu;
	int err;

	for (p = strstr(pl->s, key); p; p = strstr(p + 1, key)) {
		if (p == pl->s || p[-1] == ' ' || p[-1] == '\t')
			last = p;
	}
	if (!last)
		return bad(pl, -EINVAL, key);
	p = last + sizeof(key) - 1;
	err = trace_parse_u64(&p, &cpu);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	if (!err && cpu >= TRACE_MAX_CPUS)
		err = -ERANGE;
	if (err)
		return bad(pl, err, key);
	ev->type = TEV_WAKEUP;
	ev->target_cpu = (int)cpu;
	return 1;
}

/**
 * trace_parse_payload() - fill @ev from the payload of event @id
 * @id: from trace_event_lookup()
 * @h: the line's header
 * @ev: cleared, with ts_ns, cpu and line set; cpu may be replaced
 * @why: on error, what is wrong
 * @whylen: size of @why
 *
 * Return: 1 with @ev filled; 0 if this instance is not for the lab (a QoS
 * class other than CPU latency); -EINVAL or -ERANGE with @why set.
 */
int trace_parse_payload(int id, const struct trace_head *h, struct trace_event *ev,
			char *why, size_t whylen)
{
	struct payload pl = {
		.s = h->payload,
		.event = h->event,
		.event_len = (int)h->event_len,
		.why = why,
		.whylen = whylen,
	};

	switch (id) {
	case EV_CPU_IDLE:
		return parse_idle(&pl, ev);
	case EV_CPU_IDLE_MISS:
		return parse_idle_miss(&pl, ev);
	case EV_HALT_POLL_NS:
		return parse_halt_poll(&pl, ev);
	case EV_QOS_ADD:
		return parse_qos(&pl, ev, TEV_QOS_ADD);
	case EV_QOS_UPDATE:
		return parse_qos(&pl, ev, TEV_QOS_UPDATE);
	case EV_QOS_REMOVE:
		return parse_qos(&pl, ev, TEV_QOS_REMOVE);
	case EV_HRTIMER_START:
		return parse_hrtimer(&pl, ev, TEV_HRTIMER_START);
	case EV_HRTIMER_CANCEL:
		return parse_hrtimer(&pl, ev, TEV_HRTIMER_CANCEL);
	case EV_HRTIMER_EXPIRE:
		return parse_hrtimer(&pl, ev, TEV_HRTIMER_EXPIRE);
	case EV_TICK_STOP:
		return parse_tick_stop(&pl, ev);
	case EV_LOCAL_TIMER:
		ev->type = TEV_LOCAL_TIMER;
		return 1;
	case EV_RESCHED:
		ev->type = TEV_RESCHED_IPI;
		return 1;
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		ev->type = TEV_CALL_FUNC_IPI;
		return 1;
	case EV_IRQ:
		return parse_irq(&pl, ev);
	case EV_WAKEUP:
		return parse_wakeup(&pl, ev);
	default:
		snprintf(why, whylen, "internal error: event id %d", id);
		return -EINVAL;
	}
}
