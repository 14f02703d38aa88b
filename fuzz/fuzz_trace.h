/* SPDX-License-Identifier: MIT */
/*
 * fuzz_trace.h - the trace targets' common run: a trace, whatever bytes it
 * holds, through what "cpuidle convert" and "cpuidle stats" do with it.
 *
 *   1. lab_convert(): the streaming reader (format detection, xz and gzip,
 *      every event's payload) into reconstruction into an interval file;
 *   2. the interval file read back (ivf_open(), ivf_next()): what convert
 *      writes, sim must accept, every record and the count;
 *   3. kstats_from_trace() ("cpuidle stats"), with a state table to judge
 *      stays against: it reads the same events, so it fails exactly when
 *      convert fails to read them; its wake-up and frequency tables hold
 *      together (fuzz_trace_tables()).  Bytes that make an interval file
 *      (its magic first) are no trace to convert, which refuses them, but
 *      kstats reads them back as events (trace_open_intervals()): it must
 *      tally them or fail naming the file, and fuzz_ivf holds the rest.
 *
 * Every failure must come with a message that names the file.
 */
#ifndef FUZZ_FUZZ_TRACE_H
#define FUZZ_FUZZ_TRACE_H

#include "fuzz.h"

#include "convert.h"
#include "ivf.h"
#include "kstats.h"
#include "libcpuidle.h"
#include "trace.h"

/* Larger inputs are skipped: they add time, not paths. */
#define FUZZ_TRACE_MAX	(1 << 20)

/*
 * stats -w and -f's tables: a source's early and late are among its
 * periods (none without a state table); a CPU's frequencies are distinct,
 * lowest first, each hit a stretch of more than 0 ns
 */
static inline void fuzz_trace_tables(const struct kstats *ks)
{
	unsigned int cpu, i;

	for (cpu = 0; cpu < ks->wake.nr_cpus; cpu++)
		for (i = 0; i < ks->wake.cpu[cpu].nr; i++) {
			const struct kwake_source *w = &ks->wake.cpu[cpu].src[i];

			FUZZ_CHECK(w->early + w->late <= w->count);
			FUZZ_CHECK(kwake_judged(&ks->wake) || (!w->early && !w->late));
		}
	for (cpu = 0; cpu < ks->freq.nr_cpus; cpu++)
		for (i = 0; i < ks->freq.cpu[cpu].nr; i++) {
			const struct kfreq_row *f = &ks->freq.cpu[cpu].rows[i];

			FUZZ_CHECK(!i || ks->freq.cpu[cpu].rows[i - 1].khz < f->khz);
			FUZZ_CHECK(!f->hits || (f->min_ns > 0 && f->min_ns <= f->max_ns &&
						f->total_ns >= (uint64_t)f->max_ns));
		}
}

static inline void fuzz_trace_run(const void *prefix, size_t plen, const uint8_t *data,
				  size_t size)
{
	static struct cpuidle_platform platform;
	static int platform_ret = 1;
	struct fuzz_file in, out;
	struct ivf_reader *r;
	struct idle_interval iv;
	struct iv_stats stats;
	struct kstats ks;
	struct trace_info info;
	char err[1024], kerr[1024];
	uint64_t n = 0;
	int ret, kret;

	if (size > FUZZ_TRACE_MAX)
		return;
	if (platform_ret) {
		trace_read_mapped(true);	/* files read as the cpuidle command reads them */
		platform_ret = cpuidle_platform_load("haltpoll-vm", &platform, err, sizeof(err));
		FUZZ_CHECK(!platform_ret);
	}
	fuzz_file_open(&in, "trace");
	fuzz_file_write(&in, prefix, plen);
	fuzz_file_write(&in, data, size);
	fuzz_file_open(&out, "ivf");

	memset(err, 0, sizeof(err));
	ret = lab_convert(in.path, out.path, &stats, NULL, NULL, err, sizeof(err));
	FUZZ_CHECK(ret <= 0);
	if (ret) {
		/* "FILE: what" or "FILE:LINE: what" */
		FUZZ_CHECK(!strncmp(err, in.path, strlen(in.path)) && err[strlen(in.path)] == ':');
	} else {
		FUZZ_CHECK(stats.intervals > 0);
		ret = ivf_open(out.path, &r, err, sizeof(err));
		if (ret)
			fprintf(stderr, "convert wrote what ivf_open() refuses: %s\n", err);
		FUZZ_CHECK(!ret);
		FUZZ_CHECK(ivf_reader_info(r)->nr_cpus == stats.nr_cpus);
		while ((ret = ivf_next(r, &iv)) > 0)
			n++;
		if (ret)
			fprintf(stderr, "convert wrote what ivf_next() refuses: %s\n", ivf_error(r));
		FUZZ_CHECK(!ret);
		FUZZ_CHECK(n == stats.intervals);
		ivf_close(r);
	}

	memset(kerr, 0, sizeof(kerr));
	kret = kstats_from_trace(in.path, &platform, &ks, &info, kerr, sizeof(kerr));
	FUZZ_CHECK(kret <= 0);
	if (ivf_is_file(in.path) == 1) {
		FUZZ_CHECK(ret && strstr(err, "an interval file"));
		FUZZ_CHECK(!kret || (!strncmp(kerr, in.path, strlen(in.path)) &&
				     kerr[strlen(in.path)] == ':'));
		if (!kret)
			kstats_free(&ks);
	} else if (kret) {
		FUZZ_CHECK(!strncmp(kerr, in.path, strlen(in.path)) &&
			   kerr[strlen(in.path)] == ':');
		/*
		 * the same reader failed in convert, with the same message; but
		 * for trace.dat's child given up by the wall clock (loaded
		 * machine, or a child stuck after the fork from the fuzzer's
		 * threads), which one run may hit and not the other
		 */
		FUZZ_CHECK((ret == kret && !strcmp(err, kerr)) ||
			   strstr(err, "made no progress") || strstr(kerr, "made no progress"));
	} else {
		/*
		 * convert read it too, and found intervals or said there were
		 * none; or it refused what only reconstruction reads: timers
		 * whose clock jumps (stats uses no timer)
		 */
		FUZZ_CHECK(!ret || ret == -ENODATA || strstr(err, "the trace clock jumped"));
		FUZZ_CHECK(ks.nr_states <= TRACE_MAX_STATES);
		FUZZ_CHECK(info.nr_states <= TRACE_MAX_STATES);
		fuzz_trace_tables(&ks);
		kstats_free(&ks);
	}
	fuzz_file_close(&out);
	fuzz_file_close(&in);
}

#endif /* FUZZ_FUZZ_TRACE_H */
