/* SPDX-License-Identifier: MIT */
/*
 * kfreq.h - how long each CPU ran at each frequency, from a trace's
 * power:cpu_frequency and power:cpu_idle events (idlestat's P-state table).
 */
#ifndef LAB_KFREQ_H
#define LAB_KFREQ_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

/**
 * struct kfreq_row - one frequency of a CPU
 * @khz: the frequency, kHz (0: the trace's writer did not know it)
 * @hits: stretches of running at it (from an exit or a change to the next
 *	entry or change), those of 0 ns left out
 * @total_ns, @min_ns, @max_ns: their sum and spread
 */
struct kfreq_row {
	uint32_t khz;
	uint64_t hits;
	uint64_t total_ns;
	int64_t min_ns, max_ns;
};

/* what the trace says of a CPU now (kfreq.c) */
enum kfreq_phase {
	KFREQ_UNSURE,		/* before its first entry: running is assumed */
	KFREQ_RUNNING,
	KFREQ_IDLE,
	KFREQ_GAP,		/* after lost events: the next idle event tells */
};

/**
 * struct kfreq_cpu - one CPU's frequencies, lowest first, and where it is
 * @rows: @nr of them (room for @cap)
 * @phase: running, idle or not known
 * @khz: its frequency, if @known
 * @since_ns: the start of the stretch at @khz going on, or -1
 */
struct kfreq_cpu {
	struct kfreq_row *rows;
	unsigned int nr, cap;
	enum kfreq_phase phase;
	bool known;
	uint32_t khz;
	int64_t since_ns;
};

/**
 * struct kfreq - every CPU's frequencies
 * @nr_cpus: the highest CPU with a frequency or idle event, + 1
 * @cpu: their tallies
 * @events: the frequency events read
 */
struct kfreq {
	unsigned int nr_cpus;
	struct kfreq_cpu *cpu;
	uint64_t events;
};

/**
 * kfreq_event() - one event of the trace, in file order
 * @f: the tally, zeroed to begin
 * @ev: any event; frequency changes, idle entries and exits and lost-event
 *	markers count, others are passed by
 *
 * Return: 0, or -ENOMEM.
 */
int kfreq_event(struct kfreq *f, const struct trace_event *ev);

/** kfreq_free() - what the tally holds */
void kfreq_free(struct kfreq *f);

#endif /* LAB_KFREQ_H */
