/* SPDX-License-Identifier: MIT */
/*
 * host_platform.h - the host's state table as a platform file
 * (libcpuidle-platform(5)), so that a trace recorded here can be replayed
 * anywhere on the machine that recorded it.
 */
#ifndef HOST_PLATFORM_H
#define HOST_PLATFORM_H

#include <stddef.h>

#include "host_sysfs.h"

/**
 * host_platform_text() - write a snapshot's state table as a platform file
 * @h: a snapshot (host_cpuidle_read())
 * @name: the platform's name (a bare word or anything: it is quoted)
 * @out: the text, NUL-terminated; free() it
 * @len: its length
 * @err: on error, why
 * @errlen: size of @err
 *
 * One table when every CPU has the same one, else a cluster per distinct
 * table.  Per state: name, desc, latency and residency (us), power_mw as
 * sysfs says it: 4294967295 (the kernel's -1) is "unknown"; 0, what drivers
 * that give no figure (intel_idle, acpi_idle) report, stays power_mw=0
 * but is unknown to the energy model (model_power_mw=unknown).  Flags:
 * time-valid (modern kernels measure every state), polling for the core's
 * polling state, off for a state whose default_status is "disabled".
 * Reading the real /sys, the comment at the top names the kernel and the
 * tick rate comes from the kernel's configuration when it can be read.
 *
 * The text is checked with cpuidle_platform_parse() before it is returned.
 *
 * Return: 0; -ENODEV if no CPU has an idle state; -EINVAL if the table
 * cannot be a platform file (states out of order, a name too long) or
 * does not parse; -ENOMEM.
 */
int host_platform_text(const struct host_cpuidle *h, const char *name, char **out, size_t *len,
		       char *err, size_t errlen);

/**
 * host_tick_hz() - CONFIG_HZ of the running kernel
 *
 * Read from /proc/config.gz or /boot/config-RELEASE.
 *
 * Return: the rate, or 0 if neither can be read.
 */
unsigned int host_tick_hz(void);

#endif /* HOST_PLATFORM_H */
