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

/* haltpoll's module parameters advise may change, as sysfs-relative paths */
#define ADVISE_WINDOW_ATTR	"module/haltpoll/parameters/guest_halt_poll_ns"
#define ADVISE_GROW_ATTR	"module/haltpoll/parameters/guest_halt_poll_grow"
#define ADVISE_SHRINK_ATTR	"module/haltpoll/parameters/guest_halt_poll_shrink"

/**
 * struct advise_cpu - one CPU's idle states, as read before changing them
 * @cpu: N of cpuN
 * @state_count: its states
 * @can_disable: bit K: stateK has a disable file
 * @disabled: bit K: stateK's disable bit was set
 */
struct advise_cpu {
	unsigned int cpu;
	int state_count;
	uint32_t can_disable;
	uint32_t disabled;
};

/**
 * struct advise_host - the host's settings advise may change, as read
 * before changing them; free with advise_host_free()
 * @driver: current_driver
 * @governor: current_governor
 * @available: available_governors
 * @has_window: haltpoll's guest_halt_poll_ns exists, @window its value
 * @has_grow: haltpoll's guest_halt_poll_grow exists, @grow its value
 * @has_shrink: haltpoll's guest_halt_poll_shrink exists, @shrink its value
 * @nr_cpus: the CPUs with a cpuidle directory, @cpus
 */
struct advise_host {
	char driver[64];
	char governor[64];
	char available[256];
	bool has_window;
	char window[32];
	bool has_grow;
	char grow[32];
	bool has_shrink;
	char shrink[32];
	unsigned int nr_cpus;
	struct advise_cpu *cpus;
};

/**
 * struct advise_setting - a setting advise applies
 * @governor: the governor
 * @window: haltpoll's guest_halt_poll_ns (NULL: untouched)
 * @grow: haltpoll's guest_halt_poll_grow (NULL: untouched)
 * @shrink: haltpoll's guest_halt_poll_shrink (NULL: untouched)
 * @disable_from: stateK and every deeper state disabled on every CPU
 *	(0: none; state 0 is never disabled)
 * @qos_us: a CPU latency QoS limit held (< 0: none)
 */
struct advise_setting {
	const char *governor;
	const char *window;
	const char *grow;
	const char *shrink;
	int disable_from;
	int32_t qos_us;
};

/* Read the host's settings.  Return: 0, or a negative errno with @err set. */
int advise_host_read(struct advise_host *h, char *err, size_t errlen);

/* Free what advise_host_read() allocated (@h zeroed, or read, is fine). */
void advise_host_free(struct advise_host *h);

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
