/* SPDX-License-Identifier: MIT */
/*
 * host_sysfs.h - the host kernel's cpuidle as sysfs shows it: reading a
 * snapshot of every file, and the few writes an operator makes.
 *
 * The files (the kernel's drivers/cpuidle/sysfs.c):
 *
 *   /sys/devices/system/cpu/cpuidle/{current_driver,current_governor,
 *	current_governor_ro,available_governors}
 *   /sys/devices/system/cpu/cpuN/cpuidle/stateK/{name,desc,latency,
 *	residency,power,usage,time,above,below,rejected,disable,
 *	default_status,s2idle/usage,s2idle/time}
 *   /sys/devices/system/cpu/cpuN/cpuidle/driver/name (multiple drivers)
 *   /sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us
 *
 * Which files exist depends on the kernel's age and configuration; a file
 * that is missing is recorded as absent (its HOST_F_* bit clear), never as
 * zero.
 *
 * The root "/sys" can be replaced for tests by the environment variable
 * CPUIDLE_SYSFS_ROOT (a directory laid out like /sys).
 */
#ifndef HOST_SYSFS_H
#define HOST_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcpuidle.h"

#define HOST_SYSFS_ROOT_ENV	"CPUIDLE_SYSFS_ROOT"
#define HOST_STR_LEN		64	/* kernel: name 16, desc 32; fixtures may be longer */
#define HOST_GOVERNORS_LEN	256
#define HOST_POWER_UNKNOWN	4294967295ULL	/* power_usage -1 printed with %u */

/* which files of a state exist (struct host_state.present) */
enum host_state_field {
	HOST_F_NAME,
	HOST_F_DESC,
	HOST_F_LATENCY,
	HOST_F_RESIDENCY,
	HOST_F_POWER,
	HOST_F_USAGE,
	HOST_F_TIME,
	HOST_F_ABOVE,
	HOST_F_BELOW,
	HOST_F_REJECTED,
	HOST_F_DISABLE,
	HOST_F_DEFAULT_STATUS,
	HOST_F_S2IDLE_USAGE,
	HOST_F_S2IDLE_TIME,
	HOST_F_COUNT
};

/**
 * struct host_state - one stateK directory
 * @index: K
 * @present: bit (1 << HOST_F_x) set for each file that exists
 * @name: name (may contain spaces)
 * @desc: description
 * @default_status: "enabled" or "disabled"
 * @latency_us: exit latency, us
 * @residency_us: target residency, us
 * @power: power_usage as printed (HOST_POWER_UNKNOWN for -1)
 * @usage: entries
 * @time_us: total residency, us
 * @above: entries judged too deep
 * @below: entries judged too shallow
 * @rejected: entries the driver refused
 * @disable: the user's disable bit (0 or 1)
 * @s2idle_usage: suspend-to-idle entries
 * @s2idle_time_us: suspend-to-idle residency, us
 */
struct host_state {
	int index;
	unsigned int present;
	char name[HOST_STR_LEN];
	char desc[HOST_STR_LEN];
	char default_status[HOST_STR_LEN];
	uint64_t latency_us;
	uint64_t residency_us;
	uint64_t power;
	uint64_t usage;
	uint64_t time_us;
	uint64_t above;
	uint64_t below;
	uint64_t rejected;
	uint64_t disable;
	uint64_t s2idle_usage;
	uint64_t s2idle_time_us;
};

/**
 * struct host_cpu - one CPU's cpuidle directory
 * @cpu: N of cpuN
 * @driver: cpuidle/driver/name, "" if absent (single-driver kernels)
 * @resume_latency: power/pm_qos_resume_latency_us as printed ("n/a",
 *	"0" for no constraint, or a number), "" if absent
 * @state_count: number of @states
 * @states: state0 upwards
 */
struct host_cpu {
	unsigned int cpu;
	char driver[HOST_STR_LEN];
	char resume_latency[HOST_STR_LEN];
	int state_count;
	struct host_state states[CPUIDLE_STATE_MAX];
};

/* which global files exist (struct host_cpuidle.present) */
enum host_global_field {
	HOST_G_DRIVER,
	HOST_G_GOVERNOR,
	HOST_G_GOVERNOR_RO,
	HOST_G_AVAILABLE,
};

/**
 * struct host_cpuidle - a snapshot of the whole cpuidle sysfs
 * @present: bit (1 << HOST_G_x) for each global file that exists
 * @driver: current_driver ("none" without a driver)
 * @governor: current_governor
 * @governor_ro: current_governor_ro (the only one on some kernels)
 * @available: available_governors, as printed less the trailing blank
 * @nr_cpus: number of @cpus
 * @cpus: CPUs with a cpuidle directory, ascending
 */
struct host_cpuidle {
	unsigned int present;
	char driver[HOST_STR_LEN];
	char governor[HOST_STR_LEN];
	char governor_ro[HOST_STR_LEN];
	char available[HOST_GOVERNORS_LEN];
	unsigned int nr_cpus;
	struct host_cpu *cpus;
};

/** host_state_has() - whether @s's file @f exists */
static inline bool host_state_has(const struct host_state *s, enum host_state_field f)
{
	return s->present & (1u << f);
}

/** host_has() - whether the global file @f exists */
static inline bool host_has(const struct host_cpuidle *h, enum host_global_field f)
{
	return h->present & (1u << f);
}

/**
 * host_current_governor() - current_governor, else current_governor_ro
 * @h: a snapshot
 *
 * Return: the name, or "" if neither file exists.
 */
const char *host_current_governor(const struct host_cpuidle *h);

/**
 * host_sysfs_root() - the directory standing for /sys
 *
 * Return: $CPUIDLE_SYSFS_ROOT if set and not empty, else "/sys".
 */
const char *host_sysfs_root(void);

/** host_sysfs_is_real() - whether host_sysfs_root() is the real /sys */
bool host_sysfs_is_real(void);

/**
 * host_sysfs_path() - build a path under the cpuidle sysfs
 * @buf: out
 * @len: size of @buf
 * @fmt: printf format of the part after the root ("devices/system/...")
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int host_sysfs_path(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * host_read_line() - the first line of a small file, without its newline
 * @path: the file
 * @buf: out
 * @len: size of @buf (longer lines are cut)
 *
 * Return: 0; a negative errno if it cannot be opened or read (-ENOENT if
 * it does not exist).
 */
int host_read_line(const char *path, char *buf, size_t len);

/**
 * host_read_u64() - a file holding one unsigned decimal number
 * @path: the file
 * @out: its value
 *
 * Return: 0; -ENOENT if missing; -EINVAL if it is not one number; another
 * negative errno if it cannot be read.
 */
int host_read_u64(const char *path, uint64_t *out);

/**
 * host_write_text() - write @text to @path in one write(2), as sysfs and
 *	tracefs want (O_TRUNC, for fixtures that are plain files)
 * @path: the file
 * @text: what to write
 *
 * Return: 0; a negative errno if it cannot be opened, written or closed;
 * -EIO on a short write.
 */
int host_write_text(const char *path, const char *text);

/**
 * host_cpuidle_read() - read the whole cpuidle sysfs
 * @h: filled; free with host_cpuidle_free()
 * @err: on error, what is wrong, naming the file
 * @errlen: size of @err
 *
 * Return: 0; -ENODEV if the kernel has no cpuidle (no
 * devices/system/cpu/cpuidle directory); -EINVAL if a file holds something
 * that is not what the kernel writes there; -ENOMEM; another negative errno
 * if a file cannot be read.
 */
int host_cpuidle_read(struct host_cpuidle *h, char *err, size_t errlen);

/** host_cpuidle_free() - free what host_cpuidle_read() allocated */
void host_cpuidle_free(struct host_cpuidle *h);

/**
 * host_find_cpu() - a CPU of a snapshot
 * @h: the snapshot
 * @cpu: its number
 *
 * Return: the CPU, or NULL if it has no cpuidle directory.
 */
const struct host_cpu *host_find_cpu(const struct host_cpuidle *h, unsigned int cpu);

/**
 * host_find_state() - a state of a CPU by index or name
 * @c: the CPU
 * @spec: a decimal index, or a state's name: exactly, else in any case
 *	("poll" for POLL) where one state alone matches so
 *
 * Return: the index, -EINVAL if several states match in case alone, or
 * -ENOENT.
 */
int host_find_state(const struct host_cpu *c, const char *spec);

/**
 * host_state_set_disable() - write a state's disable file and read it back
 * @cpu: the CPU
 * @index: the state
 * @disable: true to disable, false to enable
 *
 * Return: 0 once disable reads back as asked; -EACCES or -EPERM without
 * the privilege; -ENOENT if the file is missing; -EIO if it reads back
 * otherwise; another negative errno from the write.
 */
int host_state_set_disable(unsigned int cpu, int index, bool disable);

/**
 * host_set_governor() - switch the kernel's governor and read it back
 * @name: a name listed in available_governors
 *
 * Return: 0 once current_governor reads back as @name; -EOPNOTSUPP if the
 * kernel has no writable current_governor (only current_governor_ro);
 * -EINVAL if the kernel refuses the name; -EACCES or -EPERM without the
 * privilege; -EIO if it reads back otherwise.
 */
int host_set_governor(const char *name);

#endif /* HOST_SYSFS_H */
