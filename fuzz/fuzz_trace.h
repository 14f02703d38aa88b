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
 *   4. kstats_read() asking nothing beside the C-states ("cpuidle stats"
 *      itself), whose reader leaves out the events it reads only the time
 *      and CPU of (trace_want()): the same C-states, span, clusters and
 *      error as 3 (fuzz_trace_lean()).
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

/* the lean read of @path (step 4) says what the full one (@full, @fret, @ferr) said */
static inline void fuzz_trace_lean(const char *path, const struct cpuidle_platform *p,
				   const struct kstats *full, int fret, const char *ferr)
{
	static const struct kstats_want lean = { 0 };
	struct kstats ks;
	char err[1024];
	int ret;

	memset(err, 0, sizeof(err));
	ret = kstats_read(path, p, &lean, &ks, NULL, err, sizeof(err));
	if (strstr(err, "made no progress") || strstr(ferr, "made no progress")) {
		/* (trace.dat's child given up by the wall clock: see below) */
		if (!ret)
			kstats_free(&ks);
		return;
	}
	if (ret != fret || (ret && strcmp(err, ferr)))
		fprintf(stderr, "lean read: %d (%s), full: %d (%s)\n", ret, err, fret, ferr);
	FUZZ_CHECK(ret == fret && (!ret || !strcmp(err, ferr)));
	if (ret)
		return;
	FUZZ_CHECK(ks.nr_cpus == full->nr_cpus && ks.nr_states == full->nr_states);
	FUZZ_CHECK(ks.first_ns == full->first_ns && ks.last_ns == full->last_ns);
	FUZZ_CHECK(ks.events == full->events && ks.nr_clusters == full->nr_clusters);
	FUZZ_CHECK(ks.lost_gaps == full->lost_gaps && ks.lost_events == full->lost_events);
	FUZZ_CHECK(ks.nr_idle_less == full->nr_idle_less);
	FUZZ_CHECK(!memcmp(ks.idle_less, full->idle_less, sizeof(ks.idle_less)));
	FUZZ_CHECK(!memcmp(ks.cluster_cpus, full->cluster_cpus, sizeof(ks.cluster_cpus)));
	FUZZ_CHECK(!memcmp(ks.together_ns, full->together_ns, sizeof(ks.together_ns)));
	FUZZ_CHECK(!ks.nr_cpus ||
		   !memcmp(ks.cpu, full->cpu, ks.nr_cpus * TRACE_MAX_STATES * sizeof(*ks.cpu)));
	FUZZ_CHECK(!memcmp(ks.cluster, full->cluster,
			   (size_t)ks.nr_clusters * TRACE_MAX_STATES * sizeof(*ks.cluster)));
	kstats_free(&ks);
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
	fuzz_trace_lean(in.path, &platform, &ks, kret, kerr);
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
