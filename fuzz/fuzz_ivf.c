// SPDX-License-Identifier: MIT
/*
 * fuzz_ivf.c - any bytes as an interval file (cpuidle-ivf(5)): ivf_open()
 * and every ivf_next(), then, for a file that reads whole, the replay that
 * "cpuidle sim FILE.ivf" makes of it.
 *
 * Every section of the file is checksummed, so almost every mutation
 * fails a checksum and tests nothing past it.  The first byte of the input
 * therefore says what to mend before the file is written (the rest of the
 * input is the file):
 *
 *   bit 0     the checksums: the header's CRC-32, each block's word hash
 *             (by the header's version; a version 5 block's over the
 *             length its head gives), the trailer's CRC-32, and that of
 *             the trace notes after it (version 6; 7 adds the residency
 *             skew and the starting polling windows)
 *   bit 1     the header's record count: the records the blocks hold
 *   bit 2     the header's trailer offset: where the blocks end, if a
 *             trailer's magic is there, else 0 (no trailer)
 *   bits 3-4  the platform of the replay: laptop, haltpoll-vm, juno-r2
 *             (clusters, domain states), laptop
 *   bits 5-7  the governor: ladder, menu, teo, haltpoll, hazard, oracle,
 *             then menu and haltpoll replaying the kernel's idle loop
 *             (cpuidle fidelity)
 *
 * A file that reads whole is also read back as the events it was built
 * from, as "cpuidle stats FILE.ivf" and "cpuidle diff" read it
 * (trace_open_intervals(), kstats_read()): it tallies, or fails with a
 * message naming the file (a crafted file's CPUs may go back in time),
 * its events bounded by FUZZ_EVENTS_ENTRIES kernel entries in all.
 *
 * A record ivf_next() returns keeps every rule cpuidle-ivf(5) states; an
 * error names the file and an offset and stays; a file that reads whole
 * replays without error (but for more CPUs than the platform has), its
 * intervals all replayed or skipped as partial.  The replay is bounded
 * however long its intervals (libcpuidle-replay(7), BOUNDED WORK): each
 * replays FUZZ_EXACT entries one by one before its steady state is looked
 * for, and past 16 times that is estimated, so crafted intervals of days
 * reach that path; files of more than FUZZ_REPLAY_RECORDS intervals or
 * FUZZ_REPLAY_CPUS CPUs are only read.
 */
#include <zlib.h>

#include "fuzz.h"

#include "intervals.h"
#include "kstats.h"
#include "ivf_source.h"
#include "lab_trace.h"
#include "libcpuidle.h"
#include "replay.h"

#define FUZZ_IVF_MAX		(1 << 20)
#define FUZZ_EXACT		64
#define FUZZ_REPLAY_RECORDS	512
#define FUZZ_REPLAY_CPUS	16
#define BLOCK_MAX		4096
#define FUZZ_EVENTS_ENTRIES	200000

static const char *const platforms[] = { "laptop", "haltpoll-vm", "juno-r2", "laptop" };
static const char *const governors[] = { "ladder", "menu", "teo", "haltpoll", "hazard",
					 CPUIDLE_LAB_ORACLE, "menu", "haltpoll" };

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* cpuidle-ivf(5)'s block check: FNV-1a over words, one lane or four */
static uint32_t block_sum(const uint8_t *p, size_t n, unsigned int version)
{
	const uint64_t basis = 0xcbf29ce484222325ull, prime = 0x100000001b3ull;
	uint64_t lane[4] = { basis, basis, basis, basis }, h = basis;
	size_t i;
	int k;

	if (version < 3) {
		for (i = 0; i + 8 <= n; i += 8)
			h = (h ^ get64(p + i)) * prime;
		return (uint32_t)(h ^ (h >> 32));
	}
	for (i = 0; i + 32 <= n; i += 32)
		for (k = 0; k < 4; k++)
			lane[k] = (lane[k] ^ get64(p + i + 8 * k)) * prime;
	for (k = 0; i + 8 <= n; i += 8, k++)
		lane[k] = (lane[k] ^ get64(p + i)) * prime;
	for (k = 0; k < 4; k++)
		h = (h ^ lane[k]) * prime;
	return (uint32_t)(h ^ (h >> 32));
}

/*
 * Version 6 on: the trace notes' CRC-32, if "IVT1" is at @at (version 7
 * adds a bitmap and a 32-bit window per CPU)
 */
static void mend_notes(uint8_t *f, size_t len, uint64_t at)
{
	uint64_t cpus = get32(f + 16), words = (cpus + 63) / 64, n = 72 + 8 * words;

	if ((f[8] | f[9] << 8) >= 7) {	/* and the description, its length first */
		n += 8 * words + 4 * cpus;
		if (at + 4 + n + 4 > len)
			return;
		n += 4 + get32(f + at + 4 + n);
	}

	if (at + 4 > len || memcmp(f + at, "IVT1", 4) || at + 4 + n + 4 > len)
		return;
	put32(f + at + 4 + n, (uint32_t)crc32(0L, f + at + 4, (uInt)n));
}

/* Mend what @how says in the file @f of @len bytes. */
static void mend(uint8_t *f, size_t len, unsigned int how)
{
	unsigned int version, rec;
	uint64_t records = 0, at = IVF_HEADER_SIZE, trailer;
	uint32_t count, i;
	uLong c;

	if (len < IVF_HEADER_SIZE)
		return;
	version = f[8] | f[9] << 8;
	rec = version == 1 ? IVF_V1_RECORD_SIZE : version < 4 ? IVF_V2_RECORD_SIZE :
	      IVF_RECORD_SIZE;
	/*
	 * The blocks, as far as they go: from version 5 "IVB5", a count and
	 * the records' length (short and full records), before it "IVB1" and
	 * a count of records of one size.
	 */
	for (;;) {
		uint64_t head = version >= 5 ? 12 : 8, body;

		if (at + head > len || memcmp(f + at, version >= 5 ? "IVB5" : "IVB1", 4))
			break;
		count = get32(f + at + 4);
		body = version >= 5 ? get32(f + at + 8) : (uint64_t)count * rec;
		if (!count || count > BLOCK_MAX || at + head + body + 4 > len)
			break;
		if (how & 1)
			put32(f + at + head + body, block_sum(f + at + head, body, version));
		records += count;
		at += head + body + 4;
	}
	if (how & 2)
		put64(f + 40, records);
	if (how & 4)
		put64(f + 48, at + 8 <= len && !memcmp(f + at, "IVN1", 4) ? at : 0);
	/* the trailer */
	trailer = get64(f + 48);
	if ((how & 1) && trailer >= IVF_HEADER_SIZE && trailer <= len - 8 &&
	    !memcmp(f + trailer, "IVN1", 4)) {
		count = get32(f + trailer + 4);
		if (count <= IV_MAX_IRQ &&
		    (uint64_t)count * (2 + LAB_IRQ_NAME_LEN) + 4 <= len - 8 - trailer) {
			c = crc32(0L, Z_NULL, 0);
			for (i = 0; i < count; i++)
				c = crc32(c, f + trailer + 8 + (size_t)i * (2 + LAB_IRQ_NAME_LEN),
					  2 + LAB_IRQ_NAME_LEN);
			put32(f + trailer + 8 + (size_t)count * (2 + LAB_IRQ_NAME_LEN),
			      (uint32_t)c);
			mend_notes(f, len, trailer + 12 + (uint64_t)count * (2 + LAB_IRQ_NAME_LEN));
		}
	}
	if (how & 1)
		put32(f + 60, (uint32_t)crc32(0L, f, 60));
}

/* The rules of cpuidle-ivf(5) for a record the reader returned. */
static void check_record(const struct ivf_info *info, const struct idle_interval *iv)
{
	uint64_t sum = 0;
	int i, n = iv->nr_entries < IV_MAX_KSTATES ? iv->nr_entries : IV_MAX_KSTATES;

	FUZZ_CHECK(iv->cpu < info->nr_cpus);
	FUZZ_CHECK(iv->idle_ns >= 0 && iv->busy_ns >= 0 && iv->timer_ns >= 0 &&
		   iv->kernel_idle_ns >= 0 && iv->kernel_loop_ns >= 0 && iv->qos_us >= 0);
	FUZZ_CHECK(iv->start_ns >= info->first_ns && iv->start_ns <= info->last_ns);
	/* the interval and the busy time after it end by the trace's last event */
	FUZZ_CHECK(iv->idle_ns <= info->last_ns - iv->start_ns);
	FUZZ_CHECK(iv->busy_ns <= info->last_ns - iv->start_ns - iv->idle_ns);
	FUZZ_CHECK(iv->wake < IV_WAKE_NR);
	FUZZ_CHECK(!(iv->flags & ~(IV_PARTIAL_START | IV_PARTIAL_END | IV_TIMER_UNKNOWN |
				   IV_KERNEL_ABOVE | IV_KERNEL_BELOW | IV_TASK_WAKE |
				   IV_KSTATES_REST | IV_TIMER_GUESSED)));
	/* a reconstructed timer is a known one, and only version 8 has them */
	FUZZ_CHECK(!(iv->flags & IV_TIMER_GUESSED) ||
		   (!(iv->flags & IV_TIMER_UNKNOWN) && info->version >= 8));
	FUZZ_CHECK(!(iv->flags & IV_KSTATES_REST) ||
		   (iv->nr_entries > IV_MAX_KSTATES && iv->kstates[IV_MAX_KSTATES - 1] >= 0));
	FUZZ_CHECK(!(iv->flags & IV_TASK_WAKE) || iv->wake == IV_WAKE_UNKNOWN);
	FUZZ_CHECK(iv->irq == -1 || (iv->irq >= 0 && iv->wake == IV_WAKE_IRQ));
	for (i = 0; i < IV_MAX_KSTATES; i++) {
		FUZZ_CHECK(iv->kstates[i] >= -1 && iv->kstates[i] < LAB_MAX_STATES);
		FUZZ_CHECK(!iv->kwindow[i] || (iv->kwindow_mask & (1u << i)));
		FUZZ_CHECK(!iv->kresidency[i] || i < n);
		sum += iv->kresidency[i];
	}
	FUZZ_CHECK(sum <= (uint64_t)iv->kernel_idle_ns);
	FUZZ_CHECK(!(iv->kwindow_mask >> n));
	/* tick wake-ups only of entries another one followed */
	FUZZ_CHECK(iv->nr_entries > IV_MAX_KSTATES || !(iv->ktick_mask >> (n ? n - 1 : 0)));
	FUZZ_CHECK((unsigned int)__builtin_popcount(iv->kwindow_mask) <= iv->nr_kwindows);
}

/* The trace notes the reader accepted: version 6's or 7's, consistent; else none. */
static void check_notes(const struct ivf_info *info)
{
	const struct iv_notes *n = &info->notes;
	unsigned int cpu, bits = 0;

	FUZZ_CHECK(info->notes_known == (info->version >= 6));
	for (cpu = 0; cpu < LAB_MAX_CPUS; cpu++)
		if ((n->idle_less[cpu / 64] >> (cpu % 64)) & 1) {
			FUZZ_CHECK(cpu < info->nr_cpus);
			bits++;
		}
	FUZZ_CHECK(bits == n->nr_idle_less);
	FUZZ_CHECK(n->lost_gaps ? n->lost_cpu < info->nr_cpus :
		   !n->lost_events && !n->lost_line && !n->lost_n && !n->lost_cpu);
	FUZZ_CHECK(n->clock_offset_ns || !n->clock_line);
	/* version 7: the skew and each CPU's starting window, where known */
	FUZZ_CHECK(n->residency_skew_ns >= 0 && n->residency_skew_ns <= UINT32_MAX);
	FUZZ_CHECK(info->version >= 7 || !n->residency_skew_ns);
	for (cpu = 0; cpu < LAB_MAX_CPUS; cpu++)
		if ((n->window_known[cpu / 64] >> (cpu % 64)) & 1)
			FUZZ_CHECK(cpu < info->nr_cpus && info->version >= 7);
		else
			FUZZ_CHECK(!n->window_start[cpu]);
	FUZZ_CHECK(n->recording_len <= LAB_RECORDING_MAX);
	FUZZ_CHECK(!n->recording_len || (n->recording[n->recording_len - 1] == '\n' &&
					!memchr(n->recording, 0, n->recording_len)));
	if (!info->notes_known)
		FUZZ_CHECK(!n->clock_offset_ns && !n->clock_unknown && !n->lost_gaps);
}

static void replay(const char *path, const struct ivf_info *info, uint64_t records,
		   unsigned int how)
{
	static struct cpuidle_platform plat[4];
	static bool loaded;
	const unsigned int g = how >> 5;
	struct cpuidle_lab_run cfg = {
		.platform = &plat[(how >> 3) & 3],
		.governor = governors[g],
		.qos_us = -1,
		.kernel_loop = g >= 6,
		.exact_entries = FUZZ_EXACT,
	};
	struct cpuidle_lab_result *res = malloc(sizeof(*res));
	struct cpuidle_lab_trace *trace;
	char err[512];
	unsigned int i;
	int ret;

	if (!loaded) {
		for (i = 0; i < 4; i++)
			FUZZ_CHECK(!cpuidle_platform_load(platforms[i], &plat[i], err, sizeof(err)));
		loaded = true;
	}
	FUZZ_CHECK(res);
	FUZZ_CHECK(!lab_trace_from_source(ivf_replay_open, (void *)path, info->nr_cpus,
					  info->notes_known ? &info->notes : NULL, &trace));
	cfg.trace = trace;
	ret = cpuidle_lab_replay(&cfg, res);
	cpuidle_lab_trace_close(trace);
	if (ret == -ERANGE && cfg.platform->nr_cpus && info->nr_cpus > cfg.platform->nr_cpus) {
		free(res);
		return;		/* more CPUs than the platform: refused, as it should be */
	}
	if (ret)
		fprintf(stderr, "replay of a sound interval file: %d %s\n", ret, res->error_msg);
	FUZZ_CHECK(!ret);
	FUZZ_CHECK(res->intervals + res->skipped == records);
	FUZZ_CHECK(res->approximated <= res->extrapolated && res->extrapolated <= res->entries);
	free(res);
}

/* @path's intervals as events, tallied as stats and diff tally them */
static void read_back(const char *path)
{
	const struct kstats_want every = { .wakeups = true, .freqs = true };
	struct kstats ks;
	char err[1024] = "";
	int ret = kstats_read(path, NULL, &every, &ks, NULL, err, sizeof(err));

	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -ERANGE);
		FUZZ_CHECK(!strncmp(err, path, strlen(path)));
		return;
	}
	FUZZ_CHECK(ks.from_intervals);
	FUZZ_CHECK(ks.approx.entries <= FUZZ_EVENTS_ENTRIES);
	kstats_free(&ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ivf_reader *r;
	struct idle_interval iv;
	struct fuzz_file f;
	uint64_t records = 0, entries = 0;
	unsigned int how;
	char err[1024];
	uint8_t *buf;
	int ret;

	if (!size || size > FUZZ_IVF_MAX)
		return 0;
	how = data[0];
	buf = malloc(size);
	FUZZ_CHECK(buf);
	memcpy(buf, data + 1, size - 1);
	mend(buf, size - 1, how);
	fuzz_file_open(&f, "ivf");
	fuzz_file_write(&f, buf, size - 1);
	free(buf);

	memset(err, 0, sizeof(err));
	ret = ivf_open(f.path, &r, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(!strncmp(err, f.path, strlen(f.path)) && err[strlen(f.path)] == ':');
		goto out;
	}
	FUZZ_CHECK(ivf_reader_info(r)->nr_cpus >= 1 &&
		   ivf_reader_info(r)->nr_cpus <= LAB_MAX_CPUS);
	FUZZ_CHECK(ivf_reader_info(r)->first_ns >= 0 &&
		   ivf_reader_info(r)->first_ns <= ivf_reader_info(r)->last_ns);
	check_notes(ivf_reader_info(r));
	while ((ret = ivf_next(r, &iv)) > 0) {
		check_record(ivf_reader_info(r), &iv);
		records++;
		entries += iv.nr_entries;
	}
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(!strncmp(ivf_error(r), f.path, strlen(f.path)));
		FUZZ_CHECK(strstr(ivf_error(r), ": offset "));
		FUZZ_CHECK(ivf_next(r, &iv) == -EINVAL);	/* and it stays */
	}
	ivf_close(r);
	if (!ret && records && records <= FUZZ_REPLAY_RECORDS) {
		struct ivf_reader *again;

		FUZZ_CHECK(!ivf_open(f.path, &again, err, sizeof(err)));
		if (ivf_reader_info(again)->nr_cpus <= FUZZ_REPLAY_CPUS)
			replay(f.path, ivf_reader_info(again), records, how);
		ivf_close(again);
	}
	if (!ret && entries <= FUZZ_EVENTS_ENTRIES)
		read_back(f.path);
out:
	fuzz_file_close(&f);
	return 0;
}
