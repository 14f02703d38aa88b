// SPDX-License-Identifier: MIT
/*
 * test_trace_tep.c - the binary readers' decoder (lab/ingest/trace_tep.c): events
 * read from raw tracepoint records by formats libtraceevent parsed, with
 * the text readers' checks; an IPI's reason by the file's printk strings
 * (the one way perf.data names it: no arm64 recording is at hand, so the
 * records here are made from the kernel's formats); and the vote that
 * finds the tick's hrtimer function where a file names no function.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <traceevent/event-parse.h>

#include "trace_internal.h"

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* arm64's ipi:ipi_entry, as its kernel writes the format (v6.x) */
static const char ipi_format[] =
	"name: ipi_entry\nID: 300\nformat:\n" COMMON_FIELDS
	"\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%s)\", REC->reason\n";

static const char idle_format[] =
	"name: cpu_idle\nID: 301\nformat:\n" COMMON_FIELDS
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
	"(unsigned long)REC->cpu_id\n";

/* power:cpu_frequency, as the kernel writes its format (v6.x) */
static const char freq_format[] =
	"name: cpu_frequency\nID: 303\nformat:\n" COMMON_FIELDS
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
	"(unsigned long)REC->cpu_id\n";

/* what /sys/kernel/tracing/printk_formats gives for arm64's IPI reasons */
static const char printk_strings[] =
	"0xffff800081e2a0d8 : \"Rescheduling interrupts\"\n"
	"0xffff800081e2a0f0 : \"Function call interrupts\"\n"
	"0xffff800081e2a110 : \"CPU stop interrupts\"\n"
	"not a line of the file\n";

struct fixture {
	struct tep_handle *tep;
	struct tp_decoder dec;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char why[300];

	assert_non_null(f);
	f->tep = tep_alloc();
	assert_non_null(f->tep);
	tep_set_long_size(f->tep, 8);
	tep_set_file_bigendian(f->tep, TEP_LITTLE_ENDIAN);
	assert_int_equal(tep_parse_event(f->tep, ipi_format, strlen(ipi_format), "ipi"), 0);
	assert_int_equal(tep_parse_event(f->tep, idle_format, strlen(idle_format), "power"), 0);
	assert_int_equal(tep_parse_event(f->tep, freq_format, strlen(freq_format), "power"), 0);
	assert_int_equal(tp_decoder_init(&f->dec, f->tep, "test", why, sizeof(why)), 0);
	assert_int_equal(f->dec.nr, 3);
	assert_int_equal(tp_decoder_strings(&f->dec, printk_strings), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tp_decoder_free(&f->dec);
	tep_free(f->tep);
	free(f);
	return 0;
}

/* a record of event @id with @n bytes of payload after the common fields */
static size_t record(unsigned char *buf, uint16_t id, const void *payload, size_t n)
{
	int32_t pid = 42;

	memset(buf, 0, 8);
	memcpy(buf, &id, 2);
	memcpy(buf + 4, &pid, 4);
	memcpy(buf + 8, payload, n);
	return 8 + n;
}

static int decode(struct fixture *f, const unsigned char *raw, size_t n, struct trace_event *ev)
{
	static const struct trace_event none = { .pid = -1 };
	char why[200];
	bool fn_addr;

	*ev = none;
	ev->cpu = 3;
	return tp_decode(&f->dec, raw, n, ev, &fn_addr, why, sizeof(why));
}

static void test_ipi_reason_from_printk_strings(void **state)
{
	struct fixture *f = *state;
	unsigned char raw[64];
	struct trace_event ev;
	uint64_t at;
	size_t n;

	at = 0xffff800081e2a0d8ULL;
	n = record(raw, 300, &at, 8);
	assert_int_equal(decode(f, raw, n, &ev), 1);
	assert_int_equal(ev.type, TEV_RESCHED_IPI);
	assert_int_equal(ev.cpu, 3);

	at = 0xffff800081e2a0f0ULL;
	n = record(raw, 300, &at, 8);
	assert_int_equal(decode(f, raw, n, &ev), 1);
	assert_int_equal(ev.type, TEV_CALL_FUNC_IPI);

	/* a reason not for the lab, and an address no string has: skipped */
	at = 0xffff800081e2a110ULL;
	n = record(raw, 300, &at, 8);
	assert_int_equal(decode(f, raw, n, &ev), 0);
	at = 0xffff800081e2a0d9ULL;
	n = record(raw, 300, &at, 8);
	assert_int_equal(decode(f, raw, n, &ev), 0);
}

static void test_cpu_idle_checks(void **state)
{
	struct fixture *f = *state;
	unsigned char raw[64];
	struct trace_event ev;
	uint32_t v[2];
	size_t n;

	v[0] = 2;
	v[1] = 1;
	n = record(raw, 301, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), 1);
	assert_int_equal(ev.type, TEV_IDLE_ENTER);
	assert_int_equal(ev.state, 2);
	assert_int_equal(ev.cpu, 1);	/* cpu_id, not the record's CPU */

	v[0] = 4294967295u;
	n = record(raw, 301, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), 1);
	assert_int_equal(ev.type, TEV_IDLE_EXIT);

	/* the text readers refuse the same values */
	v[0] = TRACE_MAX_STATES;
	n = record(raw, 301, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), -ERANGE);
	v[0] = 1;
	v[1] = TRACE_MAX_CPUS;
	n = record(raw, 301, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), -ERANGE);

	/* a record too short for its fields, and one of no event of ours */
	n = record(raw, 301, v, 4);
	assert_int_equal(decode(f, raw, n, &ev), -EINVAL);
	n = record(raw, 999, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), 0);
	assert_int_equal(decode(f, raw, 1, &ev), 0);
}

/* a frequency is of the CPU its cpu_id names, in kHz; out of range refused */
static void test_cpu_frequency(void **state)
{
	struct fixture *f = *state;
	unsigned char raw[64];
	struct trace_event ev;
	uint32_t v[2];
	size_t n;

	v[0] = 1800000;
	v[1] = 5;
	n = record(raw, 303, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), 1);
	assert_int_equal(ev.type, TEV_CPU_FREQ);
	assert_int_equal(ev.value, 1800000);
	assert_int_equal(ev.cpu, 5);	/* cpu_id, not the record's CPU (3) */
	v[1] = TRACE_MAX_CPUS;
	n = record(raw, 303, v, 8);
	assert_int_equal(decode(f, raw, n, &ev), -ERANGE);
	n = record(raw, 303, v, 6);
	assert_int_equal(decode(f, raw, n, &ev), -EINVAL);
}

static const char wakeup_format[] =
	"name: sched_wakeup\nID: 302\nformat:\n" COMMON_FIELDS
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu\n";

/* the kernel's timer:hrtimer_start, _expire_entry, _cancel and a bare IRQ entry (v6.x) */
static const char hrtimer_start_format[] =
	"name: hrtimer_start\nID: 303\nformat:\n" COMMON_FIELDS
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 expires;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:s64 softexpires;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:enum hrtimer_mode mode;\toffset:40;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"hrtimer=%p function=%ps expires=%llu\", REC->hrtimer, REC->function, "
	"(unsigned long long)REC->expires\n";
static const char hrtimer_expire_format[] =
	"name: hrtimer_expire_entry\nID: 304\nformat:\n" COMMON_FIELDS
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 now;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:void * function;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"hrtimer=%p function=%ps now=%llu\", REC->hrtimer, REC->function, "
	"(unsigned long long)REC->now\n";
static const char hrtimer_cancel_format[] =
	"name: hrtimer_cancel\nID: 305\nformat:\n" COMMON_FIELDS
	"\tfield:void * hrtimer;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"hrtimer=%p\", REC->hrtimer\n";
static const char local_timer_format[] =
	"name: local_timer_entry\nID: 306\nformat:\n" COMMON_FIELDS
	"\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"vector=%d\", REC->vector\n";

static const char irq_format[] =
	"name: irq_handler_entry\nID: 307\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

/* the types tp_quick_makes() promises of a record of @id (an interrupt: either) */
static bool quick_type(int id, enum trace_ev_type t)
{
	switch (id) {
	case EV_WAKEUP:
		return t == TEV_WAKEUP;
	case EV_HRTIMER_START:
		return t == TEV_HRTIMER_START;
	case EV_HRTIMER_EXPIRE:
		return t == TEV_HRTIMER_EXPIRE;
	case EV_HRTIMER_CANCEL:
		return t == TEV_HRTIMER_CANCEL;
	case EV_IRQ:
		return t == TEV_IRQ || t == TEV_LOCAL_TIMER;
	case EV_LOCAL_TIMER:
		return t == TEV_LOCAL_TIMER;
	case EV_RESCHED:
		return t == TEV_RESCHED_IPI;
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		return t == TEV_CALL_FUNC_IPI;
	default:
		return false;
	}
}

/*
 * tp_quick_makes() of @raw (@n bytes), which tp_decode() made @a of (@ra),
 * the tick not asked or asked (@d->tick_unasked): yes exactly where the
 * decoding made an event of the record's type on the sample's CPU (@cpu),
 * an hrtimer event's while the tick's function is known or not asked; no
 * for the records it does not read
 */
static void quick_makes_as_decoded(struct tp_decoder *d, const unsigned char *raw, size_t n,
				   int ra, const struct trace_event *a, unsigned int cpu)
{
	const struct tp_event *te;
	bool makes, timer;
	uint16_t type;

	if (n < d->quick_from)
		return;
	memcpy(&type, raw + d->type_offset, 2);
	if (!d->slot[type] || n < d->events[d->slot[type] - 1].quick_min)
		return;
	te = &d->events[d->slot[type] - 1];
	timer = te->id == EV_HRTIMER_START || te->id == EV_HRTIMER_EXPIRE;
	for (int unasked = 0; unasked < 2; unasked++) {
		d->tick_unasked = unasked;
		makes = tp_quick_makes(d, te, raw, n);
		if (!quick_type(te->id, a->type) && ra == 1)
			assert_false(makes);	/* (cpu_idle: not its to say) */
		else if (timer && !d->tick_fn_known && !unasked)
			assert_false(makes);
		else
			assert_int_equal(makes, ra == 1 && a->cpu == cpu);
	}
	d->tick_unasked = false;
}

/*
 * @raw (@n bytes) decoded by tp_decode() and by tp_decode_quick(): the
 * same; and tp_quick_makes() says yes where it made an event without fail
 */
static void same_decoding(struct tp_decoder *d, const unsigned char *raw, size_t n)
{
	struct trace_event a = { .pid = 7, .cpu = 3 }, b = a;
	char why_a[200] = "", why_b[200] = "";
	bool fa = true, fb = true;
	int ra, rb;

	ra = tp_decode(d, raw, n, &a, &fa, why_a, sizeof(why_a));
	rb = tp_decode_quick(d, raw, n, &b, &fb, why_b, sizeof(why_b));
	assert_int_equal(ra, rb);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(fa, fb);
	assert_string_equal(why_a, why_b);
	quick_makes_as_decoded(d, raw, n, ra, &a, 3);
}

/*
 * tp_decode_quick() reads cpu_idle, sched_wakeup, irq_handler_entry, the
 * hrtimer events and the bare ones itself where all is in range and in our
 * byte order: every value at and around the bounds, names of any length
 * or outside the record, cut records, the tick's function known or not,
 * another event and a big-endian file give what tp_decode() gives
 */
static void test_quick_decode_as_tp_decode(void **state)
{
	static const uint32_t states[] = { 0, 1, 9, 10, 11, 0xfffffffeU, 0xffffffffU };
	static const uint32_t cpus[] = { 0, 1, 4095, 4096, 0x80000000U, 0xffffffffU };
	static const int32_t targets[] = { 0, 1, 4095, 4096, -1, INT32_MIN, INT32_MAX };
	unsigned char raw[64], payload[28];
	struct tep_handle *tep;
	struct tp_decoder *d;
	char why[300];
	size_t i, j, n, cut;
	int big;
	uint32_t v[2];

	(void)state;
	for (big = 0; big < 2; big++) {
		d = calloc(1, sizeof(*d));
		tep = tep_alloc();
		assert_non_null(d);
		assert_non_null(tep);
		tep_set_long_size(tep, 8);
		tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
		assert_int_equal(tep_parse_event(tep, idle_format, strlen(idle_format), "power"), 0);
		assert_int_equal(tep_parse_event(tep, wakeup_format, strlen(wakeup_format), "sched"),
				 0);
		assert_int_equal(tep_parse_event(tep, ipi_format, strlen(ipi_format), "ipi"), 0);
		assert_int_equal(tep_parse_event(tep, hrtimer_start_format,
						 strlen(hrtimer_start_format), "timer"), 0);
		assert_int_equal(tep_parse_event(tep, hrtimer_expire_format,
						 strlen(hrtimer_expire_format), "timer"), 0);
		assert_int_equal(tep_parse_event(tep, hrtimer_cancel_format,
						 strlen(hrtimer_cancel_format), "timer"), 0);
		assert_int_equal(tep_parse_event(tep, local_timer_format,
						 strlen(local_timer_format), "irq_vectors"), 0);
		assert_int_equal(tep_parse_event(tep, irq_format, strlen(irq_format), "irq"), 0);
		assert_int_equal(tp_decoder_init(d, tep, "test", why, sizeof(why)), 0);
		assert_int_equal(d->nr, 8);
		assert_int_equal(tp_decoder_strings(d, printk_strings), 0);
		for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
			for (j = 0; j < sizeof(cpus) / sizeof(cpus[0]); j++) {
				v[0] = states[i];
				v[1] = cpus[j];
				n = record(raw, 301, v, sizeof(v));
				for (cut = 0; cut <= 4; cut++)
					same_decoding(d, raw, n - cut);
			}
		}
		for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
			memset(payload, 'x', sizeof(payload));
			memcpy(payload + 24, &targets[i], 4);
			n = record(raw, 302, payload, sizeof(payload));
			for (cut = 0; cut <= 4; cut++)
				same_decoding(d, raw, n - cut);
		}
		for (i = 0; i < 3 * 2 * 2; i++) {
			/* hrtimer=, function= (the tick's or not), expires/now= (< 0 or not) */
			static const int64_t when[] = { 0, 123456789, -1 };
			uint64_t words[5] = { 0xffff888627c30568ULL,
					      i % 2 ? 0xffffffff813d2860ULL : 0xffffffff81000000ULL,
					      (uint64_t)when[i / 4], 7, 1 };

			d->tick_fn_known = i / 2 % 2;
			d->tick_fn = 0xffffffff813d2860ULL;
			n = record(raw, 303, words, sizeof(words) - 4);
			for (cut = 0; cut <= 4; cut += 4)
				same_decoding(d, raw, n - cut);
			words[1] = (uint64_t)when[i / 4];	/* now= before function= */
			words[2] = i % 2 ? 0xffffffff813d2860ULL : 0xffffffff81000000ULL;
			n = record(raw, 304, words, 24);
			for (cut = 0; cut <= 4; cut += 4)
				same_decoding(d, raw, n - cut);
		}
		for (i = 0; i < 6 * 3; i++) {
			/* irq=, and a name: short, a timer's, 31, 32 and 40 bytes, unended */
			static const char *const names[] = {
				"virtio1-req.0", "arch_timer", "0123456789012345678901234567890",
				"01234567890123456789012345678901",
				"0123456789012345678901234567890123456789", "ab",
			};
			static const int32_t irqs[] = { 36, -1, INT32_MAX };
			unsigned char irq_raw[128];
			size_t len = strlen(names[i % 6]) + (i % 6 != 5);	/* the last: no NUL */
			uint32_t loc = (uint32_t)len << 16 | 16;

			memset(irq_raw, 0, sizeof(irq_raw));
			n = record(irq_raw, 307, &irqs[i / 6], 4);
			memcpy(irq_raw + n, &loc, 4);
			memcpy(irq_raw + n + 4, names[i % 6], len);
			n += 4 + len;
			same_decoding(d, irq_raw, n);
			same_decoding(d, irq_raw, n - 1);	/* the name past the end */
			same_decoding(d, irq_raw, 14);	/* cut in the loc */
		}
		d->tick_fn_known = false;
		n = record(raw, 305, v, 8);
		same_decoding(d, raw, n);
		same_decoding(d, raw, n - 1);
		n = record(raw, 306, v, 4);
		same_decoding(d, raw, n);
		same_decoding(d, raw, 8);
		v[0] = 1;
		n = record(raw, 300, v, 8);	/* another event of ours */
		same_decoding(d, raw, n);
		n = record(raw, 399, v, 8);	/* none of ours */
		same_decoding(d, raw, n);
		same_decoding(d, raw, 1);	/* too short for its type */
		tp_decoder_free(d);
		tep_free(tep);
		free(d);
	}
}

static void test_missing_field_refused(void **state)
{
	static const char bad[] =
		"name: cpu_idle\nID: 302\nformat:\n" COMMON_FIELDS
		"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"\"\n";
	struct tep_handle *tep = tep_alloc();
	struct tp_decoder d;
	char why[300];

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(tep_parse_event(tep, bad, strlen(bad), "power"), 0);
	assert_int_equal(tp_decoder_init(&d, tep, "the formats", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "the formats: the format of power:cpu_idle has no field 'state'"));
	tep_free(tep);
}

/* the tick's function by its deeds: started after tick_stop, restarted at its expiry */
static void test_tick_vote(void **state)
{
	static const struct trace_event none = { .pid = -1 };
	struct tp_tick_cpu cpus[2];
	struct tp_tick_vote v = { .nr_cpus = 2, .cpu = cpus };
	const uint64_t tick = 0xffffffff814432e0ULL, other = 0xffffffff8142daf0ULL;
	struct trace_event ev;
	uint64_t fn = 0;
	bool done;
	int i;

	(void)state;
	memset(cpus, 0, sizeof(cpus));
	assert_false(tp_tick_vote_result(&v, &fn, &done));
	for (i = 0; i < 20; i++) {
		/* CPU 0 stops its tick: its next start is the tick's */
		ev = none;
		ev.cpu = 0;
		ev.type = TEV_TICK_STOP;
		ev.success = true;
		tp_tick_vote_feed(&v, &ev);
		ev.type = TEV_HRTIMER_START;
		ev.timer = 0x1000;
		ev.function = tick;
		tp_tick_vote_feed(&v, &ev);
		/* CPU 1: a sleep's timer expires, and another starts (no vote) */
		ev.cpu = 1;
		ev.type = TEV_HRTIMER_EXPIRE;
		ev.timer = 0x2000 + (uint64_t)i;
		ev.function = other;
		tp_tick_vote_feed(&v, &ev);
		ev.type = TEV_HRTIMER_START;
		ev.timer = 0x3000;
		tp_tick_vote_feed(&v, &ev);
	}
	assert_true(tp_tick_vote_result(&v, &fn, &done));
	assert_true(fn == tick);
	assert_false(done);	/* 20 votes: clear, not yet past changing */

	/* a runner-up with over a quarter of the votes: no verdict */
	for (i = 0; i < 6; i++) {
		ev = none;
		ev.cpu = 1;
		ev.type = TEV_HRTIMER_EXPIRE;
		ev.timer = 0x4000;
		ev.function = other;
		tp_tick_vote_feed(&v, &ev);
		ev.type = TEV_HRTIMER_START;
		tp_tick_vote_feed(&v, &ev);
	}
	assert_false(tp_tick_vote_result(&v, &fn, &done));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ipi_reason_from_printk_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_idle_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_frequency, setup, teardown),
		cmocka_unit_test(test_quick_decode_as_tp_decode),
		cmocka_unit_test(test_missing_field_refused),
		cmocka_unit_test(test_tick_vote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
