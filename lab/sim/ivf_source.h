/* SPDX-License-Identifier: MIT */
/*
 * ivf_source.h - an interval file as a replay's source: the adapter
 * between the interval file (ivf.h, ingest) and the replay (replay.h),
 * which know nothing of each other
 */
#ifndef LAB_IVF_SOURCE_H
#define LAB_IVF_SOURCE_H

#include "ivf.h"
#include "replay.h"

/**
 * ivf_replay_open() - a replay_open_fn over an interval file
 * @arg: the file's path
 * @out: the source: its intervals, validated as ivf_next() validates them
 *
 * Return: 0 or a negative errno (the file cannot be opened or is bad).
 */
int ivf_replay_open(void *arg, struct replay_source **out);

#endif /* LAB_IVF_SOURCE_H */
