// SPDX-License-Identifier: MIT
/*
 * trace_perf_header.c - what comes before perf.data's first sample: the
 * file header (file mode), the event attributes at the size the file
 * declares, the ids that map samples to them, and the feature sections.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_perf.h"

/* ---- attributes and ids ---- */

/* the offsets of a fixed-layout sample's fields (struct perf_attr.fixed) */
static void perf_attr_layout(struct perf_attr *a)
{
	uint64_t st = a->sample_type, need = S_TID | S_TIME | S_CPU | S_RAW;
	unsigned int at = 0;

	a->fixed = a->type == PERF_TYPE_TRACEPOINT && (st & need) == need &&
		   !(st & (S_READ | S_CALLCHAIN));
	if (!a->fixed)
		return;
	/* the order of parse_sample()'s walk, the documented one */
	at += 8 * !!(st & S_IDENTIFIER) + 8 * !!(st & S_IP);
	a->tid_at = (uint16_t)at;
	at += 8;
	a->time_at = (uint16_t)at;
	at += 8 + 8 * !!(st & S_ADDR) + 8 * !!(st & S_ID) + 8 * !!(st & S_STREAM_ID);
	a->cpu_at = (uint16_t)at;
	at += 8 + 8 * !!(st & S_PERIOD);
	a->raw_at = (uint16_t)at;
}

int perf_add_attr(struct perf_reader *p, const unsigned char *a, size_t size, uint64_t off)
{
	struct perf_attr *na, *at;

	if (size < ATTR_MIN_SIZE)
		return perf_fail(p, -EINVAL, off, "an event attribute of %zu bytes (at least %d)",
			     size, ATTR_MIN_SIZE);
	if (p->nr_attrs == ATTRS_MAX)
		return perf_fail(p, -EINVAL, off, "over %d event attributes", ATTRS_MAX);
	na = realloc(p->attrs, (p->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return perf_fail(p, -ENOMEM, off, "out of memory");
	p->attrs = na;
	at = &p->attrs[p->nr_attrs++];
	at->type = get32(a);
	at->config = get64(a + 8);
	at->sample_type = get64(a + 24);
	at->read_format = get64(a + 32);
	at->sample_id_all = get64(a + 40) & ATTR_SAMPLE_ID_ALL;
	perf_attr_layout(at);
	return 0;
}

int perf_add_ids(struct perf_reader *p, const unsigned char *b, size_t n, uint64_t off)
{
	struct perf_id *ni;
	size_t i;

	if (p->nr_ids + n > IDS_MAX)
		return perf_fail(p, -EINVAL, off, "over %d event ids", IDS_MAX);
	ni = realloc(p->ids, (p->nr_ids + n + 1) * sizeof(*ni));
	if (!ni)
		return perf_fail(p, -ENOMEM, off, "out of memory");
	p->ids = ni;
	for (i = 0; i < n; i++) {
		p->ids[p->nr_ids].id = get64(b + 8 * i);
		p->ids[p->nr_ids++].attr = p->nr_attrs - 1;
	}
	return 0;
}

/*
 * HEADER_NRCPUS: the CPUs the recording machine had (its first number,
 * those available), which says when trace_skipped_before() was asked of
 * every CPU; read in place from a plain file (@index: the feature
 * sections' index), else not known (0), as where the section is missing
 * or says what no machine has.  Nothing else hangs on it: a file cut
 * short there fails later, where it always did.
 */
static void read_nr_cpus(struct perf_reader *p, const unsigned char *index)
{
	unsigned int at = (unsigned int)__builtin_popcountll(p->feat_bits[0] &
							     ((1ull << FEAT_NRCPUS) - 1));
	unsigned char nr[4];
	uint64_t off, size;
	uint32_t n;

	if (!((p->feat_bits[0] >> FEAT_NRCPUS) & 1) || p->src->kind != SRC_PLAIN)
		return;
	off = get64(index + 16 * at);
	size = get64(index + 16 * at + 8);
	if (size < 8 || off > (uint64_t)INT64_MAX ||
	    pread(p->src->fd, nr, sizeof(nr), (off_t)off) != (ssize_t)sizeof(nr))
		return;
	n = get32(nr);
	p->nr_cpus = n <= TRACE_MAX_CPUS ? n : 0;
}

/* where a sample's id is, now that all attributes are known */
int perf_settle_attrs(struct perf_reader *p, uint64_t off)
{
	uint64_t st, mask = S_IP | S_TID | S_TIME | S_ADDR;
	unsigned int i;
	bool all_identifier = true, all_id = true;
	int pos = -1, here;

	if (!p->nr_attrs)
		return perf_fail(p, -EINVAL, off, "no event attributes");
	if (p->nr_ids)		/* (qsort() wants a pointer even for nothing) */
		qsort(p->ids, p->nr_ids, sizeof(*p->ids), perf_cmp_id);
	for (i = 0; i < p->nr_attrs; i++) {
		st = p->attrs[i].sample_type;
		all_identifier = all_identifier && (st & S_IDENTIFIER);
		all_id = all_id && (st & S_ID);
		here = __builtin_popcountll(st & mask);
		if (st & S_ID) {
			if (pos >= 0 && here != pos)
				return perf_fail(p, -EINVAL, off, "events disagree on where a sample's "
					     "id is: samples cannot be told apart");
			pos = here;
		}
	}
	p->identifier = all_identifier;
	p->id_pos = all_id ? pos : -1;
	/* perf numbers ids in a run: a table beats a search when they span little */
	if (p->nr_ids && p->ids[p->nr_ids - 1].id - p->ids[0].id < ID_DENSE_SPAN &&
	    p->nr_attrs < UINT16_MAX) {
		p->id_base = p->ids[0].id;
		p->id_span = p->ids[p->nr_ids - 1].id - p->id_base + 1;
		p->id_dense = calloc(p->id_span, sizeof(*p->id_dense));
		for (size_t k = 0; p->id_dense && k < p->nr_ids; k++)
			p->id_dense[p->ids[k].id - p->id_base] = (uint16_t)(p->ids[k].attr + 1);
	}
	if (p->nr_attrs > 1 && !p->identifier && p->id_pos < 0)
		return perf_fail(p, -EINVAL, off, "%u events but samples carry no id "
			     "(PERF_SAMPLE_ID or _IDENTIFIER)", p->nr_attrs);
	return 0;
}

int perf_open_file_mode(struct perf_reader *p, const unsigned char *hdr)
{
	uint64_t attr_size, attrs_off, attrs_size, feat_off, n, i, bit, sec_off, sec_size;
	uint64_t tracing_off = 0, tracing_size = 0;
	const unsigned char *b;
	unsigned int nfeat = 0;
	int err;

	attr_size = get64(hdr + 16);
	attrs_off = get64(hdr + 24);
	attrs_size = get64(hdr + 32);
	p->data_off = get64(hdr + 40);
	p->data_end = p->data_off + get64(hdr + 48);
	memcpy(p->feat_bits, hdr + 72, sizeof(p->feat_bits));
	if (p->data_end < p->data_off)
		return perf_fail(p, -EINVAL, 40, "the data section's size overflows");
	if (p->data_end == p->data_off)
		return perf_fail(p, -EINVAL, 48, "the header says the data section is empty "
			     "(perf record did not finish writing the file?)");
	if (attr_size < ATTR_MIN_SIZE + 16 || attr_size > ATTR_MAX_SIZE + 16)
		return perf_fail(p, -EINVAL, 16, "event attributes of %llu bytes (a perf.data "
			     "file's are %d to %d)", (unsigned long long)attr_size,
			     ATTR_MIN_SIZE + 16, ATTR_MAX_SIZE + 16);
	n = attrs_size / attr_size;
	if (attrs_size % attr_size || !n || n > ATTRS_MAX)
		return perf_fail(p, -EINVAL, 32, "an attribute section of %llu bytes for attributes "
			     "of %llu", (unsigned long long)attrs_size,
			     (unsigned long long)attr_size);

	/* the attributes, then each one's ids (usually between header and attrs) */
	err = perf_skip_to(p, attrs_off, "the event attributes");
	if (err)
		return err;
	{
		uint64_t (*ids)[2] = calloc(n, sizeof(*ids));

		if (!ids)
			return perf_fail(p, -ENOMEM, 0, "out of memory");
		for (i = 0; i < n && !err; i++) {
			uint64_t at = trace_src_offset(p->src);

			err = perf_need(p, (size_t)attr_size, &b, "the event attributes");
			if (!err)
				err = perf_add_attr(p, b, (size_t)attr_size - 16, at);
			if (!err) {
				ids[i][0] = get64(b + attr_size - 16);
				ids[i][1] = get64(b + attr_size - 8);
			}
		}
		/* ids: read where they are, in file order if they follow the attrs */
		for (i = 0; i < n && !err; i++) {
			if (ids[i][1] % 8 || ids[i][1] / 8 > IDS_MAX) {
				err = perf_fail(p, -EINVAL, attrs_off + i * attr_size, "an id section "
					    "of %llu bytes", (unsigned long long)ids[i][1]);
				break;
			}
			if (!ids[i][1])
				continue;
			if (ids[i][0] < trace_src_offset(p->src))
				err = perf_rewind(p);
			if (!err)
				err = perf_skip_to(p, ids[i][0], "an event's ids");
			if (!err)
				err = perf_need(p, (size_t)ids[i][1], &b, "an event's ids");
			if (!err) {
				p->nr_attrs = (unsigned int)i + 1;	/* ids go to attr i */
				err = perf_add_ids(p, b, ids[i][1] / 8, ids[i][0]);
				p->nr_attrs = (unsigned int)n;
			}
		}
		free(ids);
		if (err)
			return err;
	}

	/* the features: one section each, after the data, in bit order */
	for (bit = 0; bit < FEAT_BITS; bit++)
		nfeat += (p->feat_bits[bit / 64] >> (bit % 64)) & 1;
	feat_off = p->data_end;
	if (!((p->feat_bits[0] >> FEAT_TRACING_DATA) & 1))
		return perf_fail(p, -EINVAL, 72, "no tracing data: the file holds no tracepoint "
			     "formats (was it recorded with -e power:cpu_idle?)");
	if (trace_src_offset(p->src) > feat_off) {
		err = perf_rewind(p);
		if (err)
			return err;
	}
	err = perf_skip_to(p, feat_off, "the feature sections");
	if (err)
		return err;
	err = perf_need(p, (size_t)nfeat * 16, &b, "the feature sections' index");
	if (err)
		return err;
	read_nr_cpus(p, b);
	/* HEADER_TRACING_DATA is bit 1, the first one there can be */
	tracing_off = get64(b + 16 * ((p->feat_bits[0] & 1) ? 1 : 0));
	tracing_size = get64(b + 16 * ((p->feat_bits[0] & 1) ? 1 : 0) + 8);
	sec_off = tracing_off;
	sec_size = tracing_size;
	if (sec_off < trace_src_offset(p->src)) {
		err = perf_rewind(p);
		if (err)
			return err;
	}
	err = perf_skip_to(p, sec_off, "the tracing data");
	if (!err)
		err = perf_read_tracing_data(p, sec_size);
	if (!err)
		err = perf_start_decoding(p, sec_off);
	if (err)
		return err;

	/* back to the data */
	err = perf_rewind(p);
	if (!err)
		err = perf_skip_to(p, p->data_off, "the data");
	if (err)
		return err;
	/* the vote, over the first events, when they are first asked for */
	p->prescan = perf_needs_vote(p);
	return 0;
}

/**
 * trace_perf_open() - read a perf.data file's header (the magic is checked)
 * @r: the reader, its source at the file's first byte
 *
 * Return: 0, or a negative errno with the reader's message set.
 */
