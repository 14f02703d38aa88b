/* SPDX-License-Identifier: MIT */
/*
 * lookahead.h - the future of a CPU's siblings, for the oracle.
 *
 * A domain state pays off only while every CPU of its cluster is idle, so a
 * clairvoyant governor must know its siblings' future as well as its own.
 * The lookahead holds intervals back from the replay until every sibling's
 * timeline is known past the interval's end (a CPU's timeline is known up
 * to its next idle entry), and answers how much of a stay the siblings will
 * spend idle.  Memory is bounded by the activity of a cluster while one of
 * its CPUs stays unknown, and capped by LOOKAHEAD_MAX_HELD intervals
 * (beyond it, unknown siblings count as running: the oracle is then merely
 * cautious).
 */
#ifndef LAB_LOOKAHEAD_H
#define LAB_LOOKAHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "libcpuidle.h"
#include "intervals.h"

struct lookahead;

/**
 * lookahead_create() - a lookahead over @nr_cpus CPUs
 * @pf: the platform (its clusters say who is a sibling)
 * @nr_cpus: CPUs replayed
 * @out: the lookahead
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int lookahead_create(const struct cpuidle_platform *pf, unsigned int nr_cpus,
		     struct lookahead **out);

/** lookahead_destroy() - free it (NULL is fine) */
void lookahead_destroy(struct lookahead *la);

/**
 * lookahead_push() - an interval read from the source
 * @la: the lookahead
 * @iv: the interval (its CPU below nr_cpus)
 *
 * Return: 0 or -ENOMEM.
 */
int lookahead_push(struct lookahead *la, const struct idle_interval *iv);

/**
 * lookahead_pop() - the next interval whose siblings' future is known
 * @la: the lookahead
 * @eof: the source has no more intervals: release everything
 * @iv: filled with the interval
 *
 * Intervals come out in the order they were pushed.
 *
 * Return: true if @iv was filled.
 */
bool lookahead_pop(struct lookahead *la, bool eof, struct idle_interval *iv);

/**
 * lookahead_siblings_idle_ns() - how long @cpu's siblings are all idle
 * @la: the lookahead
 * @cpu: a CPU whose interval was popped last
 * @from_ns: start of the stay
 * @to_ns: its end
 * @siblings: set to the number of CPUs of @cpu's cluster that take part,
 *	@cpu included
 *
 * Return: the time within [@from_ns, @to_ns) during which every other CPU
 * of @cpu's cluster is idle, as far as the trace tells (@to_ns - @from_ns
 * if it has no siblings).
 */
int64_t lookahead_siblings_idle_ns(struct lookahead *la, unsigned int cpu, int64_t from_ns,
				   int64_t to_ns, unsigned int *siblings);

#endif /* LAB_LOOKAHEAD_H */
