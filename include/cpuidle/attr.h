/* SPDX-License-Identifier: MIT */
/*
 * attr.h - the attribute tree: a sysfs-compatible view of a system.
 *
 * Paths are those under /sys/devices/system/cpu/, for example
 * "cpuidle/current_governor" or "cpu3/cpuidle/state1/usage", and the
 * governors' module parameters, which the kernel keeps under /sys/module/
 * and each system here has its own of: "module/haltpoll/parameters/NAME"
 * (NAME: guest_halt_poll_ns, guest_halt_poll_shrink, guest_halt_poll_grow,
 * guest_halt_poll_grow_start, guest_halt_poll_allow_shrink).  Absolute
 * kernel paths (/sys/devices/system/cpu/..., /sys/module/...) are accepted
 * too.  Reads give
 * exactly what the kernel's file would hold (units, format, trailing
 * newline); writes are validated as the kernel validates them.  The tree is
 * a view: every write calls the public API, no policy lives here.
 */
#ifndef CPUIDLE_ATTR_H
#define CPUIDLE_ATTR_H

#include <stddef.h>
#include <sys/types.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cpuidle_attr_read() - read one attribute
 * @sys: the system
 * @path: the attribute's path
 * @buf: destination, NUL-terminated on success
 * @size: size of @buf
 *
 * Return: the length of the text (without the NUL); -EINVAL for NULL
 * arguments; -ENOENT if no such attribute exists; -EISDIR if @path names
 * a directory; -ENOSPC if @buf is too small.
 */
CPUIDLE_API ssize_t cpuidle_attr_read(struct cpuidle_system *sys, const char *path,
				      char *buf, size_t size);

/**
 * cpuidle_attr_write() - write one attribute
 * @sys: the system
 * @path: the attribute's path
 * @value: the text written (a trailing newline is accepted)
 *
 * Writable: cpuidle/current_governor (a registered governor's name, first
 * word, case-sensitive), cpuN/cpuidle/stateK/disable (an unsigned
 * integer in C notation: non-zero disables, 0 enables) and every
 * module/GOV/parameters/ file: a uint parameter takes an unsigned 32-bit
 * integer in C notation (decimal, 0x hex, 0 octal; an optional '+' and one
 * trailing newline), the bool guest_halt_poll_allow_shrink what the
 * kernel's kstrtobool() takes (first character y/Y/t/T/1 or n/N/f/F/0, or
 * "on"/"off"), read back as "Y" or "N".  Any successful state write resets
 * the device's cached poll time limit.
 *
 * Return: 0 on success; -EINVAL for NULL arguments, a malformed value or an
 * unknown governor; -ERANGE for a number out of range; -ENOENT if no such
 * attribute exists; -EACCES if the attribute is read-only; -EISDIR if
 * @path names a directory; or the error of the underlying call.
 */
CPUIDLE_API int cpuidle_attr_write(struct cpuidle_system *sys, const char *path,
				   const char *value);

/**
 * typedef cpuidle_attr_visit_fn - called for each attribute by
 * cpuidle_attr_walk()
 * @path: the attribute's path
 * @value: its current content (with the trailing newline)
 * @writable: whether it can be written
 * @arg: the walker's argument
 *
 * Return: 0 to continue; anything else stops the walk and is returned.
 */
typedef int (*cpuidle_attr_visit_fn)(const char *path, const char *value,
				     bool writable, void *arg);

/**
 * cpuidle_attr_walk() - visit every attribute, in sysfs order
 * @sys: the system
 * @fn: the visitor
 * @arg: passed to @fn
 *
 * Each value is read under the system lock, which is released while @fn
 * runs, so @fn may read, write or switch governor; each file is
 * consistent, the walk as a whole is not a snapshot.
 *
 * Return: 0 after visiting all; -EINVAL for NULL arguments; or the first
 * non-zero value @fn returned.
 */
CPUIDLE_API int cpuidle_attr_walk(struct cpuidle_system *sys,
				  cpuidle_attr_visit_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_ATTR_H */
