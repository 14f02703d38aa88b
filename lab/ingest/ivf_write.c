// SPDX-License-Identifier: MIT
/*
 * ivf_write.c - the interval file's writer: records streamed in blocks,
 * each checked, then the trailer (IRQ names, the trace's notes) and the
 * header rewritten at the end, so that a reader can tell a complete file
 * from a truncated one (ivf.c reads it; the layout is ivf_format.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ivf_format.h"

struct ivf_writer {
	FILE *f;
	const struct gz_lib *z;	/* zlib, for the checksums */
	uint8_t *block;		/* IVF_BLOCK_RECORDS records */
	unsigned int in_block;
	size_t bytes;		/* of the records in the block */
	uint64_t records;
	int error;
};

/* a failed write's cause: fwrite() and fclose() leave it in errno (ENOSPC, EDQUOT, ...) */
static int write_errno(void)
{
	return errno ? -errno : -EIO;
}

static int flush_block(struct ivf_writer *w)
{
	uint8_t head[BLOCK_HEAD], tail[4];
	size_t n = w->bytes;

	if (!w->in_block)
		return 0;
	memcpy(head, BLOCK_MAGIC, 4);
	put32(head + 4, w->in_block);
	put32(head + 8, (uint32_t)n);
	put32(tail, block_sum(w->block, n));
	if (fwrite(head, 1, BLOCK_HEAD, w->f) != BLOCK_HEAD || fwrite(w->block, 1, n, w->f) != n ||
	    fwrite(tail, 1, 4, w->f) != 4)
		return write_errno();
	w->in_block = 0;
	w->bytes = 0;
	return 0;
}

int ivf_writer_open(const char *path, struct ivf_writer **out, char *err, size_t errlen)
{
	static const uint8_t zero[IVF_HEADER_SIZE];
	struct ivf_writer *w;

	if (!path || !out || !strcmp(path, "-")) {
		snprintf(err, errlen, "an interval file needs a real file, not standard output");
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->block = malloc((size_t)IVF_BLOCK_RECORDS * IVF_RECORD_SIZE))) {
		free(w);
		return -ENOMEM;
	}
	w->z = gz_lib(err, errlen);
	if (!w->z) {
		free(w->block);
		free(w);
		return -ELIBACC;
	}
	w->f = fopen(path, "wb");
	if (!w->f) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		free(w->block);
		free(w);
		return -e;
	}
	/* placeholder header, rewritten at close */
	if (fwrite(zero, 1, sizeof(zero), w->f) != sizeof(zero)) {
		snprintf(err, errlen, "%s: write failed", path);
		fclose(w->f);
		free(w->block);
		free(w);
		return -EIO;
	}
	*out = w;
	return 0;
}

int ivf_write(struct ivf_writer *w, const struct idle_interval *iv)
{
	uint8_t *p;

	if (!w || !iv || (iv->wake & REC_FULL))	/* that bit is the file's */
		return -EINVAL;
	if (w->error)
		return w->error;
	p = w->block + w->bytes;
	encode(p, iv);
	if (fits_short(iv)) {
		memset(p + SHORT_FIELDS, 0, IVF_SHORT_RECORD_SIZE - SHORT_FIELDS);
		w->bytes += IVF_SHORT_RECORD_SIZE;
	} else {
		p[WAKE_AT] |= REC_FULL;
		w->bytes += IVF_RECORD_SIZE;
	}
	w->records++;
	if (++w->in_block == IVF_BLOCK_RECORDS)
		w->error = flush_block(w);
	return w->error;
}

/* "IVT1", the fixed part, the bitmap of @cpus bits, a CRC-32 of all but the magic */
static int write_notes(const struct ivf_writer *w, const struct iv_notes *n, unsigned int cpus)
{
	uint8_t b[4 + NOTES_LEN(7, LAB_MAX_CPUS) + 4 + LAB_RECORDING_MAX + 4];
	size_t len, i;

	if (!cpus || cpus > LAB_MAX_CPUS)
		return -EINVAL;
	memcpy(b, NOTES_MAGIC, 4);
	put64(b + 4, (uint64_t)n->clock_offset_ns);
	put64(b + 12, n->clock_line);
	put64(b + 20, n->clock_unknown);
	put64(b + 28, n->lost_gaps);
	put64(b + 36, n->lost_events);
	put64(b + 44, n->lost_line);
	put64(b + 52, (uint64_t)n->lost_n);
	put64(b + 60, (uint64_t)n->residency_skew_ns);	/* version 6: reserved, 0 */
	put32(b + 68, n->lost_cpu);
	put32(b + 72, n->nr_idle_less);
	len = 4 + NOTES_FIXED;
	for (i = 0; i < NOTES_WORDS(cpus); i++, len += 8)
		put64(b + len, n->idle_less[i]);
	for (i = 0; i < NOTES_WORDS(cpus); i++, len += 8)	/* version 7 */
		put64(b + len, n->window_known[i]);
	for (i = 0; i < cpus; i++, len += 4)
		put32(b + len, n->window_start[i]);
	if (n->recording_len > LAB_RECORDING_MAX)
		return -EINVAL;
	put32(b + len, n->recording_len);	/* and the recording's description */
	memcpy(b + len + 4, n->recording, n->recording_len);
	len += 4 + n->recording_len;
	put32(b + len, crc(w->z, b + 4, len - 4));
	len += 4;
	return fwrite(b, 1, len, w->f) == len ? 0 : -EIO;
}

int ivf_writer_close(struct ivf_writer *w, const struct ivf_info *info,
		     const char (*irq_names)[LAB_IRQ_NAME_LEN])
{
	uint8_t h[IVF_HEADER_SIZE], entry[NAME_ENTRY_SIZE], buf[8];
	uLong c;
	uint32_t count = 0;
	long trailer;
	int ret, i;

	if (!w)
		return 0;
	c = w->z->crc32(0L, Z_NULL, 0);
	ret = w->error ? w->error : flush_block(w);
	trailer = ftell(w->f);
	if (!ret && trailer < 0)
		ret = -EIO;
	if (!ret && info) {
		for (i = 0; irq_names && i < IV_MAX_IRQ; i++)
			count += irq_names[i][0] != 0;
		memcpy(buf, TRAILER_MAGIC, 4);
		put32(buf + 4, count);
		if (fwrite(buf, 1, 8, w->f) != 8)
			ret = write_errno();
		for (i = 0; !ret && irq_names && i < IV_MAX_IRQ; i++) {
			if (!irq_names[i][0])
				continue;
			put16(entry, (uint16_t)i);
			memset(entry + 2, 0, LAB_IRQ_NAME_LEN);
			memcpy(entry + 2, irq_names[i], strnlen(irq_names[i], LAB_IRQ_NAME_LEN - 1));
			c = w->z->crc32(c, entry, NAME_ENTRY_SIZE);
			if (fwrite(entry, 1, NAME_ENTRY_SIZE, w->f) != NAME_ENTRY_SIZE)
				ret = write_errno();
		}
		put32(buf, (uint32_t)c);
		if (!ret && fwrite(buf, 1, 4, w->f) != 4)
			ret = write_errno();
		if (!ret)
			ret = write_notes(w, &info->notes, info->nr_cpus);
	}
	if (!ret && info) {
		memset(h, 0, sizeof(h));
		memcpy(h, IVF_MAGIC, 8);
		put16(h + 8, IVF_VERSION);
		put16(h + 10, IVF_HEADER_SIZE);
		put16(h + 12, IVF_RECORD_SIZE);
		put32(h + 16, info->nr_cpus);
		put32(h + 20, info->source_format);
		put64(h + 24, (uint64_t)info->first_ns);
		put64(h + 32, (uint64_t)info->last_ns);
		put64(h + 40, w->records);
		put64(h + 48, (uint64_t)trailer);
		put32(h + 60, crc(w->z, h, 60));
		if (fseek(w->f, 0, SEEK_SET) || fwrite(h, 1, sizeof(h), w->f) != sizeof(h))
			ret = write_errno();
	}
	if (fclose(w->f) && !ret)
		ret = write_errno();
	free(w->block);
	free(w);
	return ret;
}
