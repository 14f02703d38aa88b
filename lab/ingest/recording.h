/* SPDX-License-Identifier: MIT */
/*
 * recording.h - a recording's description: what cpuidle record knew of the
 * machine when it recorded, kept in the trace so that a replay needs
 * nothing else (cpuidle-record(1)).
 *
 * In a text trace: comment lines before the first event, each
 * "# cpuidle-recording KEY VALUE" (trace_info.recording holds them without
 * the prefix; an interval file keeps them in its trace notes):
 *
 *   version 1
 *   driver NAME                the cpuidle driver (current_driver)
 *   governor NAME              the governor that ran (current_governor)
 *   set PATH=VALUE             an attribute as the replay writes it (-s):
 *                              the governor's tunables, e.g.
 *                              module/haltpoll/parameters/guest_halt_poll_ns=0
 *   platform LINE              one line of the host's platform file
 *                              (libcpuidle-platform(5)), in order
 *   derived TEXT               not a recording: made of others (cpuidle
 *                              fleet-gen), TEXT says of which
 *
 * Unknown keys are skipped, so that later versions may add some.
 */
#ifndef LAB_RECORDING_H
#define LAB_RECORDING_H

#include <stdbool.h>
#include <stddef.h>

#include "libcpuidle.h"
#include "trace.h"

#define RECORDING_MAX_ATTRS	16

/**
 * struct recording - a parsed description
 * @version: 0 if the text had none (no description)
 * @driver: "" if not said
 * @governor: "" if not said
 * @tick_periodic: the "tick" line says "periodic": the recording kernel
 *	never stops its tick (CONFIG_HZ_PERIODIC, or nohz=off); "nohz-idle"
 *	and "nohz-full" leave it false, as no line does
 * @attrs: the set lines' PATH=VALUE, NULL-terminated
 * @nr_attrs: how many
 * @platform: the platform file's text (@platform_len bytes, 0: none)
 * @derived: a derived trace's "from SOURCE, seed S, trace I", or NULL
 * @buf: where all of them are kept
 */
struct recording {
	unsigned int version;
	char driver[32];
	char governor[CPUIDLE_NAME_LEN];
	bool tick_periodic;
	const char *attrs[RECORDING_MAX_ATTRS + 1];
	unsigned int nr_attrs;
	const char *platform;
	size_t platform_len;
	const char *derived;
	char buf[2 * TRACE_RECORDING_MAX];
};

/**
 * recording_parse() - read a description
 * @text: its lines, each ended by a newline (trace_info.recording)
 * @len: bytes in @text
 * @out: the description
 * @err: why not, on error
 * @errlen: its size
 *
 * Return: 0; -EINVAL for a line of a known key that is malformed (a set
 * without "=", a name too long, too many set lines).
 */
int recording_parse(const char *text, size_t len, struct recording *out, char *err,
		    size_t errlen);

#endif /* LAB_RECORDING_H */
