// SPDX-License-Identifier: MIT
/*
 * test_trace_perf_ipi.c - an IPI's reason in a perf.data file: the pointer
 * ipi:ipi_entry records, named by the printk strings of the file's tracing
 * data (the one way perf.data names it).  No arm64 recording is at hand:
 * the file is made here, in pipe mode (perf record -o -), from the formats
 * the kernel writes, with the records perf writes; the perf.data reader
 * parses the printk strings only where the file records ipi:ipi_entry.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace.h"

#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define IDLE_ID	301
#define IRQ_ID	307
#define IPI_ID	300

static const char idle_format[] =
	"name: cpu_idle\nID: 301\nformat:\n" COMMON_FIELDS
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
	"(unsigned long)REC->cpu_id\n";

static const char irq_format[] =
	"name: irq_handler_entry\nID: 307\nformat:\n" COMMON_FIELDS
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

/* arm64's ipi:ipi_entry, as its kernel writes the format (v6.x) */
static const char ipi_format[] =
	"name: ipi_entry\nID: 300\nformat:\n" COMMON_FIELDS
	"\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%s)\", REC->reason\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

/* what /sys/kernel/tracing/printk_formats gives for arm64's IPI reasons */
static const char printk_strings[] =
	"0xffff800081e2a0d8 : \"Rescheduling interrupts\"\n"
	"0xffff800081e2a0f0 : \"Function call interrupts\"\n";
#define RESCHED_REASON	0xffff800081e2a0d8ull

/* perf's record types and sample fields (perf.data-file-format.txt) */
#define REC_SAMPLE		9
#define REC_HEADER_ATTR		64
#define REC_HEADER_TRACING_DATA	66
#define S_TID	(1u << 1)
#define S_TIME	(1u << 2)
#define S_CPU	(1u << 7)
#define S_RAW	(1u << 10)
#define ATTR_SIZE	64	/* PERF_ATTR_SIZE_VER0 */
#define TYPE_TRACEPOINT	2

struct buf {
	unsigned char b[8192];
	size_t len;
};

static void put(struct buf *w, const void *p, size_t n)
{
	assert_true(w->len + n <= sizeof(w->b));
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void put16(struct buf *w, uint16_t v)
{
	put(w, &v, 2);
}

static void put32(struct buf *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put64(struct buf *w, uint64_t v)
{
	put(w, &v, 8);
}

/* a record's 8-byte header: its type and whole size */
static void rec_header(struct buf *w, uint32_t type, size_t size)
{
	put32(w, type);
	put16(w, 0);
	put16(w, (uint16_t)size);
}

/* the tracing data: the formats of @systems (NULL-ended name, format pairs) and printk strings */
static void tracing_data(struct buf *t, const char *const *systems)
{
	static const char magic[] = "\x17\x08\x44tracing0.6";
	size_t n = 0;

	put(t, magic, sizeof(magic));	/* (the version's NUL) */
	put(t, "\0\x08", 2);		/* little-endian, 8-byte longs */
	put32(t, 4096);
	put(t, "header_page", 12);
	put64(t, strlen(header_page));
	put(t, header_page, strlen(header_page));
	put(t, "header_event", 13);
	put64(t, 0);
	put32(t, 0);			/* ftrace's own events */
	while (systems[2 * n])
		n++;
	put32(t, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put(t, systems[2 * i], strlen(systems[2 * i]) + 1);
		put32(t, 1);
		put64(t, strlen(systems[2 * i + 1]));
		put(t, systems[2 * i + 1], strlen(systems[2 * i + 1]));
	}
	put32(t, 0);			/* kallsyms */
	put32(t, sizeof(printk_strings) - 1);
	put(t, printk_strings, sizeof(printk_strings) - 1);
}

/* a sample on CPU 0 at @ts: the raw record @raw of @len bytes (a multiple of 8, less 4) */
static void sample(struct buf *w, uint64_t ts, const unsigned char *raw, size_t len)
{
	rec_header(w, REC_SAMPLE, 8 + 8 + 8 + 8 + 4 + len);
	put32(w, 0);	/* pid */
	put32(w, 0);	/* tid */
	put64(w, ts);
	put32(w, 0);	/* cpu */
	put32(w, 0);
	put32(w, (uint32_t)len);
	put(w, raw, len);
}

/* a raw record's common fields: its type, then zeros */
static void raw_common(unsigned char *raw, uint16_t type)
{
	memcpy(raw, &type, 2);
}

static void idle(struct buf *w, uint64_t ts, uint32_t state)
{
	unsigned char raw[20] = { 0 };
	uint32_t cpu = 0;

	raw_common(raw, IDLE_ID);
	memcpy(raw + 8, &state, 4);
	memcpy(raw + 12, &cpu, 4);
	sample(w, ts, raw, sizeof(raw));
}

/* irq:irq_handler_entry irq=1 name=IPI */
static void irq_ipi(struct buf *w, uint64_t ts)
{
	unsigned char raw[20] = { 0 };
	int32_t irq = 1;
	uint32_t loc = 16 | 4u << 16;	/* __data_loc: offset, length */

	raw_common(raw, IRQ_ID);
	memcpy(raw + 8, &irq, 4);
	memcpy(raw + 12, &loc, 4);
	memcpy(raw + 16, "IPI", 4);
	sample(w, ts, raw, sizeof(raw));
}

static void ipi_entry(struct buf *w, uint64_t ts, uint64_t reason)
{
	unsigned char raw[20] = { 0 };

	raw_common(raw, IPI_ID);
	memcpy(raw + 8, &reason, 8);
	sample(w, ts, raw, sizeof(raw));
}

/*
 * A pipe-mode perf.data in @path: the attribute, the tracing data with the
 * formats of @systems, then an idle period on CPU 0 ended by the IPI
 * interrupt, and (@with_ipi) ipi:ipi_entry with the rescheduling reason
 */
static void write_perf_data(const char *path, const char *const *systems, bool with_ipi)
{
	static struct buf w, t;
	unsigned char attr[ATTR_SIZE] = { 0 };
	uint32_t v32;
	uint64_t v64;
	FILE *f;

	memset(&w, 0, sizeof(w));
	memset(&t, 0, sizeof(t));
	put(&w, "PERFILE2", 8);
	put64(&w, 16);		/* a pipe's header */
	v32 = TYPE_TRACEPOINT;
	memcpy(attr, &v32, 4);
	v32 = ATTR_SIZE;
	memcpy(attr + 4, &v32, 4);
	v64 = S_TID | S_TIME | S_CPU | S_RAW;
	memcpy(attr + 24, &v64, 8);
	rec_header(&w, REC_HEADER_ATTR, 8 + ATTR_SIZE);
	put(&w, attr, ATTR_SIZE);
	tracing_data(&t, systems);
	rec_header(&w, REC_HEADER_TRACING_DATA, 16);
	put32(&w, (uint32_t)t.len);
	put32(&w, 0);
	put(&w, t.b, t.len);
	idle(&w, 100000000000ull, 1);
	irq_ipi(&w, 100000500000ull);
	if (with_ipi)
		ipi_entry(&w, 100000500100ull, RESCHED_REASON);
	idle(&w, 100000501000ull, 4294967295u);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(w.b, 1, w.len, f), w.len);
	assert_int_equal(fclose(f), 0);
}

/* the types of the events of @path, in order: how many (at most @max) */
static int read_types(const char *path, enum trace_ev_type *types, int max)
{
	struct trace_reader *r;
	struct trace_event ev;
	char err[600];
	int n = 0, ret;

	ret = trace_open(path, &r, err, sizeof(err));
	if (ret)
		print_error("%s\n", err);
	assert_int_equal(ret, 0);
	while ((ret = trace_next(r, &ev)) > 0 && n < max)
		types[n++] = ev.type;
	if (ret < 0)
		print_error("%s\n", trace_error(r));
	assert_true(ret >= 0);
	trace_close(r);
	return n;
}

static char tmpdir[64];

/* ipi:ipi_entry's pointer names its reason by the printk strings: a rescheduling IPI */
static void test_ipi_reason_named(void **state)
{
	static const char *const systems[] = {
		"power", idle_format, "irq", irq_format, "ipi", ipi_format, NULL
	};
	enum trace_ev_type types[8];
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/ipi.perf.data", tmpdir);
	write_perf_data(path, systems, true);
	assert_int_equal(read_types(path, types, 8), 4);
	assert_int_equal(types[0], TEV_IDLE_ENTER);
	assert_int_equal(types[1], TEV_IRQ);
	assert_int_equal(types[2], TEV_RESCHED_IPI);
	assert_int_equal(types[3], TEV_IDLE_EXIT);
	unlink(path);
}

/* without ipi:ipi_entry recorded (its strings then not parsed), the rest reads alike */
static void test_no_ipi_event(void **state)
{
	static const char *const systems[] = {
		"power", idle_format, "irq", irq_format, NULL
	};
	enum trace_ev_type types[8];
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/no-ipi.perf.data", tmpdir);
	write_perf_data(path, systems, false);
	assert_int_equal(read_types(path, types, 8), 3);
	assert_int_equal(types[0], TEV_IDLE_ENTER);
	assert_int_equal(types[1], TEV_IRQ);
	assert_int_equal(types[2], TEV_IDLE_EXIT);
	unlink(path);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_trace_perf_ipi.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char path[128];

	(void)state;
	/* (a failed test leaves its file) */
	snprintf(path, sizeof(path), "%s/ipi.perf.data", tmpdir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/no-ipi.perf.data", tmpdir);
	unlink(path);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipi_reason_named),
		cmocka_unit_test(test_no_ipi_event),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
