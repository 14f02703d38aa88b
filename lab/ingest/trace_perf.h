/* SPDX-License-Identifier: MIT */
/*
 * trace_perf.h - what the perf.data reader's files share: the format's
 * numbers, the reader, and the calls between them.  trace_perf.c reads
 * the records (the hot path: samples, the queue, the merge);
 * trace_perf_header.c the file's header, attributes and ids;
 * trace_perf_format.c the tracing data (the event formats).
 */
#ifndef LAB_TRACE_PERF_H
#define LAB_TRACE_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "trace_internal.h"

/* Record types (include/uapi/linux/perf_event.h, tools/perf/util/event.h) */
enum {
	REC_LOST = 2,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* perf_event_attr.sample_type bits */
enum {
	S_IP = 1 << 0,
	S_TID = 1 << 1,
	S_TIME = 1 << 2,
	S_ADDR = 1 << 3,
	S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5,
	S_ID = 1 << 6,
	S_CPU = 1 << 7,
	S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9,
	S_RAW = 1 << 10,
	S_IDENTIFIER = 1 << 16,
};

/* perf_event_attr.read_format bits */
enum {
	RF_ENABLED = 1 << 0,
	RF_RUNNING = 1 << 1,
	RF_ID = 1 << 2,
	RF_GROUP = 1 << 3,
	RF_LOST = 1 << 4,
};

#define PERF_TYPE_TRACEPOINT	2
#define ATTR_SAMPLE_ID_ALL	(1ULL << 18)	/* the flags word's bit */
#define ATTR_MIN_SIZE		48	/* type, size, config, period, sample_type,
					 * read_format, flags: all that is read */
#define ATTR_VER0_SIZE		64	/* PERF_ATTR_SIZE_VER0, the smallest written */
#define ATTR_MAX_SIZE		4096	/* far beyond any kernel's (136 in 6.18) */
#define ATTRS_MAX		4096
#define IDS_MAX			(1 << 20)
#define ID_DENSE_SPAN		65536	/* ids spanning less: looked up in a table */
#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16
#define FEAT_TRACING_DATA	1
#define FEAT_NRCPUS		7
#define FEAT_COMPRESSED		27
#define FEAT_BITS		256
#define TRACING_DATA_MAX	(64u << 20)
/* zstd: what one compressed record may decompress to; perf's are one mmap
 * chunk (mmap_len, 512 KiB by default); more is a corrupt file or a bomb */
#define DECOMP_MAX		(64u << 20)

static const unsigned char magic_le[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
static const unsigned char magic_be[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };

struct perf_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
	/*
	 * A tracepoint's samples whose fields before the raw data all have a
	 * fixed size (no READ, no CALLCHAIN) and that carry TID, TIME, CPU
	 * and RAW (what perf record -e writes): the byte offsets of those
	 * words, worked out once (perf_settle_attrs()), so that a sample is
	 * read by direct loads instead of a walk over its type's bits.
	 */
	bool fixed;
	uint16_t tid_at, time_at, cpu_at, raw_at;
};

struct perf_id {
	uint64_t id;
	unsigned int attr;
};

struct queued {
	struct trace_event ev;
	uint64_t seq;
};

/* an event left out (trace_want()): its time and its place in the file's order */
struct skip_mark {
	int64_t ts;
	uint64_t seq;
};

/*
 * One CPU's events in the queue, in time order (ties: file order): a ring.
 * A CPU's ring buffer is in time order, so an event nearly always goes at
 * the end; one that does not is moved back into place.
 */
struct lane {
	struct queued *q;
	size_t head, len, cap;	/* cap: a power of two */
	size_t mapped;		/* the bytes @q spans (page_block.c) */
	int64_t last_ts;	/* the time of its last event, while it has one */
};

struct perf_reader {
	struct trace_reader *r;
	struct trace_src *src;
	bool pipe;
	uint64_t data_off;
	uint64_t data_end;	/* file mode: where the data ends; pipe: UINT64_MAX */
	uint64_t feat_bits[FEAT_BITS / 64];

	struct perf_attr *attrs;
	unsigned int nr_attrs;
	struct perf_id *ids;	/* sorted by id */
	size_t nr_ids;
	/* ids as perf gives them, consecutive: 1 + the attribute of id_base + i */
	uint16_t *id_dense;
	uint64_t id_base, id_span;
	int id_pos;		/* the u64 index of PERF_SAMPLE_ID in a sample; -1 */
	bool identifier;	/* samples start with PERF_SAMPLE_IDENTIFIER */

	/*
	 * The empty event (pid -1, all else 0) a sample is decoded over: a copy
	 * of it is plain moves, where clearing the event (a struct assignment
	 * from a constant, memset()) is a rep stos whose start-up cost was an
	 * eighth of the reader's time
	 */
	struct trace_event blank;

	bool tracing_data;	/* a tracing data section was read */
	bool big_endian;	/* its numbers, and the records', are big-endian */
	struct tp_format_text *formats;	/* of the decoder's events, cleaned (malloc'ed) */
	size_t nr_formats;
	struct tep_handle *tep;	/* the kernel's symbols, if the file has any; else NULL */
	char *printk;		/* the tracing data's printk strings, checked lines */
	struct tp_decoder *dec;
	size_t dec_mapped;	/* the bytes @dec spans (page_block.c), as @vote_mapped */
	struct tp_tick_vote vote;
	size_t vote_mapped;
	bool voting;		/* pipe mode: the vote runs as events are read */
	bool prescan;		/* file mode: the vote is still to run, first */
	bool in_prescan;	/* it runs: only the events it reads are decoded */

	/* zstd-compressed records: their records, decompressed */
	ZSTD_DStream *zd;
	unsigned char *dz;
	size_t dz_len, dz_pos, dz_cap;
	uint64_t dz_offset;	/* the compressed record's offset, for messages */

	/*
	 * The queue: events waiting for their round to end, by CPU (@lanes,
	 * @nr_lanes of them; @active lists those that ever held one).  Those
	 * up to @out_limit may come out, merged by time.
	 */
	struct lane *lanes;
	struct lane *run;	/* merge_scan(): the lane that comes out next */
	size_t run_left;	/* ... and how many of its first events may, at once */
	bool run_bounded;
	int64_t run_bound_ts;	/* ... while its head comes before this */
	uint64_t run_bound_seq;
	struct queued *heap;	/* events far out of place in their lane */
	struct trace_event taken;	/* the last event out of the heap */
	size_t heap_len, heap_cap;
	unsigned int nr_lanes;
	unsigned int *active;
	unsigned int nr_active;
	size_t queued;
	bool queued_over;	/* over QUEUE_MAX: down to half before reading on */
	uint64_t seq;
	int64_t round_max;	/* the newest time stamp read so far */
	int64_t flush_limit;	/* at the next round's end, events up to this go */
	int64_t out_limit;	/* events up to this one may come out now */
	int64_t floor_ts;	/* no queued event comes before this (a lower bound) */
	bool out_all;		/* the file ended: all may */
	bool eof;
	uint64_t taken_seq;	/* @taken's place in the file's order */

	/*
	 * Events of types the caller does not read (trace_want()), left out
	 * of the queue (perf_skip()): whether they are (@skipping), which of
	 * the decoder's events may be (@skip_event, by index), each CPU's
	 * earliest time among those (@skip_left: INT64_MAX less it, 0 while
	 * the CPU has none, so that its block needs no setting; an event
	 * before it is given, as it may be its CPU's first), how many were
	 * left out and the latest time among them; @skip_limit: events
	 * before it break the order the summary relies on (the rounds' limit
	 * while skipping);
	 * @marks: a ring of the last rounds' left-out events, for
	 * trace_skipped_before(), @skip_round and @skip_recent of them read in
	 * this round and in this and the last; @skip_folded: the latest of
	 * those that came out before any event still to come.  @skip_stopped:
	 * that order broke, nothing is left out any more.  @nr_cpus: the CPUs
	 * the recording machine had (HEADER_NRCPUS; 0: not known), @joined
	 * (@nr_joined of them) those trace_skipped_before() was asked of: once
	 * it was asked of @nr_cpus, no marks are kept (@marks_off), and an ask
	 * after that (@asked_late) makes trace_skipped() say redo.
	 */
	bool skipping;
	bool skip_stopped;
	bool skip_event[EV_NR];
	int64_t *skip_left;
	size_t skip_left_mapped;
	uint64_t skip_n;
	int64_t skip_max;
	int64_t skip_limit;
	struct skip_mark *marks;
	size_t marks_head, marks_len, marks_cap;	/* cap: a power of two */
	size_t marks_mapped;
	size_t skip_round, skip_recent;
	int64_t skip_folded;
	uint32_t nr_cpus, nr_joined;
	uint64_t joined[TRACE_MAX_CPUS / 64];
	bool marks_off;
	bool asked_late;
};

static inline uint16_t get16(const unsigned char *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return v;
}

/* the order of the ids' table (qsort(), bsearch()) */
static inline int perf_cmp_id(const void *a, const void *b)
{
	const struct perf_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static inline const struct perf_attr *perf_attr_of(const struct perf_reader *p, uint64_t id)
{
	struct perf_id key = { 0 };
	const struct perf_id *found;

	if (p->id_dense) {
		uint64_t i = id - p->id_base;

		return i < p->id_span && p->id_dense[i] ? &p->attrs[p->id_dense[i] - 1] : NULL;
	}

	key.id = id;
	found = p->nr_ids ? bsearch(&key, p->ids, p->nr_ids, sizeof(*p->ids), perf_cmp_id) : NULL;
	return found ? &p->attrs[found->attr] : NULL;
}

/* trace_perf.c */
int perf_fail(struct perf_reader *p, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int perf_need(struct perf_reader *p, size_t n, const unsigned char **b, const char *what);
int perf_skip_to(struct perf_reader *p, uint64_t off, const char *what);
int perf_rewind(struct perf_reader *p);
int perf_start_decoding(struct perf_reader *p, uint64_t off);
bool perf_needs_vote(const struct perf_reader *p);

/* trace_perf_header.c */
int perf_add_attr(struct perf_reader *p, const unsigned char *a, size_t size, uint64_t off);
int perf_add_ids(struct perf_reader *p, const unsigned char *b, size_t n, uint64_t off);
int perf_settle_attrs(struct perf_reader *p, uint64_t off);
int perf_open_file_mode(struct perf_reader *p, const unsigned char *hdr);

/* trace_perf_format.c */
int perf_read_tracing_data(struct perf_reader *p, uint64_t size);

/* trace_perf_zstd.c: compressed records */
int perf_inflate(struct perf_reader *p, const unsigned char *data, size_t len, uint64_t off);
void perf_inflate_reset(struct perf_reader *p);
void perf_inflate_free(struct perf_reader *p);

#endif /* LAB_TRACE_PERF_H */
