// SPDX-License-Identifier: MIT
/*
 * pm_qos.c - named QoS requests and their aggregate (the 2.6.34
 * kernel/pm_qos_params.c, with the modern rule that a change of the CPU
 * latency aggregate wakes every idle CPU so it selects again).
 *
 * Requests are few and change rarely, so each class keeps a plain array and
 * recomputes its aggregate on every change; readers only load the cached
 * aggregate, lock-free.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int cpuidle_qos_init(struct cpuidle_system *sys)
{
	static const struct {
		int32_t def;
		bool max_wins;
	} classes[PM_QOS_NUM_CLASSES] = {
		[PM_QOS_CPU_DMA_LATENCY] = { PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE, false },
		[PM_QOS_NETWORK_LATENCY] = { PM_QOS_NETWORK_LAT_DEFAULT_VALUE, false },
		[PM_QOS_NETWORK_THROUGHPUT] = { PM_QOS_NETWORK_THROUGHPUT_DEFAULT_VALUE, true },
	};
	int c;

	for (c = 0; c < PM_QOS_NUM_CLASSES; c++) {
		sys->qos[c].default_value = classes[c].def;
		sys->qos[c].max_wins = classes[c].max_wins;
		sys->qos[c].target = classes[c].def;
	}
	return 0;
}

void cpuidle_qos_exit(struct cpuidle_system *sys)
{
	int c;

	for (c = 0; c < PM_QOS_NUM_CLASSES; c++)
		free(sys->qos[c].reqs);
}

static bool class_valid(int qos)
{
	return qos > PM_QOS_RESERVED && qos < PM_QOS_NUM_CLASSES;
}

static bool request_name_valid(const char *name)
{
	return name && name[0] && memchr(name, 0, PM_QOS_NAME_MAX);
}

static struct pm_qos_request *find_request(struct pm_qos_class *c, const char *name)
{
	int i;

	for (i = 0; i < c->count; i++)
		if (!strcmp(c->reqs[i].name, name))
			return &c->reqs[i];
	return NULL;
}

/* Recompute the aggregate; on a CPU latency change, wake idle CPUs. */
static void update_target(struct cpuidle_system *sys, int qos)
{
	struct pm_qos_class *c = &sys->qos[qos];
	int32_t v = c->default_value;
	int i;

	for (i = 0; i < c->count; i++) {
		int32_t r = c->reqs[i].value;

		if (i == 0 || (c->max_wins ? r > v : r < v))
			v = r;
	}
	if (v == READ_ONCE(c->target))
		return;
	__atomic_store_n(&c->target, v, __ATOMIC_SEQ_CST);
	if (qos == PM_QOS_CPU_DMA_LATENCY)
		cpuidle_kick_all(sys);
}

static int check_value(const struct pm_qos_class *c, int32_t *value)
{
	if (*value == PM_QOS_DEFAULT_VALUE)
		*value = c->default_value;
	return *value < 0 ? -EINVAL : 0;
}

int pm_qos_add_requirement(struct cpuidle_system *sys, int qos, const char *name,
			   int32_t value)
{
	struct pm_qos_class *c;
	bool locked;
	int ret = 0;

	if (!sys || !class_valid(qos) || !request_name_valid(name))
		return -EINVAL;
	c = &sys->qos[qos];
	if (check_value(c, &value))
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	if (find_request(c, name)) {
		ret = -EEXIST;
		goto out;
	}
	if (c->count == c->cap) {
		int cap = c->cap ? c->cap * 2 : 4;
		struct pm_qos_request *r;

		if (c->count == PM_QOS_MAX_REQUESTS) {
			ret = -ENOSPC;
			goto out;
		}
		if (cap > PM_QOS_MAX_REQUESTS)
			cap = PM_QOS_MAX_REQUESTS;
		r = realloc(c->reqs, (size_t)cap * sizeof(*r));
		if (!r) {
			ret = -ENOMEM;
			goto out;
		}
		c->reqs = r;
		c->cap = cap;
	}
	strcpy(c->reqs[c->count].name, name);
	c->reqs[c->count].value = value;
	c->count++;
	update_target(sys, qos);
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int pm_qos_update_requirement(struct cpuidle_system *sys, int qos, const char *name,
			      int32_t new_value)
{
	struct pm_qos_request *r;
	struct pm_qos_class *c;
	bool locked;
	int ret = 0;

	if (!sys || !class_valid(qos) || !request_name_valid(name))
		return -EINVAL;
	c = &sys->qos[qos];
	if (check_value(c, &new_value))
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	r = find_request(c, name);
	if (!r) {
		ret = -ENOENT;
		goto out;
	}
	if (r->value != new_value) {
		r->value = new_value;
		update_target(sys, qos);
	}
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int pm_qos_remove_requirement(struct cpuidle_system *sys, int qos, const char *name)
{
	struct pm_qos_request *r;
	struct pm_qos_class *c;
	bool locked;
	int ret = 0;

	if (!sys || !class_valid(qos) || !request_name_valid(name))
		return -EINVAL;
	c = &sys->qos[qos];
	locked = cpuidle_sys_lock(sys);
	r = find_request(c, name);
	if (!r) {
		ret = -ENOENT;
		goto out;
	}
	*r = c->reqs[--c->count];
	update_target(sys, qos);
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int32_t pm_qos_requirement(struct cpuidle_system *sys, int qos)
{
	if (!sys || !class_valid(qos))
		return -EINVAL;
	return __atomic_load_n(&sys->qos[qos].target, __ATOMIC_RELAXED);
}
