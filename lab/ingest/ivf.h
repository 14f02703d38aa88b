/* SPDX-License-Identifier: MIT */
/*
 * ivf.h - the idle interval file: reconstructed intervals on disk, so a
 * large trace is parsed once and replayed many times.  The layout is in
 * cpuidle-ivf(5): little-endian, versioned, every section checksummed.
 */
#ifndef LAB_IVF_H
#define LAB_IVF_H

#include <stdbool.h>
#include <stdint.h>

#include "intervals.h"

#define IVF_MAGIC		"CPUIDLIV"
#define IVF_VERSION		8	/* written; versions 1 to 7 are still read */
#define IVF_HEADER_SIZE		64
#define IVF_RECORD_SIZE		136	/* a full record (version 4's only kind) */
#define IVF_SHORT_RECORD_SIZE	56	/* version 5: one kernel entry at most,
					 * the fidelity fields implied */
#define IVF_V2_RECORD_SIZE	104	/* versions 2, 3: without the kernel's residencies */
#define IVF_V1_RECORD_SIZE	64	/* without the kernel's polling windows either */
#define IVF_BLOCK_RECORDS	4096

/**
 * struct ivf_info - what the header and the trailer say
 * @version: format version
 * @nr_cpus: highest CPU + 1
 * @first_ns: the trace's first event
 * @last_ns: its last event
 * @source_format: enum trace_format of the trace it came from
 * @notes_known: the file carries @notes (version 6 on)
 * @notes: what reading the trace noticed (all 0 if not known)
 */
struct ivf_info {
	unsigned int version;
	unsigned int nr_cpus;
	int64_t first_ns;
	int64_t last_ns;
	unsigned int source_format;
	bool notes_known;
	struct iv_notes notes;
};

struct ivf_writer;
struct ivf_reader;

/**
 * ivf_writer_open() - create an interval file
 * @path: where ("-" is refused: the header is rewritten at the end)
 * @out: the writer
 * @err: message on error
 * @errlen: its size
 *
 * Return: 0 or a negative errno.
 */
int ivf_writer_open(const char *path, struct ivf_writer **out, char *err, size_t errlen);

/** ivf_write() - append one interval.  Return: 0 or a negative errno. */
int ivf_write(struct ivf_writer *w, const struct idle_interval *iv);

/**
 * ivf_writer_close() - write what is buffered, the trailer (the IRQ names
 * and the trace notes) and the header; free the writer
 * @w: the writer (NULL is fine)
 * @info: the header's contents and the notes (NULL: an error path, the
 *        file is left incomplete)
 * @irq_names: IV_MAX_IRQ names (empty strings skipped), or NULL for none
 *
 * Return: 0 or a negative errno (the file is then incomplete).
 */
int ivf_writer_close(struct ivf_writer *w, const struct ivf_info *info,
		     const char (*irq_names)[LAB_IRQ_NAME_LEN]);

/**
 * ivf_open() - open and validate an interval file's header
 * @path: the file
 * @out: the reader
 * @err: "FILE: offset N: what is wrong" on error
 * @errlen: its size
 *
 * Older versions are read with what they lack zero: version 1 files (without
 * the kernel's polling windows, tick wake-ups and idle-loop time) as if the
 * kernel had logged none, versions 1 to 3 without the kernel's residencies,
 * versions 1 to 5 without the trace notes (info->notes_known false), version
 * 6 without the starting polling windows (none known).
 *
 * Return: 0; -ENOENT and friends if it cannot be read; -EINVAL if it is not
 * an interval file, has another version, or its header is corrupt.
 */
int ivf_open(const char *path, struct ivf_reader **out, char *err, size_t errlen);

/**
 * ivf_next() - the next interval, validated
 * @r: the reader
 * @iv: filled
 *
 * Return: 1, 0 at the end, or -EINVAL for a corrupt or truncated file
 * (ivf_error() names the offset).
 */
int ivf_next(struct ivf_reader *r, struct idle_interval *iv);

const struct ivf_info *ivf_reader_info(const struct ivf_reader *r);
const char *ivf_error(const struct ivf_reader *r);
/** ivf_irq_name() - the name recorded for @irq, or "" */
const char *ivf_irq_name(const struct ivf_reader *r, int irq);
void ivf_close(struct ivf_reader *r);

/**
 * ivf_is_file() - whether @path starts with the interval file magic
 *
 * Return: 1 if it does; 0 if not, or if @path is not a regular file: a
 * pipe's, FIFO's or socket's bytes are read once, by the trace reader,
 * never looked at first (cpuidle stats <(xz -dc t.xz)).
 */
int ivf_is_file(const char *path);

/**
 * ivf_path_rereadable() - whether @path can be opened and read again, a
 * regular file: not "-", not a pipe (/dev/fd/N of a process
 * substitution), FIFO, socket or terminal, whose bytes are read once
 */
bool ivf_path_rereadable(const char *path);

#endif /* LAB_IVF_H */
