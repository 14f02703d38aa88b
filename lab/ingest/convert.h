/* SPDX-License-Identifier: MIT */
/* convert.h - a trace, parsed once, into an idle interval file. */
#ifndef LAB_CONVERT_H
#define LAB_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "intervals.h"

/* Progress: bytes of the input consumed so far, and its size (0: unknown). */
typedef void (*lab_progress_fn)(uint64_t done, uint64_t total, void *arg);

/**
 * lab_convert() - read @trace_path, reconstruct intervals, write @ivf_path
 * @trace_path: a trace in any supported format
 * @ivf_path: the interval file to write
 * @stats: filled with what reconstruction saw (may be NULL)
 * @progress: called now and then (may be NULL)
 * @arg: its argument
 * @err: "FILE:LINE: what" on error
 * @errlen: its size
 *
 * Return: 0, or a negative errno; on error @ivf_path is removed (unless it
 * is not a regular file: a device is left alone).
 */
int lab_convert(const char *trace_path, const char *ivf_path, struct iv_stats *stats,
		lab_progress_fn progress, void *arg, char *err, size_t errlen);

#endif /* LAB_CONVERT_H */
