/* SPDX-License-Identifier: MIT */
/*
 * advise.h - cpuidle advise's host side (advise_apply.c): what the host has
 * and runs, and a setting applied while a second recording is made.
 */
#ifndef TOOLS_ADVISE_H
#define TOOLS_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the host's settings advise may change, as read before changing them */
struct advise_host {
	char driver[64];
	char governor[64];
	char available[256];	/* available_governors */
	bool has_window;	/* haltpoll's guest_halt_poll_ns exists */
	char window[32];
};

/* a setting: a governor, haltpoll's window (NULL: untouched), a QoS limit (< 0: none) */
struct advise_setting {
	const char *governor;
	const char *window;
	int32_t qos_us;
};

/* Read the host's settings.  Return: 0, or a negative errno with @err set. */
int advise_host_read(struct advise_host *h, char *err, size_t errlen);

/* Whether @name is one of the host's available governors. */
bool advise_host_has_governor(const struct advise_host *h, const char *name);

/* the most words of the workload's command (-- CMD ARGS) */
#define ADVISE_MAX_CMD	256

/*
 * Apply @s on the host (needs root), record @out through cpuidle record
 * (text) while @cmd runs (NULL or empty: for @duration_ns), then put
 * @before back if @restore; on any failure or signal, put it back
 * whatever @restore says.  Messages on stderr.  Return: 0; -EINTR after a
 * signal; another negative errno.  (A command that fails is the
 * recording's failure: record exits with its status.)
 */
int advise_apply(const struct advise_host *before, const struct advise_setting *s,
		 const char *out, int64_t duration_ns, char *const *cmd, bool restore);

#endif /* TOOLS_ADVISE_H */
