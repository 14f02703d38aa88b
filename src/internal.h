/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what passes between the core's files (the kernel's
 * drivers/cpuidle/cpuidle.h).  Not installed.
 */
#ifndef CPUIDLE_INTERNAL_H
#define CPUIDLE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpuidle/cpuidle.h"
#include "cpuidle/pm_qos.h"

#define CPUIDLE_MAX_GOVERNORS	32
/* governors with tunables a system has ever registered: twice the registry */
#define CPUIDLE_MAX_GOV_PARAMS	(2 * CPUIDLE_MAX_GOVERNORS)
#define CPUIDLE_DEFAULT_TICK_HZ	250	/* the recording VM's CONFIG_HZ */
#define CPUIDLE_MAX_TICK_HZ	10000

/*
 * Single-writer counters and flags read from other threads: the kernel's
 * READ_ONCE/WRITE_ONCE, spelled with relaxed atomics so ThreadSanitizer
 * sees what the kernel means.
 */
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct pm_qos_request {
	char name[PM_QOS_NAME_MAX];
	int32_t value;
};

struct pm_qos_class {
	struct pm_qos_request *reqs;
	int count;
	int cap;
	int32_t target;		/* aggregate, read lock-free */
	int32_t default_value;
	bool max_wins;		/* throughput: the largest request wins */
};

struct cpuidle_system {
	struct cpuidle_system_ops ops;
	void *ctx;
	int64_t tick_nsec;

	/* Serializes every control call; held across pause/resume. */
	pthread_mutex_t lock;
	pthread_t pause_owner;
	int pause_depth;	/* > 0 while paused; only the owner touches it */
	int paused;		/* atomic: idle calls stay out while set */

	struct cpuidle_driver *driver;
	const struct cpuidle_governor *governors[CPUIDLE_MAX_GOVERNORS];
	int nr_governors;
	const struct cpuidle_governor *governor;
	const struct cpuidle_governor *gov_before_driver;
	char param_governor[CPUIDLE_NAME_LEN];	/* cpuidle.governor= */
	bool gov_chosen_by_name;

	struct cpuidle_device **devices;	/* indexed by cpu */
	unsigned int devices_cap;
	unsigned int nr_devices;

	struct pm_qos_class qos[PM_QOS_NUM_CLASSES];

	/*
	 * Governor tunables (module parameters): a block per governor that
	 * has any, made at its registration and kept until the system goes
	 * (a lock-free reader may still hold it); written locked, read
	 * lock-free.  An entry's @gov is published last (release).
	 */
	struct cpuidle_gov_params {
		const struct cpuidle_governor *gov;
		void *block;
	} gov_params[CPUIDLE_MAX_GOV_PARAMS];
};

/* cpuidle.c */
bool cpuidle_sys_lock(struct cpuidle_system *sys);
void cpuidle_sys_unlock(struct cpuidle_system *sys, bool locked);
bool cpuidle_paused_by_me(struct cpuidle_system *sys);
void cpuidle_pause(struct cpuidle_system *sys);
void cpuidle_resume(struct cpuidle_system *sys);
void cpuidle_kick_all(struct cpuidle_system *sys);
int cpuidle_enable_device_locked(struct cpuidle_device *dev);
void cpuidle_disable_device_locked(struct cpuidle_device *dev);
int cpuidle_validate_states(struct cpuidle_state *states, int count,
			    int safe_index);

/* gov_params.c */
int cpuidle_gov_params_attach(struct cpuidle_system *sys, const struct cpuidle_governor *gov);
void cpuidle_gov_params_free(struct cpuidle_system *sys);
const struct cpuidle_param *cpuidle_gov_param_find(const struct cpuidle_governor *gov,
						   const char *name, size_t len);
unsigned int cpuidle_gov_param_read(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
				    const struct cpuidle_param *param);
int cpuidle_gov_param_write(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
			    const struct cpuidle_param *param, unsigned int value);

/* governor.c */
int cpuidle_switch_governor_locked(struct cpuidle_system *sys,
				   const struct cpuidle_governor *gov);
const struct cpuidle_governor *cpuidle_find_governor_locked(struct cpuidle_system *sys,
							    const char *name);

/* pm_qos.c */
int cpuidle_qos_init(struct cpuidle_system *sys);
void cpuidle_qos_exit(struct cpuidle_system *sys);

/* Small helpers. */
static inline bool cpuidle_name_valid(const char *name, size_t len)
{
	size_t i;

	if (!name[0])
		return false;
	for (i = 0; i < len; i++)
		if (!name[i])
			return true;
	return false;
}

#endif /* CPUIDLE_INTERNAL_H */
