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
 *
 * trace-cmd report prints some events through its plugins, not the
 * kernel's format: sched_wakeup as "COMM:PID [PRIO] CPU:NNN" (and
 * "success=N" before CPU: on old kernels), and a function as "name/0xOFF"
 * (hrtimer_*'s function=).  With -R it prints the kernel's fields, but
 * hrtimer_expire_entry's function= as a bare address.  Both are read.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "trace_internal.h"


#define EV(g, n)	{ g, n, sizeof(g) - 1, sizeof(n) - 1 }

static const struct {
	const char *group;
	const char *name;
	unsigned char glen;
	unsigned char len;
} events[EV_NR] = {
	[EV_CPU_IDLE] = EV("power", "cpu_idle"),
	[EV_CPU_IDLE_MISS] = EV("power", "cpu_idle_miss"),
	[EV_HALT_POLL_NS] = EV("power", "guest_halt_poll_ns"),
	[EV_QOS_ADD] = EV("power", "pm_qos_add_request"),
	[EV_QOS_UPDATE] = EV("power", "pm_qos_update_request"),
	[EV_QOS_REMOVE] = EV("power", "pm_qos_remove_request"),
	[EV_HRTIMER_START] = EV("timer", "hrtimer_start"),
	[EV_HRTIMER_CANCEL] = EV("timer", "hrtimer_cancel"),
	[EV_HRTIMER_EXPIRE] = EV("timer", "hrtimer_expire_entry"),
	[EV_TICK_STOP] = EV("timer", "tick_stop"),
	[EV_LOCAL_TIMER] = EV("irq_vectors", "local_timer_entry"),
	[EV_RESCHED] = EV("irq_vectors", "reschedule_entry"),
	[EV_CALL_FUNC] = EV("irq_vectors", "call_function_entry"),
	[EV_CALL_FUNC_SINGLE] = EV("irq_vectors", "call_function_single_entry"),
	[EV_IRQ] = EV("irq", "irq_handler_entry"),
	[EV_WAKEUP] = EV("sched", "sched_wakeup"),
	[EV_LOST] = EV("", "PERF_RECORD_LOST"),
	[EV_IPI_ENTRY] = EV("ipi", "ipi_entry"),
	[EV_CPU_FREQ] = EV("power", "cpu_frequency"),
};

#undef EV

#define IDLE_EXIT_STATE		4294967295ULL	/* PWR_EVENT_EXIT, (u32)-1 */
#define IP_DIGITS		16	/* perf's "%16" PRIx64 of an ip (64-bit) */

static inline bool tok_end(char c)
{
	return c == ' ' || c == '\t' || c == '\0';
}

/* does the 20-digit number at @d exceed UINT64_MAX? */
static bool over_u64(const char *d)
{
	return memcmp(d, "18446744073709551615", 20) > 0;
}

/**
 * trace_parse_u64() - a decimal number at *@p, advancing *@p past it
 * @end: where the text ends (its NUL)
 * Return: 0; -EINVAL if there is no digit; -ERANGE if it exceeds UINT64_MAX.
 *
 * The digits are summed modulo 2^64, with no test of their own: only a
 * number of 20 significant digits (as many as UINT64_MAX) may be out of
 * range, and more always are.
 */
int trace_parse_u64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p, *q, *d;
	uint64_t x;

	if (trace_is_digit(s[0]) && !trace_is_digit(s[1])) {
		*v = (uint64_t)(s[0] - '0');	/* one digit: state=1, cpu_id=0 */
		*p = s + 1;
		return 0;
	}
	q = trace_digits(s, end, &x);
	if (q == s)
		return -EINVAL;
	if (q - s >= 20) {
		for (d = s; *d == '0'; d++)
			;
		if (q - d > 20 || (q - d == 20 && over_u64(d)))
			return -ERANGE;
	}
	*p = q;
	*v = x;
	return 0;
}

/* a signed decimal in [@min, @max] */
static int parse_s64(const char **p, const char *end, int64_t min, int64_t max, int64_t *v)
{
	const char *s = *p;
	bool neg = *s == '-';
	uint64_t x;
	int err;

	if (neg)
		s++;
	err = trace_parse_u64(&s, end, &x);
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
		if (trace_is_digit(*s))
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

/*
 * Our event named @n bytes at @ev, if any.  Names are told apart by their
 * length and, where two share one, a letter; memcmp() has the last word,
 * so a slip here can lose an event but never take one for another.
 */
static int name_id(const char *ev, size_t n)
{
	int id;

	switch (n) {
	case 8:
		id = EV_CPU_IDLE;
		break;
	case 9:
		id = ev[0] == 't' ? EV_TICK_STOP : EV_IPI_ENTRY;
		break;
	case 12:
		id = EV_WAKEUP;
		break;
	case 13:
		id = ev[0] != 'c' ? EV_HRTIMER_START : ev[4] == 'f' ? EV_CPU_FREQ :
		     EV_CPU_IDLE_MISS;
		break;
	case 14:
		id = EV_HRTIMER_CANCEL;
		break;
	case 16:
		id = ev[0] == 'P' ? EV_LOST : EV_RESCHED;
		break;
	case 17:
		id = ev[0] == 'l' ? EV_LOCAL_TIMER : EV_IRQ;
		break;
	case 18:
		id = ev[0] == 'g' ? EV_HALT_POLL_NS : EV_QOS_ADD;
		break;
	case 19:
		id = EV_CALL_FUNC;
		break;
	case 20:
		id = EV_HRTIMER_EXPIRE;
		break;
	case 21:
		id = ev[7] == 'u' ? EV_QOS_UPDATE : EV_QOS_REMOVE;
		break;
	case 26:
		id = EV_CALL_FUNC_SINGLE;
		break;
	default:
		return -1;
	}
	return events[id].len == n && !memcmp(events[id].name, ev, n) ? id : -1;
}

/**
 * trace_event_lookup() - one of our events?
 * @name: "group:name" (perf) or "name" (ftrace), not NUL-terminated
 * @len: its length
 *
 * The group is what precedes the last colon.  A name with two colons is
 * none of ours, whichever colon splits it: no group or name of ours holds
 * one.
 *
 * Return: the event's id for trace_parse_payload(), or -1.
 */
int trace_event_lookup(const char *name, size_t len)
{
	const char *colon = memrchr(name, ':', len);
	size_t glen;
	int id;

	if (!colon)
		return name_id(name, len);
	glen = (size_t)(colon - name);
	id = name_id(colon + 1, len - glen - 1);
	if (id < 0 || events[id].glen != glen || memcmp(events[id].group, name, glen))
		return -1;	/* not ours, or the same name in another group */
	return id;
}

/* is @id perf's lost record? */
bool trace_event_is_lost(int id)
{
	return id == EV_LOST;
}

/* does a line that is no event line still name one of ours ("cpu_idle:")? */
bool trace_names_event(const char *line)
{
	const char *p;
	size_t n;
	int i;

	for (i = 0; i < EV_NR; i++) {
		n = events[i].len;
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
	const char *end;	/* its end, the line's NUL */
	const char *event;	/* the event's name, for messages */
	int event_len;
	char *why;
	size_t whylen;
	bool fn_addr;		/* function= is an address, not a name */
};

static int bad(struct payload *pl, int err, const char *what)
{
	snprintf(pl->why, pl->whylen, "%.*s: %s%s", pl->event_len, pl->event,
		 err == -ERANGE ? "out of range: " : "cannot parse ", what);
	return err;
}

/* the field @key is not in the line at all */
static int missing(struct payload *pl, const char *key)
{
	snprintf(pl->why, pl->whylen, "%.*s: no %s in the line", pl->event_len, pl->event, key);
	return -EINVAL;
}

/* does @s, with @end past it, start with @word? */
static inline bool starts(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - s) >= n && !memcmp(s, word, n);
}

/*
 * The value of "key=" at the start of a token (the payload's start or just
 * after a space or tab), the first one at or after @from, or NULL: the
 * first match of strstr() that starts a token, found by visiting token
 * starts in order.  @from is the payload's start or a byte that ends a
 * token (a space, a tab, the end): see after_first().
 */
static inline const char *field_from(const struct payload *pl, const char *from, const char *key)
{
	const char *p = from, *end = pl->end;

	for (;;) {
		if (*p == key[0] && starts(p, end, key))
			return p + strlen(key);
		if (!trace_is_space(*p)) {
			p = trace_token_end(p, end);
			if (p == end)
				return NULL;
		}
		p++;
	}
}

static inline const char *field(const struct payload *pl, const char *key)
{
	return field_from(pl, pl->s, key);
}

/*
 * Where to look for the next field, given "key=" found at @v with its
 * value read up to @q (a token's end): if it was the payload's first
 * token, no other token starts before @q, so from there; else from the
 * start.  The kernel writes its fields in order, so this saves a walk.
 */
static inline const char *after_first(const struct payload *pl, const char *key,
				      const char *v, const char *q)
{
	return v - strlen(key) == pl->s ? q : pl->s;
}

/* the value at @p of "key=" (NULL if none) as an unsigned number <= @max; @q: its end */
static inline int value_u64(struct payload *pl, const char *key, const char *p, uint64_t max,
			    uint64_t *v, const char **q)
{
	int err;

	*q = p;
	if (!p)
		return missing(pl, key);
	err = trace_parse_u64(&p, pl->end, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	if (!err && *v > max)
		err = -ERANGE;
	*q = p;
	return err ? bad(pl, err, key) : 0;
}

/* "key=N" as an unsigned number <= @max */
static inline int field_u64(struct payload *pl, const char *key, uint64_t max, uint64_t *v)
{
	const char *q;

	return value_u64(pl, key, field(pl, key), max, v, &q);
}

static int field_s64(struct payload *pl, const char *key, int64_t min, int64_t max, int64_t *v)
{
	const char *p = field(pl, key);
	int err;

	if (!p)
		return missing(pl, key);
	err = parse_s64(&p, pl->end, min, max, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	return err ? bad(pl, err, key) : 0;
}

/* the value at @p of "key=" (NULL if none) in hex; @q: its end */
static int value_hex(struct payload *pl, const char *key, const char *p, uint64_t *v,
		     const char **q)
{
	int err;

	*q = p;
	if (!p)
		return missing(pl, key);
	err = parse_hex(&p, v);
	if (!err && !tok_end(*p))
		err = -EINVAL;
	*q = p;
	return err ? bad(pl, err, key) : 0;
}

/* is the value at @v (a field's, or NULL) exactly @word? */
static inline bool value_is(const struct payload *pl, const char *v, const char *word)
{
	return v && starts(v, pl->end, word) && tok_end(v[strlen(word)]);
}

/* one or two digits at @p, then no more: their value, or -1 */
static inline int small_number(const char **p)
{
	const char *s = *p;
	int v;

	if (!trace_is_digit(s[0]))
		return -1;
	v = s[0] - '0';
	if (trace_is_digit(s[1])) {
		if (trace_is_digit(s[2]))
			return -1;
		v = v * 10 + s[1] - '0';
		s++;
	}
	*p = s + 1;
	return v;
}

/*
 * The kernel's own "state=%u cpu_id=%u", the short way: the same values
 * the long way finds, for it would find "state=" at the start and
 * "cpu_id=" right after the number.  Anything else (more digits, other
 * fields, a state out of range) is left to the long way.
 */
static inline bool idle_short(const char *p, const char *end, struct trace_event *ev)
{
	int state, cpu;

	if (end - p < 16 || memcmp(p, "state=", 6))
		return false;
	p += 6;
	if (end - p >= 18 && !memcmp(p, "4294967295 cpu_id=", 18)) {
		state = -1;
		p += 18;
	} else {
		state = small_number(&p);
		if (state < 0 || state >= TRACE_MAX_STATES || end - p < 9 ||
		    memcmp(p, " cpu_id=", 8))
			return false;
		p += 8;
	}
	cpu = small_number(&p);
	if (cpu < 0 || !tok_end(*p))
		return false;
	ev->cpu = (unsigned int)cpu;
	ev->type = state < 0 ? TEV_IDLE_EXIT : TEV_IDLE_ENTER;
	ev->state = state < 0 ? 0 : state;
	return true;
}

static int parse_idle(struct payload *pl, struct trace_event *ev)
{
	const char *p, *q;
	uint64_t state, cpu;
	int err;

	p = field(pl, "state=");
	err = value_u64(pl, "state=", p, UINT64_MAX, &state, &q);
	if (!err) {
		p = field_from(pl, after_first(pl, "state=", p, q), "cpu_id=");
		err = value_u64(pl, "cpu_id=", p, TRACE_MAX_CPUS - 1, &cpu, &q);
	}
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
	const char *type;
	uint64_t state, cpu;
	int err;

	err = field_u64(pl, "state=", TRACE_MAX_STATES - 1, &state);
	if (!err)
		err = field_u64(pl, "cpu_id=", TRACE_MAX_CPUS - 1, &cpu);
	if (err)
		return err;
	type = field(pl, "type=");
	if (value_is(pl, type, "below"))
		ev->below = true;
	else if (!value_is(pl, type, "above"))
		return bad(pl, -EINVAL, "type=");
	ev->type = TEV_IDLE_MISS;
	ev->cpu = (unsigned int)cpu;
	ev->state = (int)state;
	return 1;
}

/*
 * "state=2000000 cpu_id=0": a CPU's new frequency in kHz (the kernel's
 * unsigned int), and the CPU it is of
 */
static int parse_freq(struct payload *pl, struct trace_event *ev)
{
	uint64_t khz, cpu;
	int err;

	err = field_u64(pl, "state=", UINT32_MAX, &khz);
	if (!err)
		err = field_u64(pl, "cpu_id=", TRACE_MAX_CPUS - 1, &cpu);
	if (err)
		return err;
	ev->type = TEV_CPU_FREQ;
	ev->cpu = (unsigned int)cpu;
	ev->value = (int64_t)khz;
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
	err = trace_parse_u64(&p, pl->end, &value);
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
	err = trace_parse_u64(&p, pl->end, &old);
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

/*
 * Is the function= value at @v @name?  "name" as the kernel prints it, or
 * "name/0xOFF" as trace-cmd's plugin does.
 */
static bool function_is(const struct payload *pl, const char *v, const char *name)
{
	size_t n = strlen(name);

	if (!starts(v, pl->end, name))
		return false;
	v += n;
	return tok_end(*v) || (v[0] == '/' && v[1] == '0' && v[2] == 'x');
}

/* is the value at @v a bare address ("0xffffffff814428a0")? */
static bool is_address(const char *v)
{
	uint64_t x;

	return v[0] == '0' && v[1] == 'x' && !parse_hex(&v, &x) && tok_end(*v);
}

static int parse_hrtimer(struct payload *pl, struct trace_event *ev, enum trace_ev_type type)
{
	const char *p, *q, *from;
	uint64_t v = 0;
	int err;

	p = field(pl, "hrtimer=");
	err = value_hex(pl, "hrtimer=", p, &ev->timer, &q);
	if (err)
		return err;
	ev->type = type;
	if (type == TEV_HRTIMER_CANCEL)
		return 1;
	from = after_first(pl, "hrtimer=", p, q);
	p = field_from(pl, from, "function=");
	if (!p)
		return missing(pl, "function=");
	ev->tick = function_is(pl, p, "tick_nohz_handler") || function_is(pl, p, "tick_sched_timer");
	pl->fn_addr = !ev->tick && is_address(p);
	if (type == TEV_HRTIMER_START) {
		p = field_from(pl, from, "expires=");
		err = value_u64(pl, "expires=", p, INT64_MAX, &v, &q);
		ev->expires_ns = (int64_t)v;
	} else {
		p = field_from(pl, from, "now=");
		err = value_u64(pl, "now=", p, INT64_MAX, &v, &q);
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

/*
 * The length of an irq's name at @name, to @end: the rest of the line, but
 * for what perf script -F +ip (+sym, +dso) writes after the payload, from
 * a token of IP_DIGITS hex digits on: " ffffffff813f727c handle_irq ...".
 */
static size_t perf_ip_column(const char *name, const char *end)
{
	const char *p, *q;

	for (p = name; (p = memchr(p, ' ', (size_t)(end - p))); p++) {
		for (q = p + 1; q < end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f'));
		     q++)
			;
		if (q - p - 1 == IP_DIGITS && tok_end(*q))
			return (size_t)(p - name);
	}
	return (size_t)(end - name);
}

/*
 * Per-CPU timer interrupts that architectures without irq_vectors trace as
 * irq_handler_entry, by the name their drivers request them under: the
 * ARM architected timer (arm, arm64), the Cortex-A9 local timer, RISC-V's.
 * They end an idle period as x86's local_timer_entry does: a timer, or the
 * tick, as the hrtimer expiries that follow tell.
 */
static const char *const timer_irq_names[] = {
	"arch_timer", "arch_mem_timer", "twd", "riscv-timer",
};

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
	name = field(pl, "name=");
	if (!name)
		return missing(pl, "name=");
	n = perf_ip_column(name, pl->end);
	while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
		n--;
	if (n >= sizeof(ev->name))
		n = sizeof(ev->name) - 1;	/* names are for display */
	memcpy(ev->name, name, n);
	ev->name[n] = '\0';
	ev->type = trace_irq_is_timer(ev->name) ? TEV_LOCAL_TIMER : TEV_IRQ;
	ev->irq = (int)irq;
	return 1;
}

/* is the interrupt named @name a per-CPU timer's? */
bool trace_irq_is_timer(const char *name)
{
	/* (the first byte first: most names are no timer's, and differ at once) */
	for (size_t i = 0; i < sizeof(timer_irq_names) / sizeof(timer_irq_names[0]); i++)
		if (name[0] == timer_irq_names[i][0] && !strcmp(name, timer_irq_names[i]))
			return true;
	return false;
}

/*
 * "(Rescheduling interrupts)": arm and arm64 trace the reason of each IPI
 * they handle (arch/arm64/kernel/smp.c's ipi_types[]), after the
 * irq_handler_entry of their "IPI" interrupt.  A reason of ours becomes
 * the x86 event it stands for; any other (CPU stop, IRQ work, backtrace)
 * is not for the lab, and the "IPI" interrupt stays the wake-up's cause.
 */
static int parse_ipi(struct payload *pl, struct trace_event *ev)
{
	const char *e = pl->end;
	size_t n;
	int type;

	while (e > pl->s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - pl->s);
	if (!n || pl->s[0] != '(' || e[-1] != ')')
		return bad(pl, -EINVAL, "the reason, \"(...)\"");
	type = trace_ipi_type(pl->s + 1, n - 2);
	if (type < 0)
		return 0;
	ev->type = (enum trace_ev_type)type;
	return 1;
}

/**
 * trace_ipi_type() - the event an IPI's reason stands for
 * @reason: the reason, without the parentheses the format adds
 * @n: its length
 *
 * Return: a TEV_* type, or -1 for a reason that is not for the lab.
 */
int trace_ipi_type(const char *reason, size_t n)
{
	static const struct {
		const char *reason;
		enum trace_ev_type type;
	} reasons[] = {
		{ "Rescheduling interrupts", TEV_RESCHED_IPI },
		{ "Function call interrupts", TEV_CALL_FUNC_IPI },
		{ "Single function call interrupts", TEV_CALL_FUNC_IPI },
		{ "Timer broadcast interrupts", TEV_LOCAL_TIMER },
	};

	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (strlen(reasons[i].reason) == n && !memcmp(reason, reasons[i].reason, n))
			return (int)reasons[i].type;
	return -1;
}

/*
 * The last token of the payload that starts with @key: its value, or NULL.
 * A comm= before it may hold spaces or even the key.
 */
static const char *last_field(const struct payload *pl, const char *key)
{
	const size_t klen = strlen(key);
	const char *s = pl->s, *p;
	size_t i, n = (size_t)(pl->end - s);

	for (i = n >= klen ? n - klen + 1 : 0; i; i--) {
		p = s + i - 1;
		if (*p == key[0] && (p == s || p[-1] == ' ' || p[-1] == '\t') &&
		    !memcmp(p, key, klen))
			return p + klen;
	}
	return NULL;
}

/*
 * "comm=... pid=N prio=N target_cpu=001": the last target_cpu= is ours;
 * trace-cmd's plugin writes "comm:pid [prio] CPU:001", its last CPU: ours.
 */
static int parse_wakeup(struct payload *pl, struct trace_event *ev)
{
	const char *key = "target_cpu=", *p;
	uint64_t cpu;
	int err;

	p = last_field(pl, key);
	if (!p) {
		key = "CPU:";
		p = last_field(pl, key);
	}
	if (!p)
		return missing(pl, "target_cpu=");
	err = trace_parse_u64(&p, pl->end, &cpu);
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

/* perf's " lost N": N, or 0 if it does not say */
static int parse_lost(struct payload *pl, struct trace_event *ev)
{
	const char *p = field(pl, "lost");
	uint64_t v = 0;
	int err;

	if (p) {
		p = trace_skip_spaces(p, pl->end);
		err = trace_parse_u64(&p, pl->end, &v);
		if (!err && v > INT64_MAX)
			err = -ERANGE;
		if (err == -ERANGE)
			return bad(pl, err, "lost");
		if (err)
			v = 0;
	}
	ev->type = TEV_LOST;
	ev->value = (int64_t)v;
	return 1;
}

/* trace_parse_payload(), the long way: out of line, its frame is big */
static __attribute__((noinline)) int parse_payload(int id, const struct trace_head *h,
						   struct trace_event *ev, bool *fn_addr,
						   char *why, size_t whylen)
{
	int ret;
	struct payload pl = {
		.s = h->payload,
		.end = h->end,
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
	case EV_HRTIMER_EXPIRE:
		ret = parse_hrtimer(&pl, ev, id == EV_HRTIMER_START ? TEV_HRTIMER_START :
							       TEV_HRTIMER_EXPIRE);
		*fn_addr = pl.fn_addr;
		return ret;
	case EV_HRTIMER_CANCEL:
		return parse_hrtimer(&pl, ev, TEV_HRTIMER_CANCEL);
	case EV_TICK_STOP:
		return parse_tick_stop(&pl, ev);
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		ev->type = (enum trace_ev_type)trace_event_bare_type(id);
		return 1;
	case EV_IRQ:
		return parse_irq(&pl, ev);
	case EV_WAKEUP:
		return parse_wakeup(&pl, ev);
	case EV_LOST:
		return parse_lost(&pl, ev);
	case EV_IPI_ENTRY:
		return parse_ipi(&pl, ev);
	case EV_CPU_FREQ:
		return parse_freq(&pl, ev);
	default:
		snprintf(why, whylen, "internal error: event id %d", id);
		return -EINVAL;
	}
}

/**
 * trace_parse_payload() - fill @ev from the payload of event @id
 * @id: from trace_event_lookup()
 * @h: the line's header
 * @ev: cleared, with ts_ns, cpu and line set; cpu may be replaced
 * @fn_addr: set for an hrtimer_start or _expire_entry whose function= is
 *	an address, not a name: whether it is the tick's, the caller knows
 * @why: on error, what is wrong
 * @whylen: size of @why
 *
 * Return: 1 with @ev filled; 0 if this instance is not for the lab (a QoS
 * class other than CPU latency); -EINVAL or -ERANGE with @why set.
 */
int trace_parse_payload(int id, const struct trace_head *h, struct trace_event *ev,
			bool *fn_addr, char *why, size_t whylen)
{
	*fn_addr = false;
	if (id == EV_CPU_IDLE && idle_short(h->payload, h->end, ev))
		return 1;
	return parse_payload(id, h, ev, fn_addr, why, whylen);
}

/* "group:name" of event @id, for messages */
const char *trace_event_name(int id)
{
	static const char *const names[EV_NR] = {
		[EV_CPU_IDLE] = "power:cpu_idle",
		[EV_CPU_IDLE_MISS] = "power:cpu_idle_miss",
		[EV_HALT_POLL_NS] = "power:guest_halt_poll_ns",
		[EV_QOS_ADD] = "power:pm_qos_add_request",
		[EV_QOS_UPDATE] = "power:pm_qos_update_request",
		[EV_QOS_REMOVE] = "power:pm_qos_remove_request",
		[EV_HRTIMER_START] = "timer:hrtimer_start",
		[EV_HRTIMER_CANCEL] = "timer:hrtimer_cancel",
		[EV_HRTIMER_EXPIRE] = "timer:hrtimer_expire_entry",
		[EV_TICK_STOP] = "timer:tick_stop",
		[EV_LOCAL_TIMER] = "irq_vectors:local_timer_entry",
		[EV_RESCHED] = "irq_vectors:reschedule_entry",
		[EV_CALL_FUNC] = "irq_vectors:call_function_entry",
		[EV_CALL_FUNC_SINGLE] = "irq_vectors:call_function_single_entry",
		[EV_IRQ] = "irq:irq_handler_entry",
		[EV_WAKEUP] = "sched:sched_wakeup",
		[EV_LOST] = "PERF_RECORD_LOST",
		[EV_IPI_ENTRY] = "ipi:ipi_entry",
		[EV_CPU_FREQ] = "power:cpu_frequency",
	};

	return id >= 0 && id < EV_NR && names[id] ? names[id] : "?";
}

/* the type of event @id if it has nothing to read in it (an interrupt's entry), or -1 */
int trace_event_bare_type(int id)
{
	switch (id) {
	case EV_LOCAL_TIMER:
		return TEV_LOCAL_TIMER;
	case EV_RESCHED:
		return TEV_RESCHED_IPI;
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		return TEV_CALL_FUNC_IPI;
	default:
		return -1;
	}
}
