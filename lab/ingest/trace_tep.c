// SPDX-License-Identifier: MIT
/*
 * trace_tep.c - tracepoint records to events, by the formats the file
 * itself stores: a perf sample's raw data (perf.data) or a trace-cmd record
 * (trace.dat).  libtraceevent parses those formats; a field's offset and
 * size are the ones of the kernel that wrote the trace, whatever its
 * version or architecture, read in its byte order.  (perf.data's formats are
 * read by trace_format.c instead: tp_decoder_init_formats().)
 *
 * Each of our events is found once, by group and name, and its fields once,
 * by name; a record is then read at those offsets, with the checks the text
 * readers make on the same values (trace_event.c): the same trace gives the
 * same events, whichever form it comes in.  A format that lacks a field we
 * need, or gives it a size no kernel does, is refused when the reader opens.
 *
 * The tick.  The text readers know the tick's hrtimer by its function's
 * name (tick_nohz_handler, or tick_sched_timer before 6.10); a binary
 * record holds the function's address.  trace.dat files carry the
 * kernel's symbols, and the address is named through them.  perf.data
 * files do not (perf writes an empty kallsyms, and names addresses from
 * the machine that runs perf script), so the tick's function is found from
 * what it does, by a vote (struct tp_tick_vote): the first hrtimer a CPU
 * starts after tick_stop says it stopped its tick is the tick's (the kernel
 * reprograms it there, tick_nohz_stop_tick()), and so is a timer started
 * again at its own expiry (the periodic tick restarts itself); the
 * function with most such votes wins if it has TICK_VOTES_MIN of them and
 * TICK_VOTES_MARGIN times the runner-up's.  On the 53 shared text traces,
 * where names are known, the winner is tick_nohz_handler on every one,
 * 15 to 20,000 times the runner-up (watchdog_timer_fn, hrtimer_wakeup,
 * sched_rt_period_timer: timers that restart themselves too, but seldom).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tep_lib.h"
#include "trace_format.h"
#include "trace_internal.h"


/*
 * The vote for the tick's function: at least this many votes (a trace that
 * stops the tick once and restarts nothing says too little), and this many
 * times the runner-up's.  The shared traces give 100 to 50,000 votes and a
 * margin of 15 or more; a count this low is reached within the first
 * second of any trace whose CPUs go idle.
 */
#define TICK_VOTES_MIN		8
#define TICK_VOTES_MARGIN	4
/* enough to stop looking: the vote cannot turn any more */
#define TICK_VOTES_DONE		256

/* What a field of ours may be */
enum tp_kind {
	TP_UINT,	/* an unsigned number: 4 or 8 bytes */
	TP_INT,		/* a signed number: 4 or 8 bytes */
	TP_BOOL,	/* 1, 2, 4 or 8 bytes, 0 or not */
	TP_S64,		/* a 64-bit count of ns */
	TP_PTR,		/* an address: 4 or 8 bytes */
	TP_STRING,	/* __string() (__data_loc or __rel_loc), or char[N] */
};

struct tp_spec {
	const char *name;
	enum tp_kind kind;
	bool optional;
};

#define TP_MAX_FIELDS	3

/* The fields we read of each event, in the order tp_event.f keeps them */
static const struct tp_spec specs[EV_NR][TP_MAX_FIELDS] = {
	[EV_CPU_IDLE] = { { "state", TP_UINT }, { "cpu_id", TP_UINT } },
	[EV_CPU_IDLE_MISS] = { { "state", TP_UINT }, { "cpu_id", TP_UINT },
			       { "below", TP_BOOL } },
	[EV_HALT_POLL_NS] = { { "new", TP_UINT }, { "old", TP_UINT }, { "grow", TP_BOOL } },
	[EV_QOS_ADD] = { { "value", TP_INT }, { "pm_qos_class", TP_INT, true } },
	[EV_QOS_UPDATE] = { { "value", TP_INT }, { "pm_qos_class", TP_INT, true } },
	[EV_QOS_REMOVE] = { { "value", TP_INT }, { "pm_qos_class", TP_INT, true } },
	[EV_HRTIMER_START] = { { "hrtimer", TP_PTR }, { "function", TP_PTR },
			       { "expires", TP_S64 } },
	[EV_HRTIMER_CANCEL] = { { "hrtimer", TP_PTR } },
	[EV_HRTIMER_EXPIRE] = { { "hrtimer", TP_PTR }, { "function", TP_PTR },
				{ "now", TP_S64 } },
	[EV_TICK_STOP] = { { "success", TP_BOOL } },
	[EV_IRQ] = { { "irq", TP_INT }, { "name", TP_STRING } },
	[EV_WAKEUP] = { { "target_cpu", TP_INT } },
	[EV_IPI_ENTRY] = { { "reason", TP_PTR } },
	[EV_CPU_FREQ] = { { "state", TP_UINT }, { "cpu_id", TP_UINT } },
};

/* PM_QOS_CPU_DMA_LATENCY in the pm_qos_class field of kernels before 5.7 */
#define QOS_CLASS_CPU_LATENCY	1

static int say(char *why, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int say(char *why, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

static bool size_fits(enum tp_kind kind, int size)
{
	switch (kind) {
	case TP_BOOL:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case TP_S64:
		return size == 8;
	case TP_STRING:
		return size > 0;
	default:
		return size == 4 || size == 8;
	}
}

/*
 * A field as a format declares it, whoever read the format: libtraceevent
 * (tp_decoder_init()) or trace_format.c (tp_decoder_init_formats())
 */
struct tp_found {
	bool present;
	bool dynamic;		/* __data_loc or __rel_loc */
	bool relative;		/* __rel_loc */
	bool array;
	long long offset;
	long long size;
};

static int find_field(struct tp_event *te, int i, const struct tp_found *f, const char *what,
		      char *why, size_t whylen)
{
	const struct tp_spec *spec = &specs[te->id][i];
	struct tp_field *tf = &te->f[i];

	if (!f->present) {
		if (spec->optional)
			return 0;
		return say(why, whylen, -EINVAL, "%s: the format of %s has no field '%s'", what,
			   trace_event_name(te->id), spec->name);
	}
	if (spec->kind == TP_STRING && !f->dynamic && !f->array)
		return say(why, whylen, -EINVAL, "%s: %s's field '%s' is not a string", what,
			   trace_event_name(te->id), spec->name);
	if (!size_fits(spec->kind, (int)f->size) || f->size > INT_MAX || f->offset < 0 ||
	    f->offset > UINT16_MAX || (f->dynamic && f->size != 4))
		return say(why, whylen, -EINVAL, "%s: %s's field '%s' is %lld bytes at %lld, "
			   "which no kernel writes", what, trace_event_name(te->id), spec->name,
			   f->size, f->offset);
	tf->present = true;
	tf->offset = (int)f->offset;
	tf->size = (int)f->size;
	tf->is_signed = spec->kind == TP_INT || spec->kind == TP_S64;
	tf->dynamic = f->dynamic;
	tf->relative = f->relative;
	return 0;
}

/* does tp_decode_quick() read @te's records? (fields of the sizes it loads) */
static bool quick_sizes(const struct tp_event *te)
{
	const struct tp_field *f = te->f;

	switch (te->id) {
	case EV_CPU_IDLE:
		return f[0].present && f[0].size == 4 && f[1].present && f[1].size == 4;
	case EV_WAKEUP:
		return f[0].present && f[0].size == 4;
	case EV_HRTIMER_START:
	case EV_HRTIMER_EXPIRE:
		return f[0].present && f[0].size == 8 && f[1].present && f[1].size == 8 &&
		       f[2].present && f[2].size == 8;
	case EV_HRTIMER_CANCEL:
		return f[0].present && f[0].size == 8;
	case EV_IRQ:
		return f[0].present && f[0].size == 4 && f[1].present && f[1].dynamic;
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		return true;
	default:
		return false;
	}
}

/*
 * Our event @id, found in the file's formats under the ID @file_id, with
 * its fields @found (in specs[@id]'s order) and its common_type field
 * @type: checked and taken into @d, in the order and with the messages
 * both ways of reading the formats share.
 */
static int add_event(struct tp_decoder *d, int id, long long file_id,
		     const struct tp_found found[TP_MAX_FIELDS], const struct tp_found *type,
		     const char *what, char *why, size_t whylen)
{
	const char *full = trace_event_name(id);
	struct tp_event *te;
	int i, err;

	if (file_id < 0 || file_id > UINT16_MAX)
		return say(why, whylen, -EINVAL, "%s: %s has id %lld, out of range", what, full,
			   file_id);
	if (d->slot[file_id])
		return 0;	/* the same event twice: the first one is kept */
	te = &d->events[d->nr];
	te->id = id;
	for (i = 0; i < TP_MAX_FIELDS && specs[id][i].name; i++) {
		err = find_field(te, i, &found[i], what, why, whylen);
		if (err)
			return err;
		if (te->f[i].present &&
		    (size_t)te->f[i].offset + (size_t)te->f[i].size > te->min_size)
			te->min_size = (size_t)te->f[i].offset + (size_t)te->f[i].size;
	}
	te->quick = d->native && quick_sizes(te);
	te->bare_type = trace_event_bare_type(id);
	if (!type->present || (type->size != 2 && type->size != 4) || type->offset < 0 ||
	    (d->type_offset >= 0 && (type->offset != d->type_offset ||
				      type->size != d->type_size)))
		return say(why, whylen, -EINVAL, "%s: %s has no common_type field "
			   "where others have it", what, full);
	d->type_offset = (int)type->offset;
	d->type_size = (int)type->size;
	d->slot[file_id] = (uint8_t)++d->nr;
	return 0;
}

static void start_decoder(struct tp_decoder *d, bool native)
{
	d->type_offset = -1;
	d->native = native;
}

static void finish_decoder(struct tp_decoder *d)
{
	int i;

	d->quick_from = d->type_size == 2 && d->native ? (size_t)d->type_offset + 2 : SIZE_MAX;
	for (i = 0; i < d->nr; i++)
		d->events[i].quick_min = d->events[i].quick ? d->events[i].min_size : SIZE_MAX;
}

static struct tp_found tep_found(const struct tep_format_field *f)
{
	if (!f)
		return (struct tp_found){ .present = false };
	return (struct tp_found){
		.present = true,
		.dynamic = f->flags & TEP_FIELD_IS_DYNAMIC,
		.relative = f->flags & TEP_FIELD_IS_RELATIVE,
		.array = f->flags & TEP_FIELD_IS_ARRAY,
		.offset = f->offset,
		.size = f->size,
	};
}

/**
 * tp_decoder_init() - find our events and their fields in @tep's formats
 * @d: the decoder, zeroed by the caller
 * @tep: the file's formats (the decoder does not own it)
 * @what: how messages name the formats ("the tracing data")
 *
 * Events not in the file are not an error (a trace need not hold all of
 * them); one of ours with a field missing or of a wrong size is.
 *
 * Return: 0, or -EINVAL with @why saying which event and field.
 */
int tp_decoder_init(struct tp_decoder *d, struct tep_handle *tep, const char *what, char *why,
		    size_t whylen)
{
	const struct tep_lib *tl = tep_lib(why, whylen);
	struct tp_found found[TP_MAX_FIELDS], type;
	struct tep_event *event;
	char name[64];
	int id, i, err;

	if (!tl)
		return -ELIBACC;
	d->tep = tep;
	start_decoder(d, tl->tep_is_file_bigendian(tep) == tl->tep_is_local_bigendian(tep));
	for (id = 0; id < EV_NR; id++) {
		const char *full = trace_event_name(id), *colon = strchr(full, ':');

		if (id == EV_LOST || !colon)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(colon - full), full);
		event = tl->tep_find_event_by_name(tep, name, colon + 1);
		if (!event)
			continue;
		for (i = 0; i < TP_MAX_FIELDS; i++)
			found[i] = tep_found(specs[id][i].name ?
					     tl->tep_find_field(event, specs[id][i].name) : NULL);
		type = tep_found(tl->tep_find_common_field(event, "common_type"));
		err = add_event(d, id, event->id, found, &type, what, why, whylen);
		if (err)
			return err;
	}
	finish_decoder(d);
	return 0;
}

/**
 * tp_event_wanted() - is the event @system:@name one the decoder reads?
 * @system: its system (NUL-terminated)
 * @name: its name, @len bytes (need not end in NUL)
 * @len: the name's length
 *
 * A reader keeps the formats of these for tp_decoder_init_formats() and
 * may skip the others unread.
 *
 * Return: true if it is.
 */
bool tp_event_wanted(const char *system, const char *name, size_t len)
{
	size_t sys_len = strlen(system);
	int id;

	for (id = 0; id < EV_NR; id++) {
		const char *full = trace_event_name(id);

		if (id != EV_LOST && strlen(full) == sys_len + 1 + len &&
		    !memcmp(full, system, sys_len) && full[sys_len] == ':' &&
		    !memcmp(full + sys_len + 1, name, len))
			return true;
	}
	return false;
}

static bool same_name(const struct event_format *fmt, const char *name)
{
	return strlen(name) == fmt->name_len && !memcmp(fmt->name, name, fmt->name_len);
}

/*
 * The format of @group:@name among @formats (@opened: each one's name and
 * ID, or a name of length 0), as libtraceevent's tep_find_event_by_name()
 * would pick it: the lowest ID, the first given on a tie (it keeps events
 * sorted by ID, a new one after its equals).
 * Return: its index, or -1.
 */
static int format_of(const struct tp_format_text *formats, const struct event_format *opened,
		     size_t nr, const char *group, size_t group_len, const char *name)
{
	int best = -1;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (strlen(formats[i].system) != group_len ||
		    memcmp(formats[i].system, group, group_len) || !same_name(&opened[i], name))
			continue;
		if (best < 0 || opened[i].id < opened[best].id)
			best = (int)i;
	}
	return best;
}

/**
 * tp_decoder_init_formats() - find our events and their fields in the formats
 *	a file stores, read by trace_format.c
 * @d: the decoder, zeroed by the caller
 * @formats: the formats of our events (tp_event_wanted()), each one
 *	event_format_open() accepts
 * @nr: how many
 * @big_endian: the file's numbers are big-endian
 * @what: how messages name the formats ("the tracing data")
 *
 * The same as tp_decoder_init() on a libtraceevent handle given the same
 * formats, events and messages alike (test_tp_formats checks it on every
 * shared file and fuzz seed), without libtraceevent's parse of each format.
 * As with libtraceevent, an event keeps the fields read before a line that
 * is not a field's (libtraceevent keeps such an event, marked failed, with
 * the fields it read): a bad line among the common fields leaves the event
 * none of its own.  The
 * decoder reads no function names and prints no event this way (@d->tep
 * is NULL until the caller sets one).
 *
 * Return: 0, or -EINVAL with @why saying which event and field.
 */
int tp_decoder_init_formats(struct tp_decoder *d, const struct tp_format_text *formats, size_t nr,
			    bool big_endian, const char *what, char *why, size_t whylen)
{
	const bool local_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	struct tp_found found[TP_MAX_FIELDS], type;
	struct event_format fmt, *opened;
	struct event_field f;
	int id, i, at, err = 0;

	start_decoder(d, big_endian == local_big);
	opened = malloc((nr ? nr : 1) * sizeof(*opened));
	if (!opened)
		return say(why, whylen, -ENOMEM, "out of memory");
	for (i = 0; i < (int)nr; i++)
		if (event_format_open(&opened[i], formats[i].text, formats[i].len))
			opened[i].name_len = 0;
	for (id = 0; id < EV_NR; id++) {
		const char *full = trace_event_name(id), *colon = strchr(full, ':');

		if (id == EV_LOST || !colon)
			continue;
		at = format_of(formats, opened, nr, full, (size_t)(colon - full), colon + 1);
		if (at < 0)
			continue;
		memset(found, 0, sizeof(found));
		type = (struct tp_found){ .present = false };
		fmt = opened[at];
		while (event_format_next(&fmt, &f) > 0) {
			struct tp_found *to = NULL;

			if (f.common) {
				if (!type.present && event_field_is(&f, "common_type"))
					to = &type;
			} else {
				for (i = 0; i < TP_MAX_FIELDS && specs[id][i].name; i++)
					if (!found[i].present && event_field_is(&f, specs[id][i].name))
						to = &found[i];
			}
			if (to)
				*to = (struct tp_found){
					.present = true,
					.dynamic = f.dynamic,
					.relative = f.relative,
					.array = f.array,
					.offset = f.offset,
					.size = f.size,
				};
		}
		err = add_event(d, id, fmt.id, found, &type, what, why, whylen);
		if (err)
			break;
	}
	free(opened);
	if (!err)
		finish_decoder(d);
	return err;
}

/**
 * tp_decoder_has() - does the decoder read the event @id of ours?
 * @d: the decoder
 * @id: an EV_* event
 *
 * Return: true if the file's formats have it.
 */
bool tp_decoder_has(const struct tp_decoder *d, int id)
{
	for (int i = 0; i < d->nr; i++)
		if (d->events[i].id == id)
			return true;
	return false;
}

/* a number of 1, 2, 4 or 8 bytes at @p: in place if the file's byte order is ours */
static inline uint64_t rd_number(const struct tp_decoder *d, const unsigned char *p, int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return d->native ? v2 : __builtin_bswap16(v2);
	case 4:
		memcpy(&v4, p, 4);
		return d->native ? v4 : __builtin_bswap32(v4);
	default:
		memcpy(&v8, p, 8);
		return d->native ? v8 : __builtin_bswap64(v8);
	}
}

static inline uint64_t rd(const struct tp_decoder *d, const unsigned char *raw,
			  const struct tp_field *f)
{
	uint64_t v = rd_number(d, raw + f->offset, f->size);

	if (f->is_signed && f->size == 4)
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	return v;
}

/* the string field @f of a record of @size bytes into @out (cut to fit) */
static int rd_string(const unsigned char *raw, size_t size, const struct tp_field *f,
		     const struct tp_decoder *d, char *out, size_t outlen)
{
	uint32_t loc = f->dynamic ? (uint32_t)rd_number(d, raw + f->offset, 4) : 0;

	return tp_string(raw, size, f, loc, out, outlen);
}

/* is the hrtimer function at @fn the tick's, as far as the file tells? */
static bool tick_function(struct tp_decoder *d, uint64_t fn, bool *unknown)
{
	const struct tep_lib *tl;
	const char *name;
	unsigned int i;

	*unknown = false;
	if (d->tick_fn_known)
		return fn == d->tick_fn;
	for (i = 0; i < d->nr_named; i++)
		if (d->named[i].addr == fn)
			return d->named[i].tick;
	/* (loaded: whoever made d->tep loaded it) */
	tl = d->tep ? tep_lib(NULL, 0) : NULL;
	name = tl ? tl->tep_find_function(d->tep, fn) : NULL;
	if (!name || tl->tep_find_function_address(d->tep, fn) != fn) {
		*unknown = true;
		return false;
	}
	if (d->nr_named == TP_NAMED_MAX)
		d->nr_named = 0;	/* a cache: start again */
	d->named[d->nr_named].addr = fn;
	d->named[d->nr_named].tick = !strcmp(name, "tick_nohz_handler") ||
				     !strcmp(name, "tick_sched_timer");
	return d->named[d->nr_named++].tick;
}

/* the printk string at @addr (tp_decoder_strings()), or NULL */
static int cmp_string(const void *a, const void *b);

static const char *string_at(const struct tp_decoder *d, uint64_t addr)
{
	const struct tp_string key = { .addr = addr }, *found;

	found = d->nr_strings ? bsearch(&key, d->strings, d->nr_strings, sizeof(*d->strings),
					cmp_string) : NULL;
	return found ? found->text : NULL;
}

/*
 * An IPI's reason: a pointer to a string the file's printk strings name.
 * With the strings given (tp_decoder_strings(): perf.data), it is looked
 * up there; else (trace.dat) libtraceevent prints the event, "(reason)".
 */
static int ipi_reason(struct tp_decoder *d, const unsigned char *raw, size_t size,
		      const struct tp_event *te, unsigned int cpu, struct trace_event *ev)
{
	struct tep_record rec = {
		.data = (void *)raw,
		.size = (int)size,
		.cpu = (int)cpu,
	};
	const struct tep_lib *tl;
	struct trace_seq s;
	const char *p;
	size_t n;
	int type;

	tl = d->strings || !d->tep ? NULL : tep_lib(NULL, 0);
	if (!tl) {
		p = d->strings ? string_at(d, rd(d, raw, &te->f[0])) : NULL;
		type = p ? trace_ipi_type(p, strlen(p)) : -1;
	} else {
		tl->trace_seq_init(&s);
		tl->tep_print_event(d->tep, &s, &rec, "%s", TEP_PRINT_INFO);
		tl->trace_seq_terminate(&s);
		p = s.buffer ? s.buffer : "";
		n = strlen(p);
		while (n && p[n - 1] == ' ')
			n--;
		type = n >= 2 && p[0] == '(' && p[n - 1] == ')' ? trace_ipi_type(p + 1, n - 2) : -1;
		tl->trace_seq_destroy(&s);
	}
	if (type < 0)
		return 0;
	ev->type = (enum trace_ev_type)type;
	return 1;
}

static int cmp_string(const void *a, const void *b)
{
	const struct tp_string *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/**
 * tp_decoder_strings() - the printk strings an event's pointer may name
 * @text: lines "0xADDR : \"TEXT\"" (the kernel's printk_formats), NUL-ended;
 *	other lines are skipped
 *
 * Return: 0, or -ENOMEM.
 */
int tp_decoder_strings(struct tp_decoder *d, const char *text)
{
	const char *l, *nl, *colon;
	unsigned long long addr;
	size_t n = 0, len;
	char *end;

	for (l = text; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		n++;
		if (!nl)
			break;
	}
	d->strings = calloc(n + 1, sizeof(*d->strings));
	if (!d->strings)
		return -ENOMEM;
	for (l = text; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		len = nl ? (size_t)(nl - l) : strlen(l);
		addr = strtoull(l, &end, 16);
		colon = end;
		if (end != l && len - (size_t)(colon - l) >= 5 && !memcmp(colon, " : \"", 4) &&
		    l[len - 1] == '"') {
			struct tp_string *st = &d->strings[d->nr_strings];

			st->addr = addr;
			st->text = strndup(colon + 4, len - (size_t)(colon + 4 - l) - 1);
			if (!st->text)
				return -ENOMEM;
			d->nr_strings++;
		}
		if (!nl)
			break;
	}
	qsort(d->strings, d->nr_strings, sizeof(*d->strings), cmp_string);
	return 0;
}

/** tp_decoder_free() - what the decoder allocated (not @tep) */
void tp_decoder_free(struct tp_decoder *d)
{
	for (size_t i = 0; i < d->nr_strings; i++)
		free(d->strings[i].text);
	free(d->strings);
	d->strings = NULL;
	d->nr_strings = 0;
}

/* the event of ours a record holds (by its common_type), or NULL */
static const struct tp_event *event_of(const struct tp_decoder *d, const unsigned char *raw,
				       size_t size)
{
	uint64_t type;

	if (d->type_offset < 0 || size < (size_t)d->type_offset + (size_t)d->type_size)
		return NULL;
	type = rd_number(d, raw + d->type_offset, d->type_size);
	if (type > UINT16_MAX || !d->slot[type])
		return NULL;
	return &d->events[d->slot[type] - 1];
}

#define BAD(field, v)	say(why, whylen, -ERANGE, "%s: out of range: %s=%lld", \
			    trace_event_name(te->id), field, (long long)(v))

/**
 * tp_decode() - the event a record holds, if it is one of ours
 * @d: the decoder
 * @raw: the record's data, from its common fields on
 * @size: its length
 * @ev: cleared, with ts_ns, cpu, line and pid set (pid is kept for the QoS
 *	events only, as the text readers do); cpu may be replaced
 * @fn_addr: set when an hrtimer event's function could not be named
 *
 * Return: 1 with @ev filled; 0 if the record is none of ours (or a QoS
 * class other than CPU latency, an IPI reason not for the lab); -EINVAL
 * (a record too short for its fields) or -ERANGE with @why set.
 */
int tp_decode(struct tp_decoder *d, const unsigned char *raw, size_t size,
	      struct trace_event *ev, bool *fn_addr, char *why, size_t whylen)
{
	const struct tp_event *te;
	uint64_t v, w;
	bool unknown;
	int i, pid = ev->pid;

	*fn_addr = false;
	te = event_of(d, raw, size);
	if (!te)
		return 0;
	if (size < te->min_size) {
		for (i = 0; i < TP_MAX_FIELDS; i++)
			if (te->f[i].present &&
			    (size_t)te->f[i].offset + (size_t)te->f[i].size > size)
				break;
		return say(why, whylen, -EINVAL, "%s: the record is %zu bytes, too short for "
			   "its field '%s'", trace_event_name(te->id), size,
			   i < TP_MAX_FIELDS ? specs[te->id][i].name : "?");
	}
	ev->pid = -1;
	switch (te->id) {
	case EV_CPU_IDLE:
		v = rd(d, raw, &te->f[0]);
		w = rd(d, raw, &te->f[1]);
		if (w >= TRACE_MAX_CPUS)
			return BAD("cpu_id", w);
		ev->cpu = (unsigned int)w;
		if (v == TP_IDLE_EXIT_STATE || v == UINT64_MAX) {
			ev->type = TEV_IDLE_EXIT;
			return 1;
		}
		if (v >= TRACE_MAX_STATES)
			return BAD("state", v);
		ev->type = TEV_IDLE_ENTER;
		ev->state = (int)v;
		return 1;
	case EV_CPU_IDLE_MISS:
		v = rd(d, raw, &te->f[0]);
		w = rd(d, raw, &te->f[1]);
		if (v >= TRACE_MAX_STATES)
			return BAD("state", v);
		if (w >= TRACE_MAX_CPUS)
			return BAD("cpu_id", w);
		ev->type = TEV_IDLE_MISS;
		ev->state = (int)v;
		ev->cpu = (unsigned int)w;
		ev->below = rd(d, raw, &te->f[2]) != 0;
		return 1;
	case EV_HALT_POLL_NS:
		v = rd(d, raw, &te->f[0]);
		w = rd(d, raw, &te->f[1]);
		if (v > INT64_MAX)
			return BAD("new", v);
		if (w > INT64_MAX)
			return BAD("old", w);
		ev->type = TEV_HALT_POLL_NS;
		ev->value = (int64_t)v;
		ev->old = (int64_t)w;
		ev->grow = rd(d, raw, &te->f[2]) != 0;
		return 1;
	case EV_QOS_ADD:
	case EV_QOS_UPDATE:
	case EV_QOS_REMOVE:
		v = rd(d, raw, &te->f[0]);
		if ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)
			return BAD("value", (int64_t)v);
		if (te->f[1].present && rd(d, raw, &te->f[1]) != QOS_CLASS_CPU_LATENCY)
			return 0;	/* another class: not for the lab */
		ev->type = te->id == EV_QOS_ADD ? TEV_QOS_ADD :
			   te->id == EV_QOS_UPDATE ? TEV_QOS_UPDATE : TEV_QOS_REMOVE;
		ev->qos_class = 0;
		ev->value = (int64_t)v;
		ev->pid = pid;
		return 1;
	case EV_HRTIMER_START:
	case EV_HRTIMER_EXPIRE:
		ev->timer = rd(d, raw, &te->f[0]);
		v = rd(d, raw, &te->f[1]);
		ev->function = v;
		ev->tick = tick_function(d, v, &unknown);
		*fn_addr = unknown;
		w = rd(d, raw, &te->f[2]);
		if ((int64_t)w < 0)
			return BAD(te->id == EV_HRTIMER_START ? "expires" : "now", (int64_t)w);
		if (te->id == EV_HRTIMER_START) {
			ev->type = TEV_HRTIMER_START;
			ev->expires_ns = (int64_t)w;
		} else {
			ev->type = TEV_HRTIMER_EXPIRE;
			ev->now_ns = (int64_t)w;
		}
		return 1;
	case EV_HRTIMER_CANCEL:
		ev->type = TEV_HRTIMER_CANCEL;
		ev->timer = rd(d, raw, &te->f[0]);
		return 1;
	case EV_TICK_STOP:
		ev->type = TEV_TICK_STOP;
		ev->success = rd(d, raw, &te->f[0]) != 0;
		return 1;
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		ev->type = (enum trace_ev_type)trace_event_bare_type(te->id);
		return 1;
	case EV_IRQ:
		v = rd(d, raw, &te->f[0]);
		if ((int64_t)v < 0 || (int64_t)v > INT_MAX)
			return BAD("irq", (int64_t)v);
		if (rd_string(raw, size, &te->f[1], d, ev->name, sizeof(ev->name)))
			return say(why, whylen, -EINVAL, "%s: the name lies outside the record",
				   trace_event_name(te->id));
		ev->irq = (int)v;
		ev->type = trace_irq_is_timer(ev->name) ? TEV_LOCAL_TIMER : TEV_IRQ;
		return 1;
	case EV_WAKEUP:
		v = rd(d, raw, &te->f[0]);
		if ((int64_t)v < 0 || v >= TRACE_MAX_CPUS)
			return BAD("target_cpu", (int64_t)v);
		ev->type = TEV_WAKEUP;
		ev->target_cpu = (int)v;
		return 1;
	case EV_IPI_ENTRY:
		return ipi_reason(d, raw, size, te, ev->cpu, ev);
	case EV_CPU_FREQ:
		v = rd(d, raw, &te->f[0]);
		w = rd(d, raw, &te->f[1]);
		if (v > UINT32_MAX)
			return BAD("state", v);
		if (w >= TRACE_MAX_CPUS)
			return BAD("cpu_id", w);
		ev->type = TEV_CPU_FREQ;
		ev->cpu = (unsigned int)w;
		ev->value = (int64_t)v;
		return 1;
	default:
		return say(why, whylen, -EINVAL, "internal error: event id %d", te->id);
	}
}

/**
 * tp_decoder_event_id() - our id of the event a record holds, or -1
 */
int tp_decoder_event_id(const struct tp_decoder *d, const unsigned char *raw, size_t size)
{
	const struct tp_event *te = event_of(d, raw, size);

	return te ? te->id : -1;
}

/* ---- the tick's function, by vote ---- */

static void vote(struct tp_tick_vote *v, uint64_t fn)
{
	unsigned int i, low = 0;

	for (i = 0; i < TP_TICK_CANDIDATES; i++) {
		if (v->n[i] && v->fn[i] == fn) {
			v->n[i]++;
			return;
		}
		if (v->n[i] < v->n[low])
			low = i;
	}
	/* a new function takes the weakest place (a space-saving count) */
	v->fn[low] = fn;
	v->n[low]++;
}

/**
 * tp_tick_vote_feed() - one decoded event, in time order
 * @v: the vote, zeroed, with @nr_cpus entries in its per-CPU array
 * @ev: the event (an hrtimer start or expiry carries its function)
 */
void tp_tick_vote_feed(struct tp_tick_vote *v, const struct trace_event *ev)
{
	uint64_t function = ev->function;

	struct tp_tick_cpu *c;

	if (ev->cpu >= v->nr_cpus)
		return;
	c = &v->cpu[ev->cpu];
	switch (ev->type) {
	case TEV_TICK_STOP:
		if (ev->success)
			c->stopped = true;
		break;
	case TEV_HRTIMER_START:
		if (c->stopped)
			vote(v, function);
		if (c->expired && c->timer == ev->timer && c->function == function)
			vote(v, function);
		c->stopped = false;
		c->expired = false;
		break;
	case TEV_HRTIMER_EXPIRE:
		c->expired = true;
		c->timer = ev->timer;
		c->function = function;
		break;
	case TEV_HRTIMER_CANCEL:
		c->expired = false;
		break;
	default:
		break;
	}
}

/**
 * tp_tick_vote_result() - the tick's function, if the vote is clear
 * @done: set when it cannot change any more (no need to look further)
 *
 * Return: true with @fn set, or false.
 */
bool tp_tick_vote_result(const struct tp_tick_vote *v, uint64_t *fn, bool *done)
{
	unsigned int i, best = 0, second = 0;

	for (i = 1; i < TP_TICK_CANDIDATES; i++)
		if (v->n[i] > v->n[best])
			best = i;
	for (i = 0; i < TP_TICK_CANDIDATES; i++)
		if (i != best && v->n[i] > second)
			second = v->n[i];
	*done = false;
	if (v->n[best] < TICK_VOTES_MIN || v->n[best] < TICK_VOTES_MARGIN * second)
		return false;
	*fn = v->fn[best];
	*done = v->n[best] >= TICK_VOTES_DONE && v->n[best] >= 2 * TICK_VOTES_MARGIN * second;
	return true;
}
