/* SPDX-License-Identifier: MIT */
/*
 * pm_qos.h - quality-of-service requirements (the 2.6.34 pm_qos_params API).
 *
 * Requests are named; the aggregate of a class is the minimum of the live
 * requests (the maximum for throughput), or the class default when there
 * is none.  A change of the CPU latency aggregate kicks every CPU out of
 * idle so the next selection honours it.
 */
#ifndef CPUIDLE_PM_QOS_H
#define CPUIDLE_PM_QOS_H

#include <stdint.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Classes (2.6.34 numbering). */
#define PM_QOS_RESERVED			0
#define PM_QOS_CPU_DMA_LATENCY		1
#define PM_QOS_NETWORK_LATENCY		2
#define PM_QOS_NETWORK_THROUGHPUT	3
#define PM_QOS_NUM_CLASSES		4

/* A request of this value asks for the class default. */
#define PM_QOS_DEFAULT_VALUE			(-1)
/* 2000 s, in us: the kernel's "no constraint" for CPU latency. */
#define PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE	(2000 * 1000 * 1000)
#define PM_QOS_NETWORK_LAT_DEFAULT_VALUE	(2000 * 1000 * 1000)
#define PM_QOS_NETWORK_THROUGHPUT_DEFAULT_VALUE	0

#define PM_QOS_NAME_MAX		64	/* longest request name + 1 */
#define PM_QOS_MAX_REQUESTS	256	/* live requests per class */

/**
 * pm_qos_add_requirement() - add a named request
 * @sys: the system
 * @qos: the class, PM_QOS_CPU_DMA_LATENCY etc.
 * @name: the request's name, unique within the class
 * @value: the requirement (us for latencies, kb/s for throughput), >= 0,
 *	or PM_QOS_DEFAULT_VALUE
 *
 * Return: 0 on success; -EINVAL for a NULL @sys or @name, an empty or too
 * long name, an unknown class or a negative value other than
 * PM_QOS_DEFAULT_VALUE; -EEXIST if @name is live in @qos; -ENOSPC if the
 * class holds PM_QOS_MAX_REQUESTS requests.
 */
CPUIDLE_API int pm_qos_add_requirement(struct cpuidle_system *sys, int qos,
				       const char *name, int32_t value);

/**
 * pm_qos_update_requirement() - change a named request
 * @sys: the system
 * @qos: the class
 * @name: a live request
 * @new_value: as for pm_qos_add_requirement()
 *
 * Return: 0 on success; -EINVAL as for pm_qos_add_requirement(); -ENOENT
 * if no request of that name is live.
 */
CPUIDLE_API int pm_qos_update_requirement(struct cpuidle_system *sys, int qos,
					  const char *name, int32_t new_value);

/**
 * pm_qos_remove_requirement() - drop a named request
 * @sys: the system
 * @qos: the class
 * @name: a live request
 *
 * The article's version returns nothing; ours reports misuse.
 *
 * Return: 0 on success; -EINVAL for NULL arguments or an unknown class;
 * -ENOENT if no request of that name is live.
 */
CPUIDLE_API int pm_qos_remove_requirement(struct cpuidle_system *sys, int qos,
					  const char *name);

/**
 * pm_qos_requirement() - the aggregate requirement of a class
 * @sys: the system
 * @qos: the class
 *
 * Lock-free.  For PM_QOS_CPU_DMA_LATENCY: the minimum of the live
 * requests, or PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE when there is none.
 *
 * Return: the aggregate; -EINVAL for a NULL @sys or an unknown class.
 */
CPUIDLE_API int32_t pm_qos_requirement(struct cpuidle_system *sys, int qos);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_PM_QOS_H */
