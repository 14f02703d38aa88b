/* SPDX-License-Identifier: MIT */
/*
 * platform.h - platform files and the table driver.
 *
 * A platform file describes a machine's idle states in a small text format
 * (see libcpuidle-platform(5)).  The table driver turns one into a
 * struct cpuidle_driver whose states call back into the embedding to idle:
 * a simulator advances its clock there, a real engine waits.
 */
#ifndef CPUIDLE_PLATFORM_H
#define CPUIDLE_PLATFORM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CPUIDLE_PLATFORM_NAME_LEN	64
#define CPUIDLE_PLATFORM_DESC_LEN	256
#define CPUIDLE_PLATFORM_MAX_FILE	(1 << 20)	/* bytes */

/* power_mw of a state whose power is not known (sysfs prints 4294967295) */
#define CPUIDLE_POWER_UNKNOWN	(-1)

/**
 * struct cpuidle_platform_state - one state of a platform file
 * @name: state name (may contain spaces)
 * @desc: description
 * @exit_latency_ns: exit latency
 * @target_residency_ns: target residency
 * @power_mw: power in the state, or CPUIDLE_POWER_UNKNOWN
 * @flags: CPUIDLE_FLAG_*
 */
struct cpuidle_platform_state {
	char name[CPUIDLE_NAME_LEN];
	char desc[CPUIDLE_DESC_LEN];
	int64_t exit_latency_ns;
	int64_t target_residency_ns;
	int power_mw;
	unsigned int flags;
};

/**
 * struct cpuidle_platform - a parsed platform file
 * @name: the platform's name
 * @desc: one line describing it
 * @tick_hz: CONFIG_HZ of the machine, 0 if the file does not say
 * @state_count: number of @states
 * @states: shallowest first
 */
struct cpuidle_platform {
	char name[CPUIDLE_PLATFORM_NAME_LEN];
	char desc[CPUIDLE_PLATFORM_DESC_LEN];
	unsigned int tick_hz;
	int state_count;
	struct cpuidle_platform_state states[CPUIDLE_STATE_MAX];
};

/**
 * cpuidle_platform_parse() - parse a platform file held in memory
 * @text: the file's bytes (need not be NUL-terminated)
 * @len: their number
 * @filename: used in error messages
 * @out: the result
 * @err: on error, "FILE:LINE: what is wrong" (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 on success; -EINVAL if an argument is NULL or the text is not a
 * valid platform file (@err says where and why); -EFBIG if @len exceeds
 * CPUIDLE_PLATFORM_MAX_FILE.
 */
CPUIDLE_API int cpuidle_platform_parse(const char *text, size_t len,
				       const char *filename,
				       struct cpuidle_platform *out,
				       char *err, size_t errlen);

/**
 * cpuidle_platform_load() - read and parse a platform
 * @spec: a file path, or the name of a bundled platform ("laptop")
 * @out: the result
 * @err: on error, a message naming the file and line (may be NULL)
 * @errlen: size of @err
 *
 * A @spec without '/' that names a bundled platform loads that one.
 *
 * Return: 0 on success; -EINVAL as for cpuidle_platform_parse(); -ENOENT if
 * neither a file nor a bundled platform of that name exists; -EFBIG for a
 * file that is too large; another negative errno if it cannot be read.
 */
CPUIDLE_API int cpuidle_platform_load(const char *spec, struct cpuidle_platform *out,
				      char *err, size_t errlen);

/**
 * cpuidle_platform_builtin_names() - names of the bundled platforms
 *
 * Return: a NULL-terminated array.
 */
CPUIDLE_API const char *const *cpuidle_platform_builtin_names(void);

/**
 * cpuidle_platform_builtin_text() - the text of a bundled platform
 * @name: its name
 * @len: out: its length
 *
 * Return: the text, or NULL (errno ENOENT) if there is none of that name.
 */
CPUIDLE_API const char *cpuidle_platform_builtin_text(const char *name, size_t *len);

/**
 * typedef cpuidle_table_idle_fn - the embedding's way of idling in a state
 * @dev: the device
 * @state: the state chosen (after CHECK_BM demotion)
 * @index: its index
 * @ctx: the table driver's @ctx
 *
 * Return: >= 0 if the state was entered; a negative errno if rejected.
 */
typedef int (*cpuidle_table_idle_fn)(struct cpuidle_device *dev,
				     struct cpuidle_state *state, int index, void *ctx);

/**
 * struct cpuidle_table_driver - a driver built from a platform
 * @drv: the driver to register (its state template comes from the platform)
 * @platform: copy of the platform
 * @idle: the embedding's idle function
 * @ctx: passed to @idle
 */
struct cpuidle_table_driver {
	struct cpuidle_driver drv;
	struct cpuidle_platform platform;
	cpuidle_table_idle_fn idle;
	void *ctx;
};

/**
 * cpuidle_table_driver_init() - build a driver from a platform
 * @td: the table driver to fill
 * @platform: the platform (copied)
 * @idle: the embedding's idle function
 * @ctx: passed to @idle
 *
 * The driver is named after the platform (truncated to fit).  Register
 * &@td->drv, then register devices with state_count 0 to get its states.
 * Their driver_data points back at @td, so @td must stay in place while
 * registered.
 *
 * Return: 0 on success; -EINVAL if @td, @platform or @idle is NULL (@ctx may
 * be) or the platform has no states (or more than CPUIDLE_STATE_MAX).
 */
CPUIDLE_API int cpuidle_table_driver_init(struct cpuidle_table_driver *td,
					  const struct cpuidle_platform *platform,
					  cpuidle_table_idle_fn idle, void *ctx);

/**
 * cpuidle_table_state_index() - index of @state in its device
 * @dev: the device
 * @state: one of @dev's states
 *
 * Return: the index, or -EINVAL if @state is not one of @dev's.
 */
static inline int cpuidle_table_state_index(const struct cpuidle_device *dev,
					    const struct cpuidle_state *state)
{
	if (state < dev->states || state >= dev->states + dev->state_count)
		return -EINVAL;
	return (int)(state - dev->states);
}

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_PLATFORM_H */
