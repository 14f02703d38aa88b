// SPDX-License-Identifier: MIT
/*
 * test_trace.c - the trace readers (lab/ingest/trace.h): every field of every
 * event in perf, ftrace and idlestat text, xz and gzip round trips, and
 * every kind of bad input, which must fail cleanly with errno, file and
 * line.  Sample lines are copied from the real traces in shared/traces;
 * when those files are present, they are read whole and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <lzma.h>
#include <zlib.h>

#include "trace.h"

#define TRACES		SRCDIR "/../shared/traces"
#define MAX_EVENTS	128

static char tmpdir[64];

/* ---- helpers ---- */

static void tmp_path(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* write @text to tmpdir/@name; the path is left in @path */
static void write_text(char *path, size_t plen, const char *name, const char *text)
{
	tmp_path(path, plen, name);
	write_bytes(path, text, strlen(text));
}

static unsigned char *xz_compress(const void *data, size_t len, size_t *outlen)
{
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	unsigned char *buf = malloc(cap);

	assert_non_null(buf);
	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, data, len,
						 buf, &pos, cap), LZMA_OK);
	*outlen = pos;
	return buf;
}

static unsigned char *gz_compress(const void *data, size_t len, size_t *outlen)
{
	z_stream z;
	unsigned char *buf;
	size_t cap;

	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	cap = deflateBound(&z, (uLong)len) + 64;
	buf = malloc(cap);
	assert_non_null(buf);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)len;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return buf;
}

struct result {
	int open_ret;
	int ret;		/* trace_next()'s last return */
	size_t n;
	struct trace_event ev[MAX_EVENTS];
	char err[512];		/* trace_open()'s or trace_error()'s message */
	enum trace_format fmt;
	struct trace_info info;
	uint64_t bytes;
};

/* read the whole file: every event, then the end or the error */
static struct result *read_all(const char *path)
{
	struct result *res = calloc(1, sizeof(*res));
	struct trace_reader *r;
	struct trace_event ev;

	assert_non_null(res);
	res->open_ret = trace_open(path, &r, res->err, sizeof(res->err));
	if (res->open_ret) {
		assert_null(r);
		res->ret = res->open_ret;
		return res;
	}
	assert_string_equal(res->err, "");
	res->fmt = trace_format(r);
	res->info = *trace_info(r);
	while ((res->ret = trace_next(r, &ev)) == 1) {
		if (res->n < MAX_EVENTS)
			res->ev[res->n] = ev;	/* the first ones, for checks */
		res->n++;
	}
	snprintf(res->err, sizeof(res->err), "%s", trace_error(r));
	res->bytes = trace_bytes_read(r);
	if (!res->ret)
		assert_string_equal(res->err, "");
	trace_close(r);
	return res;
}

static struct result *read_text(const char *name, const char *text)
{
	char path[256];

	write_text(path, sizeof(path), name, text);
	return read_all(path);
}

static void assert_has(const char *msg, const char *want)
{
	if (!strstr(msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", msg, want);
}

/* the message names the file and the line: "PATH:LINE: " */
static void assert_where(const char *msg, const char *name, uint64_t line)
{
	char want[320];

	snprintf(want, sizeof(want), "%s/%s:%llu: ", tmpdir, name, (unsigned long long)line);
	if (strncmp(msg, want, strlen(want)))
		fail_msg("message \"%s\" does not start with \"%s\"", msg, want);
}

/* "PATH:LINE: " with some line */
static void assert_some_line(const char *msg, const char *path)
{
	size_t n = strlen(path), d = 0;

	if (strncmp(msg, path, n) || msg[n] != ':')
		fail_msg("message \"%s\" does not start with \"%s:\"", msg, path);
	while (msg[n + 1 + d] >= '0' && msg[n + 1 + d] <= '9')
		d++;
	if (!d || msg[n + 1 + d] != ':')
		fail_msg("message \"%s\" names no line", msg);
}

static void assert_ev(const struct trace_event *ev, enum trace_ev_type type, unsigned int cpu,
		      int64_t ts_ns, uint64_t line)
{
	assert_int_equal(ev->type, type);
	assert_int_equal(ev->cpu, cpu);
	assert_int_equal(ev->ts_ns, ts_ns);
	assert_int_equal(ev->line, line);
}

/* every field but the named ones is zero */
static void assert_rest_zero(const struct trace_event *ev)
{
	assert_int_equal(ev->state, 0);
	assert_false(ev->below);
	assert_false(ev->grow);
	assert_false(ev->success);
	assert_false(ev->tick);
	assert_int_equal(ev->qos_class, 0);
	assert_int_equal(ev->value, 0);
	assert_int_equal(ev->old, 0);
	assert_int_equal(ev->timer, 0);
	assert_int_equal(ev->expires_ns, 0);
	assert_int_equal(ev->now_ns, 0);
	assert_int_equal(ev->irq, 0);
	assert_string_equal(ev->name, "");
	assert_int_equal(ev->target_cpu, 0);
}

/* ---- samples, copied from shared/traces (a few lines crafted, marked) ---- */

static const char perf_sample[] =
	"            perf 16805 [000]  2730.243509043:                     sched:sched_wakeup: comm=migration/0 pid=18 prio=0 target_cpu=000\n"
	"         swapper     0 [000]  2730.243561922:                         power:cpu_idle: state=1 cpu_id=0\n"
	"         swapper     0 [000]  2730.243790701: irq_vectors:call_function_single_entry: vector=251\n"
	"         swapper     0 [000]  2730.243796690:                         power:cpu_idle: state=4294967295 cpu_id=0\n"
	"       perf-exec 16806 [000]  2730.244024077:          irq_vectors:local_timer_entry: vector=236\n"
	"       perf-exec 16806 [000]  2730.244026721:             timer:hrtimer_expire_entry: hrtimer=0xffff888627c206f8 function=tick_nohz_handler now=2730244025409\n"
	"       perf-exec 16806 [000]  2730.244035745:                    timer:hrtimer_start: hrtimer=0xffff888627c206f8 function=tick_nohz_handler expires=2730248000000 softexpires=2730248000000 mode=0x0 was_armed=0\n"
	" kworker/1:1H-kb    54 [001]  2575.592116968:                    timer:hrtimer_start: hrtimer=0xffff888627d306a8 function=dl_task_timer expires=2576542115506 softexpires=2576542115506 mode=0x8 was_armed=0\n"
	" kworker/1:1H-kb    54 [001]  2575.592114144:                   timer:hrtimer_cancel: hrtimer=0xffff888627d306a8\n"
	"         swapper     0 [000]  2571.880976998:                        timer:tick_stop: success=1 dependency=NONE\n"
	"           sleep 14153 [000]  2571.884103287:           irq_vectors:reschedule_entry: vector=253\n"
	"            bash  1539 [001]  2573.709155224:                  irq:irq_handler_entry: irq=36 name=virtio1-req.0\n"
	"         swapper     0 [000]  2979.070954055:                    power:cpu_idle_miss: cpu_id=0 state=0 type=below\n"
	"         swapper     0 [000]  3100.740570186:               power:guest_halt_poll_ns: halt_poll_ns 100000 (grow 50000)\n"
	"         swapper     0 [000]  2979.072057122:               power:guest_halt_poll_ns: halt_poll_ns 0 (shrink 50000)\n"
	"      cyclictest 14173 [000]  2579.784900773:               power:pm_qos_add_request: CPU_DMA_LATENCY value=-1\n"
	"      cyclictest 14173 [000]  2579.784906171:            power:pm_qos_update_request: CPU_DMA_LATENCY value=0\n"
	"      cyclictest 14173 [001]  2585.833438848:            power:pm_qos_remove_request: CPU_DMA_LATENCY value=-1\n"
	/* crafted: events the real traces lack */
	"         swapper     0 [001]  2585.900000001:                    power:cpu_idle_miss: cpu_id=1 state=1 type=above\n"
	"         swapper     0 [001]  2585.900000002:         irq_vectors:call_function_entry: vector=252\n"
	"         swapper     0 [001]  2585.900000003:                        timer:tick_stop: success=0 dependency=SCHED\n"
	"         swapper     0 [001]  2585.900000004:             timer:hrtimer_expire_entry: hrtimer=0xffff888627d206f8 function=tick_sched_timer now=2585900000000\n"
	/* not ours: skipped; but a frequency, of CPU 1, logged on CPU 0 */
	"         swapper     0 [000]  2585.900000005:                   sched:sched_switch: prev_comm=swapper/0 prev_pid=0 next_comm=bash\n"
	"         swapper     0 [000]  2585.900000006:                    power:cpu_frequency: state=2000000 cpu_id=1\n"
	"         swapper     0 [000]  2585.900000007:                 sched:sched_wakeup_new: comm=bash pid=9 prio=120 target_cpu=000\n";

static void check_perf_sample(const struct result *res)
{
	const struct trace_event *e = res->ev;
	struct trace_event c;

	assert_int_equal(res->open_ret, 0);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_PERF);
	assert_int_equal(res->info.nr_cpus, 0);
	assert_int_equal(res->info.nr_states, 0);
	assert_int_equal(res->n, 23);

	assert_ev(&e[0], TEV_WAKEUP, 0, 2730243509043LL, 1);
	c = e[0];
	assert_int_equal(c.target_cpu, 0);
	assert_rest_zero(&c);

	assert_ev(&e[1], TEV_IDLE_ENTER, 0, 2730243561922LL, 2);
	assert_int_equal(e[1].state, 1);
	c = e[1];
	c.state = 0;
	assert_rest_zero(&c);

	assert_ev(&e[2], TEV_CALL_FUNC_IPI, 0, 2730243790701LL, 3);
	assert_rest_zero(&e[2]);
	assert_ev(&e[3], TEV_IDLE_EXIT, 0, 2730243796690LL, 4);
	assert_rest_zero(&e[3]);
	assert_ev(&e[4], TEV_LOCAL_TIMER, 0, 2730244024077LL, 5);
	assert_rest_zero(&e[4]);

	assert_ev(&e[5], TEV_HRTIMER_EXPIRE, 0, 2730244026721LL, 6);
	assert_int_equal(e[5].timer, 0xffff888627c206f8ULL);
	assert_true(e[5].tick);
	assert_int_equal(e[5].now_ns, 2730244025409LL);
	c = e[5];
	c.timer = 0;
	c.tick = false;
	c.now_ns = 0;
	assert_rest_zero(&c);

	assert_ev(&e[6], TEV_HRTIMER_START, 0, 2730244035745LL, 7);
	assert_int_equal(e[6].timer, 0xffff888627c206f8ULL);
	assert_true(e[6].tick);
	assert_int_equal(e[6].expires_ns, 2730248000000LL);
	c = e[6];
	c.timer = 0;
	c.tick = false;
	c.expires_ns = 0;
	assert_rest_zero(&c);

	/* not the tick; a comm with a slash, a colon, digits */
	assert_ev(&e[7], TEV_HRTIMER_START, 1, 2575592116968LL, 8);
	assert_int_equal(e[7].timer, 0xffff888627d306a8ULL);
	assert_false(e[7].tick);
	assert_int_equal(e[7].expires_ns, 2576542115506LL);

	/* out of time order, kept in file order */
	assert_ev(&e[8], TEV_HRTIMER_CANCEL, 1, 2575592114144LL, 9);
	assert_int_equal(e[8].timer, 0xffff888627d306a8ULL);
	c = e[8];
	c.timer = 0;
	assert_rest_zero(&c);

	assert_ev(&e[9], TEV_TICK_STOP, 0, 2571880976998LL, 10);
	assert_true(e[9].success);
	c = e[9];
	c.success = false;
	assert_rest_zero(&c);

	assert_ev(&e[10], TEV_RESCHED_IPI, 0, 2571884103287LL, 11);
	assert_rest_zero(&e[10]);

	assert_ev(&e[11], TEV_IRQ, 1, 2573709155224LL, 12);
	assert_int_equal(e[11].irq, 36);
	assert_string_equal(e[11].name, "virtio1-req.0");
	c = e[11];
	c.irq = 0;
	memset(c.name, 0, sizeof(c.name));	/* (the hrtimer fields share its bytes) */
	assert_rest_zero(&c);

	assert_ev(&e[12], TEV_IDLE_MISS, 0, 2979070954055LL, 13);
	assert_int_equal(e[12].state, 0);
	assert_true(e[12].below);
	c = e[12];
	c.below = false;
	assert_rest_zero(&c);

	assert_ev(&e[13], TEV_HALT_POLL_NS, 0, 3100740570186LL, 14);
	assert_int_equal(e[13].value, 100000);
	assert_true(e[13].grow);
	assert_int_equal(e[13].old, 50000);
	c = e[13];
	c.value = 0;
	c.grow = false;
	c.old = 0;
	assert_rest_zero(&c);

	assert_ev(&e[14], TEV_HALT_POLL_NS, 0, 2979072057122LL, 15);
	assert_int_equal(e[14].value, 0);
	assert_false(e[14].grow);
	assert_int_equal(e[14].old, 50000);

	assert_ev(&e[15], TEV_QOS_ADD, 0, 2579784900773LL, 16);
	assert_int_equal(e[15].qos_class, 0);
	assert_int_equal(e[15].value, -1);
	c = e[15];
	c.value = 0;
	assert_rest_zero(&c);
	assert_ev(&e[16], TEV_QOS_UPDATE, 0, 2579784906171LL, 17);
	assert_int_equal(e[16].value, 0);
	assert_ev(&e[17], TEV_QOS_REMOVE, 1, 2585833438848LL, 18);
	assert_int_equal(e[17].value, -1);

	assert_ev(&e[18], TEV_IDLE_MISS, 1, 2585900000001LL, 19);
	assert_int_equal(e[18].state, 1);
	assert_false(e[18].below);
	assert_ev(&e[19], TEV_CALL_FUNC_IPI, 1, 2585900000002LL, 20);
	assert_ev(&e[20], TEV_TICK_STOP, 1, 2585900000003LL, 21);
	assert_false(e[20].success);
	assert_ev(&e[21], TEV_HRTIMER_EXPIRE, 1, 2585900000004LL, 22);
	assert_true(e[21].tick);
	assert_int_equal(e[21].now_ns, 2585900000000LL);

	/* the CPU is cpu_id's, the frequency in kHz */
	assert_ev(&e[22], TEV_CPU_FREQ, 1, 2585900000006LL, 24);
	assert_int_equal(e[22].value, 2000000);
	c = e[22];
	c.value = 0;
	assert_rest_zero(&c);
}

static void test_perf_every_field(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("perf.txt", perf_sample);
	check_perf_sample(res);
	free(res);
}

static const char ftrace_sample[] =
	"# tracer: nop\n"
	"#\n"
	"# entries-in-buffer/entries-written: 4664/4664   #P:2\n"
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n"
	"          <idle>-0       [001] d.h1.  3166.934977: call_function_single_entry: vector=251\n"
	"          <idle>-0       [001] dnh1.  3166.935427: reschedule_entry: vector=253\n"
	"          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0\n"
	"          <idle>-0       [000] d.h1.  3166.936033: local_timer_entry: vector=236\n"
	"          <idle>-0       [000] d.h1.  3166.936035: hrtimer_expire_entry: hrtimer=0000000012c658ff function=tick_nohz_handler now=3166936033546\n"
	"          <idle>-0       [000] d.h2.  3166.936041: hrtimer_start: hrtimer=0000000012c658ff function=tick_nohz_handler expires=3166940000000 softexpires=3166940000000 mode=ABS was_armed=0\n"
	"          <idle>-0       [000] dNs5.  3166.936057: sched_wakeup: comm=rcu_preempt pid=15 prio=120 target_cpu=000\n"
	"          <idle>-0       [000] dN.1.  3166.936059: cpu_idle: state=4294967295 cpu_id=0\n"
	"          <idle>-0       [001] d.h1.  3166.936259: irq_handler_entry: irq=36 name=virtio1-req.0\n"
	"          <idle>-0       [001] dNs5.  3166.936269: sched_wakeup: comm=bash pid=23587 prio=120 target_cpu=001\n"
	" memfd:sealed-91-1538    [000] d..3.  3166.956823: hrtimer_cancel: hrtimer=00000000e78b72bc\n"
	/* crafted, in the kernel's formats */
	"          <idle>-0       [001] d..1.  3166.956900: cpu_idle_miss: cpu_id=1 state=0 type=below\n"
	"          <idle>-0       [001] d..1.  3166.956901: guest_halt_poll_ns: halt_poll_ns 200000 (grow 100000)\n"
	"      cyclictest-900     [001] .....  3166.956902: pm_qos_add_request: CPU_DMA_LATENCY value=0\n"
	"          <idle>-0       [001] d..1.  3166.956903: tick_stop: success=1 dependency=NONE\n"
	"          <idle>-0       [001] d.h1.  3166.956904: call_function_entry: vector=252\n"
	"        idlestat-23426 [000] ....  3125.477671: cpu_frequency: state=0 cpu_id=0\n"
	/* other events: skipped */
	"            bash-1539    [001] .....  3166.956905: tracing_mark_write: hello cpu_idle world\n"
	"         shutils-3106  [001]  2084.238797: print:                tracing_mark_write: cpu_frequency_devlib:        state=450000 cpu_id=0\n";

static void test_ftrace_every_field(void **state)
{
	struct result *res;
	const struct trace_event *e;

	(void)state;
	res = read_text("ftrace.txt", ftrace_sample);
	e = res->ev;
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_FTRACE);
	assert_int_equal(res->info.nr_cpus, 0);
	assert_int_equal(res->n, 17);

	assert_ev(&e[0], TEV_CALL_FUNC_IPI, 1, 3166934977000LL, 13);
	assert_rest_zero(&e[0]);
	assert_ev(&e[1], TEV_RESCHED_IPI, 1, 3166935427000LL, 14);
	assert_ev(&e[2], TEV_IDLE_ENTER, 0, 3166935486000LL, 15);
	assert_int_equal(e[2].state, 1);
	assert_ev(&e[3], TEV_LOCAL_TIMER, 0, 3166936033000LL, 16);
	/* ftrace hashes pointers and writes them without 0x */
	assert_ev(&e[4], TEV_HRTIMER_EXPIRE, 0, 3166936035000LL, 17);
	assert_int_equal(e[4].timer, 0x12c658ffULL);
	assert_true(e[4].tick);
	assert_int_equal(e[4].now_ns, 3166936033546LL);
	assert_ev(&e[5], TEV_HRTIMER_START, 0, 3166936041000LL, 18);
	assert_int_equal(e[5].timer, 0x12c658ffULL);
	assert_true(e[5].tick);
	assert_int_equal(e[5].expires_ns, 3166940000000LL);
	assert_int_equal(e[5].now_ns, 0);
	assert_ev(&e[6], TEV_WAKEUP, 0, 3166936057000LL, 19);
	assert_int_equal(e[6].target_cpu, 0);
	assert_ev(&e[7], TEV_IDLE_EXIT, 0, 3166936059000LL, 20);
	assert_rest_zero(&e[7]);
	assert_ev(&e[8], TEV_IRQ, 1, 3166936259000LL, 21);
	assert_int_equal(e[8].irq, 36);
	assert_string_equal(e[8].name, "virtio1-req.0");
	assert_ev(&e[9], TEV_WAKEUP, 1, 3166936269000LL, 22);
	assert_int_equal(e[9].target_cpu, 1);
	assert_ev(&e[10], TEV_HRTIMER_CANCEL, 0, 3166956823000LL, 23);
	assert_int_equal(e[10].timer, 0xe78b72bcULL);
	assert_false(e[10].tick);
	assert_ev(&e[11], TEV_IDLE_MISS, 1, 3166956900000LL, 24);
	assert_int_equal(e[11].state, 0);
	assert_true(e[11].below);
	assert_ev(&e[12], TEV_HALT_POLL_NS, 1, 3166956901000LL, 25);
	assert_int_equal(e[12].value, 200000);
	assert_true(e[12].grow);
	assert_int_equal(e[12].old, 100000);
	assert_ev(&e[13], TEV_QOS_ADD, 1, 3166956902000LL, 26);
	assert_int_equal(e[13].value, 0);
	assert_int_equal(e[13].qos_class, 0);
	assert_ev(&e[14], TEV_TICK_STOP, 1, 3166956903000LL, 27);
	assert_true(e[14].success);
	assert_ev(&e[15], TEV_CALL_FUNC_IPI, 1, 3166956904000LL, 28);
	/* idlestat's marker: a frequency it could not read, 0 */
	assert_ev(&e[16], TEV_CPU_FREQ, 0, 3125477671000LL, 29);
	assert_int_equal(e[16].value, 0);
	free(res);
}

/* trace-cmd report: a preamble, no FLAGS column; record-tgid's column */
static void test_ftrace_variants(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("tracecmd.txt",
		"version = 6\n"
		"CPU 1 is empty\n"
		"cpus=2\n"
		"          <idle>-0     [000]  3166.935486: cpu_idle:             state=1 cpu_id=0\n"
		"          <idle>-0     [000]  3166.936059: cpu_idle:             state=4294967295 cpu_id=0\n"
		"          <idle>-0       (-------) [001] d.h1.  3166.936259: irq_handler_entry: irq=36 name=virtio1-req.0\n"
		"            bash-1539    (   1539) [001] .....  3166.936300: sched_wakeup: comm=dd pid=2 prio=120 target_cpu=001\n"
		/* the group prefix is accepted, another group is not ours */
		"          <idle>-0     [000]  3166.936400: power:cpu_idle: state=0 cpu_id=0\n"
		"          <idle>-0     [000]  3166.936500: other:cpu_idle: state=0 cpu_id=0\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_FTRACE);
	assert_int_equal(res->n, 5);
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 0, 3166935486000LL, 4);
	assert_ev(&res->ev[1], TEV_IDLE_EXIT, 0, 3166936059000LL, 5);
	assert_ev(&res->ev[2], TEV_IRQ, 1, 3166936259000LL, 6);
	assert_ev(&res->ev[3], TEV_WAKEUP, 1, 3166936300000LL, 7);
	assert_int_equal(res->ev[3].target_cpu, 1);
	assert_ev(&res->ev[4], TEV_IDLE_ENTER, 0, 3166936400000LL, 8);
	assert_int_equal(res->ev[4].state, 0);
	free(res);
}

/* idlestat 0.8's header as in shared/traces/nginx.idlestat.xz */
static void idlestat_header(char *buf, size_t len, const char *state1)
{
	size_t n;
	int cpu, i;

	n = (size_t)snprintf(buf, len,
			     "idlestat version = 0.8\ncpus=2\nclusterA:\n\tcore0\n\t\tcpu0\n"
			     "\tcore1\n\t\tcpu1\n");
	for (cpu = 0; cpu < 2; cpu++) {
		n += (size_t)snprintf(buf + n, len - n, "cpuid %d:\n\tPOLL\n\t0\n\t%s\n\t1\n",
				      cpu, state1);
		for (i = 2; i < 16; i++)
			n += (size_t)snprintf(buf + n, len - n, "\t(null)\n\t-1\n");
	}
	assert_true(n < len);
}

static void test_idlestat(void **state)
{
	char text[4096];
	struct result *res;
	size_t n;

	(void)state;
	idlestat_header(text, sizeof(text), "haltpoll");
	n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "%s",
		 "        idlestat-23426 [000] ....  3125.477671: cpu_frequency: state=0 cpu_id=0\n"
		 "        idlestat-23426 [001] ....  3125.477671: cpu_frequency: state=0 cpu_id=1\n"
		 "          <idle>-0       [000] d..1.  3125.477852: cpu_idle: state=1 cpu_id=0\n"
		 "          <idle>-0       [001] d.h1.  3125.481616: irq_handler_entry: irq=36 name=virtio1-req.0\n"
		 "          <idle>-0       [000] dN.1.  3125.483803: cpu_idle: state=4294967295 cpu_id=0\n");
	res = read_text("nginx.idlestat", text);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_IDLESTAT);
	assert_int_equal(res->info.nr_cpus, 2);
	/* "haltpoll idle" comes cut at its space by idlestat: given as it is */
	assert_int_equal(res->info.nr_states, 2);
	assert_string_equal(res->info.state_names[0], "POLL");
	assert_string_equal(res->info.state_names[1], "haltpoll");
	assert_int_equal(res->n, 5);
	/* 7 topology lines + 2 * (1 + 32) state lines, then the events */
	assert_ev(&res->ev[0], TEV_CPU_FREQ, 0, 3125477671000LL, 74);
	assert_ev(&res->ev[1], TEV_CPU_FREQ, 1, 3125477671000LL, 75);
	assert_int_equal(res->ev[1].value, 0);
	assert_ev(&res->ev[2], TEV_IDLE_ENTER, 0, 3125477852000LL, 76);
	assert_int_equal(res->ev[2].state, 1);
	assert_ev(&res->ev[3], TEV_IRQ, 1, 3125481616000LL, 77);
	assert_ev(&res->ev[4], TEV_IDLE_EXIT, 0, 3125483803000LL, 78);
	free(res);

	/* a header that keeps the space is read in full */
	idlestat_header(text, sizeof(text), "haltpoll idle");
	res = read_text("full.idlestat", text);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 0);
	assert_int_equal(res->info.nr_states, 2);
	assert_string_equal(res->info.state_names[1], "haltpoll idle");
	free(res);

	/* broken headers */
	res = read_text("bad1.idlestat", "idlestat version = 0.8\nclusterA:\n");
	assert_int_equal(res->open_ret, -EINVAL);
	assert_where(res->err, "bad1.idlestat", 2);
	assert_has(res->err, "cpus=");
	free(res);
	res = read_text("bad2.idlestat", "idlestat version = 0.8\ncpus=0\n");
	assert_int_equal(res->open_ret, -ERANGE);
	assert_where(res->err, "bad2.idlestat", 2);
	free(res);
	res = read_text("bad3.idlestat", "idlestat version = 0.8\ncpus=2\ncpuid 0:\n\tPOLL\n\tzero\n");
	assert_int_equal(res->open_ret, -EINVAL);
	assert_where(res->err, "bad3.idlestat", 5);
	assert_has(res->err, "POLL");
	free(res);
	res = read_text("bad4.idlestat", "idlestat version = 0.8\ncpus=2\ncpuid 2:\n");
	assert_int_equal(res->open_ret, -ERANGE);
	assert_where(res->err, "bad4.idlestat", 3);
	free(res);
	/* the body is ftrace text: a perf line there is an error */
	idlestat_header(text, sizeof(text), "haltpoll");
	n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "%s",
		 "          <idle>-0       [000] d..1.  3125.477852: cpu_idle: state=1 cpu_id=0\n"
		 "         swapper     0 [000]  2730.243561922:                         power:cpu_idle: state=1 cpu_id=0\n");
	res = read_text("mixed.idlestat", text);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "mixed.idlestat", 75);
	assert_has(res->err, "a perf line in an idlestat trace");
	free(res);
}

/* comm is free text: spaces, digits, brackets, colons */
static void test_comm_spaces_brackets(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("comm.txt",
		"     Web Content  4321 [001]  2730.000000001:                         power:cpu_idle: state=2 cpu_id=1\n"
		"         a [7] b    99 [003]  2730.000000002:                         power:cpu_idle: state=3 cpu_id=3\n"
		"  [001] 1.5: x:    100 [002]  2730.000000003:                         power:cpu_idle: state=0 cpu_id=2\n"
		"             :-1 19309 [000]  2865.665242955:                     sched:sched_wakeup: comm=timeout pid=19308 prio=120 target_cpu=000\n"
		" memfd:sealed-91  1538 [000]  2571.907453562:                    timer:hrtimer_start: hrtimer=0xffffc90001aa7a88 function=hrtimer_wakeup expires=2571957497343 softexpires=2571957447343 mode=0x0 was_armed=0\n"
		/* sched_wakeup's own comm= with spaces and a decoy target_cpu= */
		"         swapper     0 [001]  2730.000000004:                     sched:sched_wakeup: comm=Web target_cpu=9 x pid=7 prio=120 target_cpu=002\n"
		"         swapper     0 [001]  2730.000000005:                  irq:irq_handler_entry: irq=9 name=acpi [0] 1.000000: e: x\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 7);
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 1, 2730000000001LL, 1);
	assert_int_equal(res->ev[0].state, 2);
	assert_ev(&res->ev[1], TEV_IDLE_ENTER, 3, 2730000000002LL, 2);
	assert_int_equal(res->ev[1].state, 3);
	assert_ev(&res->ev[2], TEV_IDLE_ENTER, 2, 2730000000003LL, 3);
	assert_ev(&res->ev[3], TEV_WAKEUP, 0, 2865665242955LL, 4);
	assert_ev(&res->ev[4], TEV_HRTIMER_START, 0, 2571907453562LL, 5);
	assert_int_equal(res->ev[4].timer, 0xffffc90001aa7a88ULL);
	assert_false(res->ev[4].tick);
	assert_ev(&res->ev[5], TEV_WAKEUP, 1, 2730000000004LL, 6);
	assert_int_equal(res->ev[5].target_cpu, 2);
	assert_ev(&res->ev[6], TEV_IRQ, 1, 2730000000005LL, 7);
	assert_int_equal(res->ev[6].irq, 9);
	assert_string_equal(res->ev[6].name, "acpi [0] 1.000000: e: x");
	free(res);

	res = read_text("comm-ftrace.txt",
		"# tracer: nop\n"
		"     Web Content-4321    [001] d..1.  3166.935486: cpu_idle: state=1 cpu_id=1\n"
		"   kworker/1:1H-54      [001] d..1.  3166.935487: cpu_idle: state=4294967295 cpu_id=1\n"
		"        a [7] b-99      [003] d..1.  3166.935488: cpu_idle: state=0 cpu_id=3\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 1, 3166935486000LL, 2);
	assert_ev(&res->ev[1], TEV_IDLE_EXIT, 1, 3166935487000LL, 3);
	assert_ev(&res->ev[2], TEV_IDLE_ENTER, 3, 3166935488000LL, 4);
	free(res);
}

/* CPUs interleave and are not ordered across CPUs: file order is kept */
static void test_order_preserved(void **state)
{
	static const unsigned int cpus[] = { 1, 0, 3, 0, 1 };
	static const int64_t ts[] = { 5000000000LL, 4000000000LL, 4500000000LL, 3999999999LL,
				      5000000000LL };
	struct result *res;
	size_t i;

	(void)state;
	res = read_text("order.txt",
		"         swapper     0 [001]     5.000000000:                         power:cpu_idle: state=1 cpu_id=1\n"
		"         swapper     0 [000]     4.000000000:                         power:cpu_idle: state=1 cpu_id=0\n"
		"         swapper     0 [003]     4.500000000:                         power:cpu_idle: state=1 cpu_id=3\n"
		"         swapper     0 [000]     3.999999999:                         power:cpu_idle: state=4294967295 cpu_id=0\n"
		"         swapper     0 [001]     5.000000000:                         power:cpu_idle: state=4294967295 cpu_id=1\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(res->ev[i].cpu, cpus[i]);
		assert_int_equal(res->ev[i].ts_ns, ts[i]);
		assert_int_equal(res->ev[i].line, i + 1);
	}
	free(res);
}

static const char *perf_line_at(char *buf, size_t len, const char *ts, const char *cpu)
{
	snprintf(buf, len, "         swapper     0 [%s]  %s:                         "
		 "power:cpu_idle: state=1 cpu_id=0\n", cpu, ts);
	return buf;
}

/* integer ns, no floating point: exact at the limits */
static void test_timestamps_exact(void **state)
{
	char text[512];
	struct result *res;

	(void)state;
	res = read_text("ts1.txt", perf_line_at(text, sizeof(text), "0.000000001", "000"));
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->ev[0].ts_ns, 1);
	free(res);
	res = read_text("ts2.txt", perf_line_at(text, sizeof(text), "9223372036.854775807", "000"));
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->ev[0].ts_ns, INT64_MAX);
	free(res);
	/* 6 decimals (ftrace, perf without --ns) are microseconds */
	res = read_text("ts3.txt", perf_line_at(text, sizeof(text), "2730.243509", "000"));
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->ev[0].ts_ns, 2730243509000LL);
	free(res);
	res = read_text("ts4.txt", perf_line_at(text, sizeof(text), "9223372036.854775808", "000"));
	assert_int_equal(res->ret, -ERANGE);
	assert_where(res->err, "ts4.txt", 1);
	assert_has(res->err, "timestamp");
	free(res);
	res = read_text("ts5.txt", perf_line_at(text, sizeof(text),
						 "99999999999999999999999.000000000", "000"));
	assert_int_equal(res->ret, -ERANGE);
	assert_where(res->err, "ts5.txt", 1);
	free(res);
}

static void test_xz_gz_roundtrip(void **state)
{
	char path[256];
	unsigned char *z, *two;
	struct result *res;
	size_t len = strlen(perf_sample), zlen;

	(void)state;
	z = xz_compress(perf_sample, len, &zlen);
	tmp_path(path, sizeof(path), "perf.txt.xz");
	write_bytes(path, z, zlen);
	res = read_all(path);
	check_perf_sample(res);
	assert_int_equal(res->bytes, zlen);
	free(res);
	/* the name does not matter, the magic does */
	tmp_path(path, sizeof(path), "perf-xz.txt");
	write_bytes(path, z, zlen);
	res = read_all(path);
	check_perf_sample(res);
	free(res);
	/* two concatenated streams, as xz -dc reads them */
	two = malloc(2 * zlen);
	assert_non_null(two);
	memcpy(two, z, zlen);
	memcpy(two + zlen, z, zlen);
	tmp_path(path, sizeof(path), "two.xz");
	write_bytes(path, two, 2 * zlen);
	res = read_all(path);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 46);
	assert_int_equal(res->ev[23].line, 26);	/* the sample has 25 lines */
	free(res);
	free(two);
	free(z);

	z = gz_compress(perf_sample, len, &zlen);
	tmp_path(path, sizeof(path), "perf.txt.gz");
	write_bytes(path, z, zlen);
	res = read_all(path);
	check_perf_sample(res);
	assert_int_equal(res->bytes, zlen);
	free(res);
	two = malloc(2 * zlen);
	assert_non_null(two);
	memcpy(two, z, zlen);
	memcpy(two + zlen, z, zlen);
	tmp_path(path, sizeof(path), "two.gz");
	write_bytes(path, two, 2 * zlen);
	res = read_all(path);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 46);
	free(res);
	free(two);
	free(z);
}

/* a text of @lines idle events, large enough to span several buffers */
static char *big_text(int lines, size_t *len)
{
	size_t cap = (size_t)lines * 128, n = 0;
	char *t = malloc(cap);
	int i;

	assert_non_null(t);
	for (i = 0; i < lines; i++)
		n += (size_t)snprintf(t + n, cap - n,
				      "         swapper     0 [%03d] %6d.%09d:  power:cpu_idle: state=%d cpu_id=%d\n",
				      i & 1, 100 + i / 1000, i, i & 1 ? 1 : 0, i & 1);
	*len = n;
	return t;
}

static void test_truncated_and_corrupt(void **state)
{
	char path[256];
	unsigned char *z;
	struct result *res;
	size_t len, zlen;
	char *text;
	int gz;

	(void)state;
	text = big_text(20000, &len);
	for (gz = 0; gz < 2; gz++) {
		const char *name = gz ? "cut.gz" : "cut.xz";

		z = gz ? gz_compress(text, len, &zlen) : xz_compress(text, len, &zlen);
		tmp_path(path, sizeof(path), name);
		/* whole: every line */
		write_bytes(path, z, zlen);
		res = read_all(path);
		assert_int_equal(res->ret, 0);
		assert_int_equal(res->n, 20000);
		assert_int_equal(res->bytes, zlen);
		free(res);
		/* cut in the middle: events, then an error, not a quiet end */
		write_bytes(path, z, zlen / 2);
		res = read_all(path);
		assert_true(res->n > 0);
		assert_int_equal(res->ret, -EBADMSG);
		assert_some_line(res->err, path);
		assert_has(res->err, "truncated");
		free(res);
		/* only the last byte missing (the check or the trailer) */
		write_bytes(path, z, zlen - 1);
		res = read_all(path);
		assert_int_equal(res->ret, -EBADMSG);
		assert_some_line(res->err, path);
		free(res);
		/*
		 * A flipped byte in the middle: garbage may come out before the
		 * check catches it, so the error may be about that text; but
		 * there is one, with the file's name.
		 */
		z[zlen / 2] ^= 0x55;
		write_bytes(path, z, zlen);
		res = read_all(path);
		assert_true(res->ret == -EBADMSG || res->ret == -EINVAL || res->ret == -ERANGE);
		assert_some_line(res->err, path);
		free(res);
		z[zlen / 2] ^= 0x55;
		/* a bad header (xz: the stream flags' CRC; gzip: the method) */
		z[gz ? 2 : 8] ^= 0x01;
		write_bytes(path, z, zlen);
		res = read_all(path);
		assert_int_equal(res->open_ret, -EBADMSG);
		assert_some_line(res->err, path);
		assert_has(res->err, "corrupt");
		free(res);
		z[gz ? 2 : 8] ^= 0x01;
		/* just the magic */
		write_bytes(path, z, gz ? 2 : 6);
		res = read_all(path);
		assert_int_equal(res->ret, -EBADMSG);
		assert_has(res->err, path);
		free(res);
		free(z);
	}
	free(text);
}

static void test_empty_missing_directory(void **state)
{
	char path[256];
	struct result *res;

	(void)state;
	res = read_text("empty.txt", "");
	assert_int_equal(res->open_ret, -EINVAL);
	assert_has(res->err, "empty.txt");
	assert_has(res->err, "empty");
	free(res);

	tmp_path(path, sizeof(path), "missing.txt");
	res = read_all(path);
	assert_int_equal(res->open_ret, -ENOENT);
	assert_has(res->err, path);
	free(res);

	res = read_all(tmpdir);
	assert_int_equal(res->open_ret, -EISDIR);
	assert_has(res->err, tmpdir);
	free(res);

	/* an xz stream of nothing is an empty trace too */
	{
		size_t zlen;
		unsigned char *z = xz_compress("", 0, &zlen);

		tmp_path(path, sizeof(path), "empty.xz");
		write_bytes(path, z, zlen);
		free(z);
		res = read_all(path);
		assert_int_equal(res->open_ret, -EINVAL);
		assert_has(res->err, "empty");
		free(res);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* NUL bytes fail at once: /dev/zero is not read for gigabytes */
/* the bytes trace_open() looks at to tell a binary file (TRACE_PEEK_MAX) */
#define TRACE_PEEK_BYTES	512

static void test_dev_zero_and_noise(void **state)
{
	unsigned char noise[200000];
	uint32_t x = 12345;
	struct result *res;
	char path[256];
	double t0;
	size_t i;

	(void)state;
	if (access("/dev/zero", R_OK) == 0) {
		t0 = now_s();
		res = read_all("/dev/zero");
		assert_int_equal(res->open_ret, -EINVAL);
		/* a binary file is named as one, not read as text to its first NUL */
		assert_has(res->err, "/dev/zero: a binary file of a kind not read here");
		assert_has(res->err, "starts 00 00 00 00");
		assert_true(now_s() - t0 < 1.0);
		free(res);
	}

	for (i = 0; i < sizeof(noise); i++) {
		x = x * 1103515245u + 12345u;
		noise[i] = (unsigned char)(x >> 16);
	}
	tmp_path(path, sizeof(path), "noise.bin");
	write_bytes(path, noise, sizeof(noise));
	res = read_all(path);
	assert_int_equal(res->open_ret, -EINVAL);
	assert_has(res->err, path);
	assert_has(res->err, ": a binary file of a kind not read here (it starts ");
	free(res);

	/* noise without control bytes or newline: one endless line of text */
	for (i = 0; i < sizeof(noise); i++)
		if (noise[i] < 0x20 || noise[i] == 0x7f)
			noise[i] = 'x';
	write_bytes(path, noise, sizeof(noise));
	res = read_all(path);
	assert_int_equal(res->open_ret, -EINVAL);
	assert_has(res->err, ":1: line longer than");
	free(res);

	/*
	 * a NUL after good lines, past the first bytes (where it would make
	 * the file a binary one): the line that holds it is named
	 */
	{
		char text[2048];
		size_t n = 0;
		int k;

		for (k = 0; k < 8; k++)
			n += (size_t)snprintf(text + n, sizeof(text) - n,
					      "         swapper     0 [000]  2730.24356192%d:  "
					      "power:cpu_idle: state=1 cpu_id=0\n", k);
		assert_true(n > TRACE_PEEK_BYTES);
		n += (size_t)snprintf(text + n, sizeof(text) - n, "garbage");
		text[n++] = '\0';
		memcpy(text + n, "more\n", 5);
		n += 5;
		tmp_path(path, sizeof(path), "nul.txt");
		write_bytes(path, text, n);
		res = read_all(path);
		assert_int_equal(res->n, 8);
		assert_int_equal(res->ret, -EINVAL);
		assert_where(res->err, "nul.txt", 9);
		assert_has(res->err, "NUL");
		free(res);
	}
}

static void test_garbage_text(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("garbage.txt", "hello world\nthis is not a trace [at all] 1.5: no\n\n");
	assert_int_equal(res->open_ret, -EINVAL);
	assert_has(res->err, "garbage.txt: not a trace in a known format");
	free(res);
	/* a few lines of preamble before the first event line are fine */
	res = read_text("preamble.txt", "hello world\n\n"
			"         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1 cpu_id=0\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->ev[0].line, 3);
	free(res);
	/* an ftrace file with no entries is an empty trace, not an error */
	res = read_text("noentries.txt", "# tracer: nop\n#\n");
	assert_int_equal(res->open_ret, 0);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 0);
	assert_int_equal(res->fmt, TRACE_FMT_FTRACE);
	free(res);
}

struct bad_case {
	const char *line;	/* the second line of a perf file */
	int err;
	const char *says;
};

static const char good_line[] =
	"         swapper     0 [000]  2730.243561922:                         power:cpu_idle: state=1 cpu_id=0\n";

static void run_bad_cases(const struct bad_case *c, size_t n)
{
	char text[1024], name[32];
	struct trace_reader *r;
	struct trace_event ev;
	struct result *res;
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "bad%zu.txt", i);
		snprintf(text, sizeof(text), "%s%s\n%s", good_line, c[i].line, good_line);
		res = read_text(name, text);
		if (res->ret != c[i].err || res->n != 1)
			fail_msg("case %zu \"%s\": ret %d after %zu events, want %d: %s", i,
				 c[i].line, res->ret, res->n, c[i].err, res->err);
		assert_where(res->err, name, 2);
		assert_has(res->err, c[i].says);
		free(res);
	}
	/* errors stick: the next call says the same, nothing more is read */
	{
		char path[256];
		char msg[512];

		tmp_path(path, sizeof(path), "bad0.txt");
		assert_int_equal(trace_open(path, &r, NULL, 0), 0);
		assert_int_equal(trace_next(r, &ev), 1);
		assert_int_equal(trace_next(r, &ev), c[0].err);
		snprintf(msg, sizeof(msg), "%s", trace_error(r));
		assert_int_equal(trace_next(r, &ev), c[0].err);
		assert_string_equal(trace_error(r), msg);
		trace_close(r);
	}
}

static void test_absurd_numbers(void **state)
{
	static const struct bad_case cases[] = {
		{ "         swapper     0 [-01]  2730.243561922:  power:cpu_idle: state=1 cpu_id=0",
		  -ERANGE, "CPU [-01] out of range" },
		{ "         swapper     0 [4096]  2730.243561922:  power:cpu_idle: state=1 cpu_id=0",
		  -ERANGE, "CPU [4096] out of range" },
		{ "         swapper     0 [99999999999999999999999]  2730.243561922:  irq_vectors:local_timer_entry: vector=1",
		  -ERANGE, "out of range" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1 cpu_id=4096",
		  -ERANGE, "cpu_id=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=10 cpu_id=0",
		  -ERANGE, "state=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=99999999999999999999999 cpu_id=0",
		  -ERANGE, "state=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle_miss: cpu_id=0 state=10 type=below",
		  -ERANGE, "state=" },
		{ "         swapper     0 [000]  2730.243561922:  sched:sched_wakeup: comm=a pid=1 prio=1 target_cpu=4096",
		  -ERANGE, "target_cpu=" },
		{ "         swapper     0 [000]  2730.243561922:  irq:irq_handler_entry: irq=2147483648 name=x",
		  -ERANGE, "irq=" },
		{ "         swapper     0 [000]  2730.243561922:  irq:irq_handler_entry: irq=-1 name=x",
		  -ERANGE, "irq=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:hrtimer_cancel: hrtimer=0x1ffff888627c206f8",
		  -ERANGE, "hrtimer=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:hrtimer_start: hrtimer=0x1 function=f expires=9223372036854775808 softexpires=0 mode=0x0",
		  -ERANGE, "expires=" },
		{ "         swapper     0 [000]  2730.243561922:  power:pm_qos_add_request: CPU_DMA_LATENCY value=2147483648",
		  -ERANGE, "value=" },
		{ "         swapper     0 [000]  2730.243561922:  power:guest_halt_poll_ns: halt_poll_ns 99999999999999999999999 (grow 1)",
		  -ERANGE, "halt_poll_ns" },
		{ "         swapper     0 [000]  9223372036.854775808:  power:cpu_idle: state=1 cpu_id=0",
		  -ERANGE, "timestamp 9223372036.854775808 out of range" },
	};

	(void)state;
	run_bad_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_malformed_event_lines(void **state)
{
	static const struct bad_case cases[] = {
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=x cpu_id=0",
		  -EINVAL, "cpu_idle: cannot parse state=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1",
		  -EINVAL, "cpu_id=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1x cpu_id=0",
		  -EINVAL, "state=" },
		{ "         swapper     0 [000]  2730.243561922:  power:cpu_idle_miss: cpu_id=0 state=0 type=sideways",
		  -EINVAL, "type=" },
		{ "         swapper     0 [000]  2730.243561922:  power:guest_halt_poll_ns: halt_poll_ns 5 (wobble 1)",
		  -EINVAL, "grow|shrink" },
		{ "         swapper     0 [000]  2730.243561922:  power:guest_halt_poll_ns: halt_poll_ns 5 (grow 1",
		  -EINVAL, "grow|shrink" },
		{ "         swapper     0 [000]  2730.243561922:  power:pm_qos_update_request: CPU_DMA_LATENCY",
		  -EINVAL, "value=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:hrtimer_start: hrtimer=zz function=f expires=1",
		  -EINVAL, "hrtimer=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:hrtimer_start: hrtimer=0x1 expires=1",
		  -EINVAL, "function=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:hrtimer_expire_entry: hrtimer=0x1 function=f",
		  -EINVAL, "now=" },
		{ "         swapper     0 [000]  2730.243561922:  timer:tick_stop: dependency=NONE",
		  -EINVAL, "success=" },
		{ "         swapper     0 [000]  2730.243561922:  irq:irq_handler_entry: irq=5",
		  -EINVAL, "name=" },
		{ "         swapper     0 [000]  2730.243561922:  sched:sched_wakeup: comm=a pid=1 prio=1",
		  -EINVAL, "target_cpu=" },
		/* names our event, but the header does not parse */
		{ "         swapper     0 [000]  2730.2435:  power:cpu_idle: state=1 cpu_id=0",
		  -EINVAL, "cannot parse this event line" },
		{ "         swapper     0 000  2730.243561922:  power:cpu_idle: state=1 cpu_id=0",
		  -EINVAL, "cannot parse this event line" },
		/* a line of the other format */
		{ "          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0",
		  -EINVAL, "an ftrace line in a perf trace" },
		{ "          <idle>-0       [000] d..1.  3166.935486: sched_switch: prev_comm=a",
		  -EINVAL, "mixed formats" },
	};

	(void)state;
	run_bad_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_mixed_ftrace_then_perf(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("mixed.txt",
		"# tracer: nop\n"
		"          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0\n"
		"         swapper     0 [000]  2730.243561922:                         power:cpu_idle: state=1 cpu_id=0\n");
	assert_int_equal(res->n, 1);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "mixed.txt", 3);
	assert_has(res->err, "a perf line in an ftrace trace");
	free(res);
}

/* no fixed line length: up to 64 KiB is read whole, longer is an error */
static void test_long_lines(void **state)
{
	size_t max = 64 * 1024, n;
	struct result *res;
	char path[256];
	char *text;

	(void)state;
	text = malloc(2 * max + 1024);
	assert_non_null(text);

	/* an event line of exactly 64 KiB: a long irq name, kept to 31 chars */
	n = (size_t)snprintf(text, 1024, "%s", good_line);
	n += (size_t)snprintf(text + n, 1024,
			      "         swapper     0 [001]  2730.243561923:  irq:irq_handler_entry: irq=7 name=");
	memset(text + n, 'n', max - (n - strlen(good_line)));
	n = strlen(good_line) + max;
	text[n++] = '\n';
	memcpy(text + n, good_line, strlen(good_line) + 1);
	tmp_path(path, sizeof(path), "long.txt");
	write_bytes(path, text, strlen(text));
	res = read_all(path);
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_int_equal(res->ev[1].type, TEV_IRQ);
	assert_int_equal(res->ev[1].irq, 7);
	assert_int_equal(strlen(res->ev[1].name), TRACE_IRQ_NAME_LEN - 1);
	assert_int_equal(res->ev[2].line, 3);
	free(res);

	/* one byte more */
	n = strlen(good_line);
	memset(text + n, 'x', max + 1);
	n += max + 1;
	text[n++] = '\n';
	memcpy(text + n, good_line, strlen(good_line) + 1);
	write_bytes(path, text, strlen(text));
	res = read_all(path);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "long.txt", 2);
	assert_has(res->err, "line longer than 65536 bytes");
	free(res);

	/* the same at the end of the file, without a newline */
	text[strlen(good_line) + max + 1] = '\0';
	write_bytes(path, text, strlen(text));
	res = read_all(path);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "long.txt", 2);
	free(res);
	free(text);
}

/*
 * Lines like the one before are split the short way (a template of the
 * last header): each of these fits the template byte for byte where it
 * looks, yet must be read as if alone.
 */
static void test_lines_alike(void **state)
{
	static const char idle[] =
		"          <idle>-0       [000] d..1.  3125.540034: cpu_idle: state=1 cpu_id=0\n";
	struct result *res;
	char text[2048];

	(void)state;
	/* an earlier '[' with a whole header: that one is the header */
	snprintf(text, sizeof(text), "# tracer: nop\n%s%s", idle,
		 "[1] 9.000000: x:         [000] d..1.  3125.540035: cpu_idle: state=1 cpu_id=0\n");
	res = read_text("alike1.txt", text);
	assert_int_equal(res->n, 1);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "alike1.txt", 3);
	assert_has(res->err, "a perf line in an ftrace trace");
	free(res);

	/* a FLAGS column that is a timestamp: the event is the next token */
	res = read_text("alike2.txt", "# tracer: nop\n"
		"          <idle>-0       [000] d..1.wxyz  3125.540034: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [000] 1.000000:  3125.540035: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [000] d..1.wxyz  3125.540036: cpu_idle: state=4294967295 cpu_id=0\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 2);
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 0, 3125540034000LL, 2);
	assert_ev(&res->ev[1], TEV_IDLE_EXIT, 0, 3125540036000LL, 4);
	free(res);

	/* the same columns: other CPUs, flags, names, a tab, a CPU too high */
	res = read_text("alike3.txt", "# tracer: nop\n"
		"          <idle>-0       [1000] d..1.  3125.540034: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [0999] dN.1.  3125.540035: cpu_idle: state=4294967295 cpu_id=99\n"
		"          <idle>-0       [1000] d..1.  3125.540036: cpu_idlf: state=1 cpu_id=0\n"
		"          <idle>-0       [1000] d..1.  3125.540037: cpu_idle:x: state=1 cpu_id=0\n"
		"          <idle>-0       [1000] d..1.  3125.540038: power:cpu_idle: state=01 cpu_id=00\n"
		"          <idle>-0       [1000] d..1.\t 3125.540039: cpu_idle: state=2 cpu_id=123\n"
		"          <idle>-0       [1000] d..1.  3125.540040: other:cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0       [4096] d..1.  3125.540041: cpu_idle: state=1 cpu_id=0\n");
	assert_int_equal(res->n, 4);
	/* a cpu_idle event's CPU is its cpu_id= */
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 0, 3125540034000LL, 2);
	assert_int_equal(res->ev[0].state, 1);
	assert_ev(&res->ev[1], TEV_IDLE_EXIT, 99, 3125540035000LL, 3);
	assert_ev(&res->ev[2], TEV_IDLE_ENTER, 0, 3125540038000LL, 6);
	assert_int_equal(res->ev[2].state, 1);
	assert_ev(&res->ev[3], TEV_IDLE_ENTER, 123, 3125540039000LL, 7);
	assert_int_equal(res->ev[3].state, 2);
	assert_int_equal(res->ret, -ERANGE);
	assert_where(res->err, "alike3.txt", 9);
	assert_has(res->err, "CPU [4096] out of range");
	free(res);

	/* the kernel's cpu_idle payload, and near misses of it */
	res = read_text("alike4.txt", "# tracer: nop\n"
		"          <idle>-0       [000] d..1.  3125.540034: cpu_idle: state=42949672950 cpu_id=0\n");
	assert_int_equal(res->ret, -ERANGE);
	assert_has(res->err, "cpu_idle: out of range: state=");
	free(res);
	res = read_text("alike5.txt", "# tracer: nop\n"
		"          <idle>-0       [000] d..1.  3125.540034: cpu_idle: state=4294967295  cpu_id=1\n"
		"          <idle>-0       [000] d..1.  3125.540035: cpu_idle: state=18446744073709551615 cpu_id=1\n"
		"          <idle>-0       [000] d..1.  3125.540036: cpu_idle: state=9 cpu_id=4095 x=1\n"
		"          <idle>-0       [000] d..1.  3125.540037: cpu_idle: cpu_id=2 state=3\n"
		"          <idle>-0       [000] d..1.  3125.540038: cpu_idle: state=1 cpu_id=0x\n");
	assert_int_equal(res->n, 4);
	assert_ev(&res->ev[0], TEV_IDLE_EXIT, 1, 3125540034000LL, 2);
	assert_ev(&res->ev[1], TEV_IDLE_EXIT, 1, 3125540035000LL, 3);
	assert_ev(&res->ev[2], TEV_IDLE_ENTER, 4095, 3125540036000LL, 4);
	assert_int_equal(res->ev[2].state, 9);
	assert_ev(&res->ev[3], TEV_IDLE_ENTER, 2, 3125540037000LL, 5);
	assert_int_equal(res->ev[3].state, 3);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "alike5.txt", 6);
	assert_has(res->err, "cpu_id=");
	free(res);
}

static void test_skipped_lines(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("skip.txt",
		"# ========\n"
		"# captured on: today\n"
		"\n"
		"         swapper     0 [000]  2730.243561922:                         power:cpu_idle: state=1 cpu_id=0\r\n"
		"Warning: 3 out of order events recorded.\n"
		"      cyclictest 14173 [000]  2579.784900773:               power:pm_qos_add_request: pm_qos_class=NETWORK_LATENCY value=5\n"
		"      cyclictest 14173 [000]  2579.784900774:               power:pm_qos_add_request: pm_qos_class=CPU_DMA_LATENCY value=5\n"
		"      cyclictest 14173 [000]  2579.784900775:               power:pm_qos_update_request: NETWORK_THROUGHPUT value=5\n"
		"      cyclictest 14173 [000]  2579.784900776:               power:pm_qos_update_request_timeout: CPU_DMA_LATENCY value=5 timeout=1\n"
		"         swapper     0 [000]  2730.243561923:                   probe:cpu_idle_x: (ffffffff81000000)\n"
		"         swapper     0 [000]  2730.243561924:                         power:cpu_idle: state=4294967295 cpu_id=0");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_ev(&res->ev[0], TEV_IDLE_ENTER, 0, 2730243561922LL, 4);
	assert_ev(&res->ev[1], TEV_QOS_ADD, 0, 2579784900774LL, 7);
	assert_int_equal(res->ev[1].value, 5);
	/* the last line has no newline */
	assert_ev(&res->ev[2], TEV_IDLE_EXIT, 0, 2730243561924LL, 11);
	free(res);
}

static void test_stdin(void **state)
{
	struct trace_reader *r;
	struct trace_event ev;
	char path[256], err[256];
	int saved, fd, n = 0;

	(void)state;
	write_text(path, sizeof(path), "stdin.txt", perf_sample);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	assert_int_equal(trace_open("-", &r, err, sizeof(err)), 0);
	while (trace_next(r, &ev) == 1)
		n++;
	assert_int_equal(n, 23);
	trace_close(r);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);

	/* an empty stdin names itself */
	fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	saved = dup(STDIN_FILENO);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	assert_int_equal(trace_open("-", &r, err, sizeof(err)), -EINVAL);
	assert_null(r);
	assert_has(err, "<stdin>: empty");
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

static void test_api_edges(void **state)
{
	struct trace_reader *r = NULL;
	char err[64];

	(void)state;
	assert_string_equal(trace_format_name(TRACE_FMT_PERF), "perf");
	assert_string_equal(trace_format_name(TRACE_FMT_FTRACE), "ftrace");
	assert_string_equal(trace_format_name(TRACE_FMT_IDLESTAT), "idlestat");
	assert_string_equal(trace_error(NULL), "");
	trace_close(NULL);
	assert_int_equal(trace_open(NULL, &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(trace_open("x", NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(trace_next(NULL, NULL), -EINVAL);
	assert_int_equal(trace_next_ref(NULL, NULL), -EINVAL);
	/* a tiny error buffer is cut, not overrun */
	assert_int_equal(trace_open("/nonexistent/trace/file", &r, err, 8), -ENOENT);
	assert_null(r);
	assert_int_equal(strlen(err), 7);
}

/* ---- the real traces ---- */

struct counts {
	unsigned long n[TEV_CPU_FREQ + 1];
};

static int read_counts(const char *path, struct counts *c, struct trace_info *info,
		       enum trace_format *fmt, double *secs)
{
	struct trace_reader *r;
	struct trace_event ev;
	char err[512];
	double t0 = now_s();
	int ret;

	memset(c, 0, sizeof(*c));
	ret = trace_open(path, &r, err, sizeof(err));
	if (ret)
		fail_msg("%s", err);
	*fmt = trace_format(r);
	*info = *trace_info(r);
	while ((ret = trace_next(r, &ev)) == 1) {
		assert_true(ev.type <= TEV_CPU_FREQ);
		assert_true(ev.cpu < 2);
		assert_true(ev.ts_ns > 0);
		c->n[ev.type]++;
	}
	if (ret)
		fail_msg("%s", trace_error(r));
	trace_close(r);
	*secs = now_s() - t0;
	return 0;
}

static void check_counts(const struct counts *c, const unsigned long *want)
{
	int t;

	for (t = 0; t <= TEV_CPU_FREQ; t++)
		if (c->n[t] != want[t])
			fail_msg("event type %d: %lu events, want %lu", t, c->n[t], want[t]);
}

/*
 * The counts, per type in enum trace_ev_type order, were computed with
 *   xz -dc FILE | awk '/[ :]cpu_idle: state=4294967295 /{ex++; next}
 *     /[ :]cpu_idle: state=/{en++; next} /[ :]cpu_idle_miss: /{miss++; next} ...'
 * one pattern "[ :]NAME: " per event (call_function_entry and
 * call_function_single_entry together), i.e. counted by grep, not by this
 * reader.
 */
static void test_real_io_ftrace(void **state)
{
	static const unsigned long want[] = {
		239, 238, 0, 0, 0, 0, 0, 1057, 174, 805, 0, 803, 6, 66, 249, 1027, 0, 0,
	};
	const char *path = TRACES "/io.ftrace.txt.xz";
	struct trace_info info;
	enum trace_format fmt;
	struct counts c;
	double secs;

	(void)state;
	if (access(path, R_OK))
		skip();
	read_counts(path, &c, &info, &fmt, &secs);
	assert_int_equal(fmt, TRACE_FMT_FTRACE);
	check_counts(&c, want);
}

static void test_real_idlestat(void **state)
{
	static const unsigned long want[] = {
		30475, 30475, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 4,
	};
	const char *path = TRACES "/nginx.idlestat.xz";
	struct trace_info info;
	enum trace_format fmt;
	struct counts c;
	double secs;

	(void)state;
	if (access(path, R_OK))
		skip();
	read_counts(path, &c, &info, &fmt, &secs);
	assert_int_equal(fmt, TRACE_FMT_IDLESTAT);
	assert_int_equal(info.nr_cpus, 2);
	assert_int_equal(info.nr_states, 2);
	assert_string_equal(info.state_names[0], "POLL");
	assert_string_equal(info.state_names[1], "haltpoll");
	check_counts(&c, want);
}

/* 550464 lines, every one an event of ours; about 0.5 s with xz */
static void test_real_nginx_perf(void **state)
{
	static const unsigned long want[] = {
		48178, 48178, 9, 0, 0, 0, 0, 162774, 160114, 2536, 324, 2531, 135, 48099, 3, 77583,
		0, 0,
	};
	const char *path = TRACES "/nginx-menu.perf.txt.xz";
	struct trace_info info;
	enum trace_format fmt;
	unsigned long total = 0;
	struct counts c;
	double secs;
	int t;

	(void)state;
	if (access(path, R_OK))
		skip();
	read_counts(path, &c, &info, &fmt, &secs);
	assert_int_equal(fmt, TRACE_FMT_PERF);
	check_counts(&c, want);
	for (t = 0; t <= TEV_CPU_FREQ; t++)
		total += c.n[t];
	assert_int_equal(total, 550464);
	print_message("nginx-menu.perf.txt.xz: 550464 events in %.2f s\n", secs);
}

/* perf does not always know the task: ":-1    -1"; and its PID/TID form */
static void test_perf_unknown_task(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("pidneg.txt",
		"         swapper     0 [000] 70122.900000000:                         power:cpu_idle: state=1 cpu_id=0\n"
		"             :-1    -1 [001] 70122.904797592:                  irq:irq_handler_entry: irq=36 name=virtio1-req.0\n"
		"             :-1    -1 [001] 70122.904809800:                     sched:sched_wakeup: comm=mandb pid=10904 prio=120 target_cpu=001\n"
		"         swapper     0/0     [000] 70122.905000000:                   power:cpu_idle: state=4294967295 cpu_id=0\n"
		"             :-1    -1/-1    [001] 70122.905000001:           power:pm_qos_update_request: CPU_DMA_LATENCY value=3\n"
		"      cyclictest  1234/1236  [001] 70122.905000002:           power:pm_qos_update_request: CPU_DMA_LATENCY value=4\n"
		"      cyclictest    -1 [001] 70122.905000003:           power:pm_qos_update_request: CPU_DMA_LATENCY value=5\n"
		/* perf -F comm,cpu,...: a COMM ending in "-91", no PID */
		"  memfd:sealed-91 [000] 70122.905000004:                    timer:hrtimer_cancel: hrtimer=0xffffc90001aa7a88\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_PERF);
	assert_int_equal(res->n, 8);
	assert_ev(&res->ev[1], TEV_IRQ, 1, 70122904797592LL, 2);
	assert_ev(&res->ev[2], TEV_WAKEUP, 1, 70122904809800LL, 3);
	assert_int_equal(res->ev[2].target_cpu, 1);
	assert_ev(&res->ev[3], TEV_IDLE_EXIT, 0, 70122905000000LL, 4);
	assert_ev(&res->ev[4], TEV_QOS_UPDATE, 1, 70122905000001LL, 5);
	assert_int_equal(res->ev[4].pid, -1);
	assert_int_equal(res->ev[5].pid, 1236);
	assert_int_equal(res->ev[6].pid, -1);
	assert_ev(&res->ev[7], TEV_HRTIMER_CANCEL, 0, 70122905000004LL, 8);
	free(res);

	/* lines that could be either, then ftrace's: an ftrace trace */
	res = read_text("either.txt",
		"          <idle>-0     [000]  3166.936400: power:cpu_idle: state=0 cpu_id=0\n"
		"          <idle>-0     [000]  3166.936500: cpu_idle: state=4294967295 cpu_id=0\n"
		"          <idle>-0     [000]  3166.936600: power:cpu_idle: state=0 cpu_id=0\n"
		"         swapper     0 [000]  3166.936700: power:cpu_idle: state=4294967295 cpu_id=0\n");
	assert_int_equal(res->ret, -EINVAL);
	assert_int_equal(res->n, 3);
	assert_int_equal(res->fmt, TRACE_FMT_PERF);	/* as trace_open() saw it */
	assert_where(res->err, "either.txt", 4);
	assert_has(res->err, "a perf line in an ftrace trace");
	free(res);

	/* genuinely mixed files are still refused, both ways */
	res = read_text("pidneg-mixed.txt",
		"             :-1    -1 [001] 70122.904797592:                  irq:irq_handler_entry: irq=36 name=virtio1-req.0\n"
		"          <idle>-0     [000] 70122.905000000: cpu_idle:             state=1 cpu_id=0\n");
	assert_int_equal(res->ret, -EINVAL);
	assert_int_equal(res->n, 1);
	assert_where(res->err, "pidneg-mixed.txt", 2);
	assert_has(res->err, "an ftrace line in a perf trace");
	free(res);
	res = read_text("pidneg-mixed2.txt",
		"          <idle>-0     [000] 70122.905000000: cpu_idle:             state=1 cpu_id=0\n"
		"             :-1    -1 [001] 70122.904797592:                  irq:irq_handler_entry: irq=36 name=virtio1-req.0\n");
	assert_int_equal(res->ret, -EINVAL);
	assert_int_equal(res->n, 1);
	assert_has(res->err, "a perf line in an ftrace trace");
	free(res);
}

/* trace-cmd report's plugins: sched_wakeup "comm:pid [prio] CPU:nnn", "function/0x0" */
static void test_tracecmd_plugins(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("tcmd.txt",
		"cpus=2\n"
		"auditlab:          python3-17158 [000] 70177.219536: sched_wakeup:         migration/0:18 [0] CPU:000\n"
		"auditlab:          python3-17158 [001] 70177.220017: hrtimer_expire_entry: hrtimer=0xffff888627d206f8 now=70177220016681 function=tick_nohz_handler/0x0\n"
		"auditlab:          python3-17158 [001] 70177.220022: hrtimer_start:        hrtimer=0xffff888627d306a8 function=dl_task_timer/0x0 expires=70178170022049 softexpires=70178170022049\n"
		"auditlab:          python3-17158 [001] 70177.220025: hrtimer_start:        hrtimer=0xffff888627d206f8 function=tick_nohz_handler/0x0 expires=70177224000000 softexpires=70177224000000\n"
		"auditlab:             bash-17160 [001] 70177.225691: sched_wakeup:         Web Content:17158 [120] success=1 CPU:001\n"
		/* --debug's suffix, --ts-diff's column */
		"auditlab:           <idle>-0     [000] 70177.224045: sched_wakeup:         rcu_preempt:15 [120] CPU:000 [11167:0xe4:16]\n"
		"auditlab:           <idle>-0     [000] 70177.224048: (+3)     cpu_idle:             state=4294967295 cpu_id=0\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_FTRACE);
	assert_int_equal(res->n, 7);
	assert_ev(&res->ev[0], TEV_WAKEUP, 0, 70177219536000LL, 2);
	assert_int_equal(res->ev[0].target_cpu, 0);
	assert_ev(&res->ev[1], TEV_HRTIMER_EXPIRE, 1, 70177220017000LL, 3);
	assert_true(res->ev[1].tick);
	assert_int_equal(res->ev[1].now_ns, 70177220016681LL);
	assert_false(res->ev[2].tick);
	assert_true(res->ev[3].tick);
	assert_int_equal(res->ev[3].expires_ns, 70177224000000LL);
	assert_int_equal(res->ev[4].target_cpu, 1);
	assert_int_equal(res->ev[5].target_cpu, 0);
	assert_ev(&res->ev[6], TEV_IDLE_EXIT, 0, 70177224048000LL, 8);
	free(res);
}

/* trace-cmd report -R: an expiry names its function by address only */
static void test_tick_by_address(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("tcmd-raw.txt",
		"cpus=2\n"
		/* before the tick was armed in the trace: not known to be the tick */
		"auditlab:          python3-17158 [001] 70177.220017: hrtimer_expire_entry:  hrtimer=0xffff888627d206f8 now=70177220016681 function=0xffffffff814428a0\n"
		"auditlab:          python3-17158 [001] 70177.220025: hrtimer_start:         hrtimer=0xffff888627d206f8 function=tick_nohz_handler expires=70177224000000 softexpires=70177224000000 mode=0 was_armed=0\n"
		"auditlab:           <idle>-0     [001] 70177.224026: hrtimer_expire_entry:  hrtimer=0xffff888627d206f8 now=70177224025254 function=0xffffffff814428a0\n"
		/* another CPU's, another timer's */
		"auditlab:           <idle>-0     [000] 70177.224027: hrtimer_expire_entry:  hrtimer=0xffff888627d206f8 now=70177224025254 function=0xffffffff814428a0\n"
		"auditlab:           <idle>-0     [001] 70177.224028: hrtimer_expire_entry:  hrtimer=0xffffc90001e13e30 now=70177224025254 function=0xffffffff81440000\n"
		/* the address reused by a named timer: no longer the tick */
		"auditlab:           <idle>-0     [001] 70177.224029: hrtimer_start:         hrtimer=0xffff888627d206f8 function=hrtimer_wakeup expires=70177225000000 softexpires=70177225000000 mode=1 was_armed=0\n"
		"auditlab:           <idle>-0     [001] 70177.225001: hrtimer_expire_entry:  hrtimer=0xffff888627d206f8 now=70177225000000 function=0xffffffff81440000\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 7);
	assert_false(res->ev[0].tick);
	assert_true(res->ev[1].tick);
	assert_ev(&res->ev[2], TEV_HRTIMER_EXPIRE, 1, 70177224026000LL, 4);
	assert_true(res->ev[2].tick);
	assert_false(res->ev[3].tick);
	assert_false(res->ev[4].tick);
	assert_false(res->ev[5].tick);
	assert_false(res->ev[6].tick);
	free(res);
}

/* perf script -F with more columns: +period, +misc, +tod; without [CPU]: refused */
static void test_perf_extra_columns(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("period.txt",
		"         swapper     0 [000] 70146.251359309:          1           timer:hrtimer_start: hrtimer=0xffff888627c206f8 function=tick_nohz_handler expires=70146368000000 softexpires=70146368000000 mode=0xa was_armed=1\n"
		"         swapper     0 [000] 70146.251368:          1                power:cpu_idle: state=1 cpu_id=0\n"
		"         swapper     0 [000] K     70146.251369:                power:cpu_idle: state=4294967295 cpu_id=0\n"
		"            perf 16153 [000] 2026-12-03 17:35:28.169400 70146.251370:            sched:sched_wakeup: comm=migration/0 pid=18 prio=0 target_cpu=001\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_PERF);
	assert_int_equal(res->n, 4);
	assert_ev(&res->ev[0], TEV_HRTIMER_START, 0, 70146251359309LL, 1);
	assert_true(res->ev[0].tick);
	assert_ev(&res->ev[1], TEV_IDLE_ENTER, 0, 70146251368000LL, 2);
	assert_ev(&res->ev[2], TEV_IDLE_EXIT, 0, 70146251369000LL, 3);
	assert_ev(&res->ev[3], TEV_WAKEUP, 0, 70146251370000LL, 4);
	assert_int_equal(res->ev[3].target_cpu, 1);
	free(res);

	/* +ip, +sym: after the payload, not the irq's name */
	res = read_text("ip.txt",
		"         swapper     0 [000] 70146.916766777:                  irq:irq_handler_entry: irq=42 name=virtio3-rx ffffffff813f727c __handle_irq_event_percpu\n"
		"         swapper     0 [000] 70146.916766778:                  irq:irq_handler_entry: irq=42 name=PCIe PME ffffffff813f727c\n"
		"         swapper     0 [000] 70146.916766779:                  irq:irq_handler_entry: irq=42 name=dead beef\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_string_equal(res->ev[0].name, "virtio3-rx");
	assert_string_equal(res->ev[1].name, "PCIe PME");
	assert_string_equal(res->ev[2].name, "dead beef");
	free(res);

	res = read_text("nocpu.txt",
		"70146.251368:                power:cpu_idle: state=1 cpu_id=0\n"
		"70146.251369:                power:cpu_idle: state=4294967295 cpu_id=0\n");
	assert_int_equal(res->ret, -EINVAL);
	assert_has(res->err, "not a trace in a known format");
	assert_has(res->err, "perf script");
	assert_has(res->err, "[CPU]");
	free(res);
}

/* a line cut short: the last one, no newline; the same with one is malformed */
static void test_truncated_line(void **state)
{
	static const char head[] =
		"         swapper     0 [000] 70135.070200000:                         power:cpu_idle: state=1 cpu_id=0\n"
		"         swapper     0 [000] 70135.070200598:                         power:cpu_idle: state=42";
	char text[512];
	struct result *res;

	(void)state;
	res = read_text("cut.txt", head);
	assert_int_equal(res->ret, -EINVAL);
	assert_int_equal(res->n, 1);
	assert_where(res->err, "cut.txt", 2);
	assert_has(res->err, "truncated");
	assert_has(res->err, "no cpu_id=");
	free(res);

	snprintf(text, sizeof(text), "%s\n", head);
	res = read_text("nocpuid.txt", text);
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "nocpuid.txt", 2);
	assert_has(res->err, "cpu_idle: no cpu_id=");
	assert_null(strstr(res->err, "truncated"));
	free(res);

	/* cut in the header, naming one of ours */
	res = read_text("cuthead.txt",
		"          <idle>-0     [000] 70177.224045: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0     [000] 70177.224");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 1);
	free(res);
	res = read_text("cuthead2.txt",
		"          <idle>-0     [000] 70177.224045: cpu_idle: state=1 cpu_id=0\n"
		"          <idle>-0     [000] 70177.2240 cpu_idle: stat");
	assert_int_equal(res->ret, -EINVAL);
	assert_where(res->err, "cuthead2.txt", 2);
	assert_has(res->err, "truncated");
	free(res);
}

/* lost-events markers: ftrace's, trace-cmd's, perf's */
static void test_lost_events(void **state)
{
	struct result *res;

	(void)state;
	res = read_text("lost.txt",
		"# tracer: nop\n"
		"        basename-14762   [001] dN.6. 70137.792541: sched_wakeup: comm=bash pid=14749 prio=120 target_cpu=001\n"
		"CPU:0 [LOST 1234 EVENTS]\n"
		"            curl-14759   [000] dnh.. 70137.793289: reschedule_entry: vector=253\n"
		"CPU:1 [LOST EVENTS]\n"
		"auditlab: CPU:1 [12 EVENTS DROPPED]\n"
		"CPU:0 [EVENTS DROPPED]\n"
		"CPU:0 [LOST 12 EVENTS] and more\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 6);
	assert_ev(&res->ev[1], TEV_LOST, 0, 70137792541000LL, 3);
	assert_int_equal(res->ev[1].value, 1234);
	assert_ev(&res->ev[3], TEV_LOST, 1, 70137793289000LL, 5);
	assert_int_equal(res->ev[3].value, 0);
	assert_ev(&res->ev[4], TEV_LOST, 1, 70137793289000LL, 6);
	assert_int_equal(res->ev[4].value, 12);
	assert_ev(&res->ev[5], TEV_LOST, 0, 70137793289000LL, 7);
	assert_int_equal(res->ev[5].value, 0);
	free(res);

	/*
	 * A marker is lent the time of the last event of ours, not of any
	 * line: a line we do not read, with a timestamp far ahead, must not
	 * put the marker there (reconstruction would take every later event
	 * for time going back, as fuzz_trace found).
	 */
	res = read_text("lost-after-other.txt",
		"# tracer: nop\n"
		"          <idle>-0       [000] dN.1.  3166.944075: reschedule_entry: vector=253\n"
		"          <idle>-0     [001] 70177.234026: not_ours: x=1\n"
		"CPU:0 [LOST 5 EVENTS]\n"
		"          <idle>-0       [001] d.h1.  3166.944085: reschedule_entry: vector=253\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_ev(&res->ev[1], TEV_LOST, 0, 3166944075000LL, 4);
	free(res);
	/* nor a line of an event we read but skip (another QoS class) */
	res = read_text("lost-after-skipped.txt",
		"# tracer: nop\n"
		"          <idle>-0       [000] dN.1.  3166.944075: reschedule_entry: vector=253\n"
		"            tuned-812     [001] ....  70177.234026: pm_qos_add_request: pm_qos_class=NETWORK_LATENCY value=10\n"
		"CPU:0 [LOST 5 EVENTS]\n"
		"          <idle>-0       [001] d.h1.  3166.944085: reschedule_entry: vector=253\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 3);
	assert_ev(&res->ev[1], TEV_LOST, 0, 3166944075000LL, 4);
	free(res);

	/* trace-cmd report: no "# tracer:", the first line a marker */
	res = read_text("lost-first.txt",
		"cpus=2\n"
		"CPU:1 [7 EVENTS DROPPED]\n"
		"          <idle>-0     [001] 70177.217751: call_function_single_entry: vector=251\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->fmt, TRACE_FMT_FTRACE);
	assert_int_equal(res->n, 2);
	assert_ev(&res->ev[0], TEV_LOST, 1, 0, 2);
	assert_int_equal(res->ev[0].value, 7);
	free(res);

	res = read_text("lost-perf.txt",
		"         swapper     0 [000] 70146.251368:                power:cpu_idle: state=1 cpu_id=0\n"
		"            perf 16153 [001] 70146.251400: PERF_RECORD_LOST lost 12\n"
		"            perf 16153 [-01] 70146.251401: PERF_RECORD_LOST lost 3\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 2);
	assert_ev(&res->ev[1], TEV_LOST, 1, 70146251400000LL, 2);
	assert_int_equal(res->ev[1].value, 12);
	free(res);

	res = read_text("lost-range.txt",
		"# tracer: nop\n"
		"CPU:4096 [LOST 1 EVENTS]\n");
	assert_int_equal(res->ret, -ERANGE);
	assert_where(res->err, "lost-range.txt", 2);
	assert_has(res->err, "lost-events marker out of range");
	free(res);
	res = read_text("lost-range2.txt",
		"# tracer: nop\n"
		"CPU:99999999999999999999999 [LOST 1 EVENTS]\n");
	assert_int_equal(res->ret, -ERANGE);
	free(res);
	res = read_text("lost-range3.txt",
		"# tracer: nop\n"
		"CPU:1 [99999999999999999999999 EVENTS DROPPED]\n");
	assert_int_equal(res->ret, -ERANGE);
	free(res);

	/* an ftrace line without FLAGS whose COMM is empty is still ftrace's */
	res = read_text("emptycomm.txt",
		"# tracer: nop\n"
		"          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0\n"
		"                -1234    [000] d..1.  3166.935487: cpu_idle: state=4294967295 cpu_id=0\n");
	assert_int_equal(res->ret, 0);
	assert_int_equal(res->n, 2);
	free(res);
}

/* ---- binary recordings ---- */

#define FIXTURES	SRCDIR "/tests/fixtures"

/* the file @src (xz) decompressed into tmpdir/@out: its size; the path in @path */
static size_t unxz_file(char *path, size_t plen, const char *src, const char *out)
{
	FILE *f;
	unsigned char *in, *buf;
	size_t in_len, in_pos = 0, pos = 0, cap = 64 << 20;
	uint64_t memlimit = UINT64_MAX;
	long n;

	f = fopen(src, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	in_len = (size_t)n;
	in = malloc(in_len);
	buf = malloc(cap);
	assert_non_null(in);
	assert_non_null(buf);
	assert_int_equal(fread(in, 1, in_len, f), in_len);
	fclose(f);
	assert_int_equal(lzma_stream_buffer_decode(&memlimit, 0, NULL, in, &in_pos, in_len, buf,
						   &pos, cap), LZMA_OK);
	tmp_path(path, plen, out);
	write_bytes(path, buf, pos);
	free(in);
	free(buf);
	return pos;
}

/*
 * trace_next() and trace_next_batch() (batches of @max) on @path: the same
 * events; @runs: the file lends runs (a file-mode perf.data), else one
 * event a call
 */
static void same_events_batched(const char *path, size_t max, bool runs)
{
	const struct trace_event *batch[7];
	struct trace_reader *r1, *r2;
	struct trace_event ev;
	char err[256];
	int a = 1, nb = 0, i;
	size_t batches = 0, n = 0;

	assert_true(max <= 7);
	assert_int_equal(trace_open(path, &r1, err, sizeof(err)), 0);
	assert_int_equal(trace_open(path, &r2, err, sizeof(err)), 0);
	assert_int_equal(trace_next_batch(r2, batch, 0), -EINVAL);
	while (a == 1) {
		nb = trace_next_batch(r2, batch, max);
		assert_true(nb <= (int)max);
		batches += nb > 0;
		for (i = 0; i < nb; i++) {
			a = trace_next(r1, &ev);
			assert_int_equal(a, 1);
			assert_memory_equal(&ev, batch[i], sizeof(ev));
			n++;
		}
		if (nb <= 0) {
			a = trace_next(r1, &ev);
			assert_int_equal(a, nb);
		}
	}
	assert_int_equal(nb, 0);
	assert_true(n > 200);
	if (max > 1 && runs)
		assert_true(batches < n);
	else
		assert_int_equal(batches, n);
	trace_close(r1);
	trace_close(r2);
}

/*
 * trace_next_ref() and trace_next_batch() lend the events trace_next()
 * copies: the same, one for one, on a perf.data file in file mode (where
 * they are lent from the reader's queue), in pipe mode and on a text
 * trace (from the reader's own)
 */
static void test_next_ref_same_events(void **state)
{
	static const char *const fixtures[] = {
		"zstd-records.perf.data.xz", "pipe-mode.perf.data.xz", "pipe-mode.perf.txt.xz",
	};
	const struct trace_event *lent;
	struct trace_reader *r1, *r2;
	struct trace_event ev;
	char path[512], err[256];
	size_t i, n;
	int a, b;

	(void)state;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", FIXTURES, fixtures[i]);
		assert_int_equal(trace_open(path, &r1, err, sizeof(err)), 0);
		assert_int_equal(trace_open(path, &r2, err, sizeof(err)), 0);
		n = 0;
		do {
			a = trace_next(r1, &ev);
			b = trace_next_ref(r2, &lent);
			assert_int_equal(a, b);
			if (a == 1)
				assert_memory_equal(&ev, lent, sizeof(ev));
			n += a == 1;
		} while (a == 1);
		assert_int_equal(a, 0);
		assert_true(n > 200);
		trace_close(r1);
		trace_close(r2);
	}
	/* file mode, the file itself (read through a mapped window) */
	unxz_file(path, sizeof(path), FIXTURES "/zstd-records.perf.data.xz", "ref.perf.data");
	assert_int_equal(trace_open(path, &r1, err, sizeof(err)), 0);
	assert_int_equal(trace_open(path, &r2, err, sizeof(err)), 0);
	do {
		a = trace_next(r1, &ev);
		b = trace_next_ref(r2, &lent);
		assert_int_equal(a, b);
		if (a == 1)
			assert_memory_equal(&ev, lent, sizeof(ev));
	} while (a == 1);
	assert_int_equal(a, 0);
	trace_close(r1);
	trace_close(r2);
	for (i = 1; i <= 7; i += 3) {
		same_events_batched(path, i, true);
		snprintf(path, sizeof(path), "%s/%s", FIXTURES, "pipe-mode.perf.data.xz");
		same_events_batched(path, i, false);
		snprintf(path, sizeof(path), "%s/%s", FIXTURES, "pipe-mode.perf.txt.xz");
		same_events_batched(path, i, false);
		tmp_path(path, sizeof(path), "ref.perf.data");
	}
}

/*
 * A perf.data file cut short by another program while it is read (it is
 * read through a window mapped on it): a clear error, no crash (its pages
 * past the new end fault: SIGBUS), and only the events read before; whole,
 * the same file reads to its end.  Cut at a page's start and inside one
 * (whose rest reads as zeros, without a fault), ahead of what was read.
 */
static void test_perf_file_shrinks_while_read(void **state)
{
	static const off_t cuts[] = { 2 * 4096, 900000 + 100 };
	const char *src = TRACES "/perf.data/video-haltpoll200.perf.data.xz";
	struct trace_reader *r;
	struct trace_event ev;
	char path[512], err[256];
	size_t before, after, whole = 0, i;
	int ret;

	(void)state;
	if (access(src, R_OK))
		skip();
	trace_read_mapped(true);	/* as the cpuidle command asks */
	assert_true(unxz_file(path, sizeof(path), src, "shrink.perf.data") > 1000000);
	assert_int_equal(trace_open(path, &r, err, sizeof(err)), 0);
	while ((ret = trace_next(r, &ev)) == 1)
		whole++;
	assert_int_equal(ret, 0);
	trace_close(r);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		unxz_file(path, sizeof(path), src, "shrink.perf.data");
		assert_int_equal(trace_open(path, &r, err, sizeof(err)), 0);
		before = after = 0;
		while (before < 10 && (ret = trace_next(r, &ev)) == 1)
			before++;
		assert_int_equal(before, 10);
		assert_true(trace_bytes_read(r) < (uint64_t)cuts[1]);
		assert_int_equal(truncate(path, cuts[i]), 0);
		while ((ret = trace_next(r, &ev)) == 1)
			after++;
		assert_int_equal(ret, -EIO);
		assert_non_null(strstr(trace_error(r), "shrank while it was read"));
		assert_non_null(strstr(trace_error(r), "shrink.perf.data"));
		assert_true(before + after < whole);
		assert_int_equal(trace_next(r, &ev), -EIO);	/* and it stays failed */
		trace_close(r);
	}
}

/*
 * Not asked to map (the default, as in the Python binding), the library
 * leaves the process's signals alone: a perf.data file is read whole with
 * read(2), and SIGBUS keeps its disposition (in a child, so that no
 * earlier test's mapped read has put the handler there).
 */
static void test_perf_unmapped_leaves_signals(void **state)
{
	const char *src = TRACES "/perf.data/video-haltpoll200.perf.data.xz";
	char path[512];
	int status;
	pid_t pid;

	(void)state;
	if (access(src, R_OK))
		skip();
	assert_true(unxz_file(path, sizeof(path), src, "unmapped.perf.data") > 1000000);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct trace_reader *r;
		struct trace_event ev;
		struct sigaction sa;
		char err[256];
		size_t n = 0;
		int ret;

		signal(SIGBUS, SIG_DFL);
		trace_read_mapped(false);
		if (trace_open(path, &r, err, sizeof(err)))
			_exit(2);
		while ((ret = trace_next(r, &ev)) == 1)
			n++;
		trace_close(r);
		if (ret || n < 1000)
			_exit(3);
		if (sigaction(SIGBUS, NULL, &sa) || (sa.sa_flags & SA_SIGINFO) ||
		    sa.sa_handler != SIG_DFL)
			_exit(4);	/* a handler was put in place unasked */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * trace_read_info(): a binary file's description from PATH.recording,
 * its header and formats not read (a perf.data cut inside its header
 * still gives it, where trace_open() refuses the file); a text trace's
 * from its comments, as trace_open() gives them; a malformed side file and
 * a missing file are errors naming them.
 */
static void test_read_info(void **state)
{
	static const char desc[] = "# cpuidle-recording version 1\n"
				   "# cpuidle-recording driver haltpoll\n";
	static const char want[] = "version 1\ndriver haltpoll\n";
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader *r;
	char path[512], side[600], err[700];
	size_t len;

	(void)state;
	assert_non_null(info);
	len = unxz_file(path, sizeof(path), FIXTURES "/zstd-records.perf.data.xz",
			"info.perf.data");
	snprintf(side, sizeof(side), "%s.recording", path);
	write_bytes(side, desc, sizeof(desc) - 1);
	assert_int_equal(trace_read_info(path, info, err, sizeof(err)), 0);
	assert_int_equal(info->recording_len, sizeof(want) - 1);
	assert_memory_equal(info->recording, want, sizeof(want) - 1);
	/* as trace_open() gives it */
	assert_int_equal(trace_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(trace_info(r)->recording_len, sizeof(want) - 1);
	assert_memory_equal(trace_info(r)->recording, want, sizeof(want) - 1);
	trace_close(r);
	/* cut inside its header: the events cannot be read, the description can */
	assert_true(len > 200);
	assert_int_equal(truncate(path, 60), 0);
	assert_int_not_equal(trace_open(path, &r, err, sizeof(err)), 0);
	memset(info, 0xa5, sizeof(*info));
	assert_int_equal(trace_read_info(path, info, err, sizeof(err)), 0);
	assert_int_equal(info->recording_len, sizeof(want) - 1);
	assert_memory_equal(info->recording, want, sizeof(want) - 1);
	/* a side file that is not a description */
	write_bytes(side, "driver haltpoll\n", 16);
	assert_int_equal(trace_read_info(path, info, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "info.perf.data.recording:1: not a recording's description"));
	unlink(side);
	/* a text trace: its comments */
	write_text(path, sizeof(path), "info.txt",
		"# cpuidle-recording version 1\n"
		"# cpuidle-recording driver haltpoll\n"
		"          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0\n");
	assert_int_equal(trace_read_info(path, info, err, sizeof(err)), 0);
	assert_int_equal(info->recording_len, sizeof(want) - 1);
	assert_memory_equal(info->recording, want, sizeof(want) - 1);
	tmp_path(path, sizeof(path), "no-such.perf.data");
	assert_int_equal(trace_read_info(path, info, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no-such.perf.data"));
	assert_int_equal(trace_read_info(path, NULL, err, sizeof(err)), -EINVAL);
	free(info);
}

/* ---- setup ---- */

static int group_setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_trace.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char path[512];
	struct dirent *d;
	DIR *dir;

	(void)state;
	dir = opendir(tmpdir);
	if (dir) {
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, d->d_name);
			unlink(path);
		}
		closedir(dir);
	}
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_every_field),
		cmocka_unit_test(test_ftrace_every_field),
		cmocka_unit_test(test_ftrace_variants),
		cmocka_unit_test(test_idlestat),
		cmocka_unit_test(test_comm_spaces_brackets),
		cmocka_unit_test(test_order_preserved),
		cmocka_unit_test(test_timestamps_exact),
		cmocka_unit_test(test_xz_gz_roundtrip),
		cmocka_unit_test(test_truncated_and_corrupt),
		cmocka_unit_test(test_empty_missing_directory),
		cmocka_unit_test(test_dev_zero_and_noise),
		cmocka_unit_test(test_garbage_text),
		cmocka_unit_test(test_absurd_numbers),
		cmocka_unit_test(test_malformed_event_lines),
		cmocka_unit_test(test_mixed_ftrace_then_perf),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_lines_alike),
		cmocka_unit_test(test_skipped_lines),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_perf_unknown_task),
		cmocka_unit_test(test_tracecmd_plugins),
		cmocka_unit_test(test_tick_by_address),
		cmocka_unit_test(test_perf_extra_columns),
		cmocka_unit_test(test_truncated_line),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_api_edges),
		cmocka_unit_test(test_next_ref_same_events),
		cmocka_unit_test(test_perf_file_shrinks_while_read),
		cmocka_unit_test(test_perf_unmapped_leaves_signals),
		cmocka_unit_test(test_read_info),
		cmocka_unit_test(test_real_io_ftrace),
		cmocka_unit_test(test_real_idlestat),
		cmocka_unit_test(test_real_nginx_perf),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
