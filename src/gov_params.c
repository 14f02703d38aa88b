// SPDX-License-Identifier: MIT
/*
 * gov_params.c - governor tunables, per system (the kernel's module
 * parameters of the governors, e.g. /sys/module/haltpoll/parameters/).
 *
 * A governor declares its tunables (struct cpuidle_governor.params: name,
 * type, offset, default, range) and the size of the struct that holds
 * them; the core knows none by name.  At registration the system makes a
 * block of that size for it and sets the defaults; the attribute tree
 * (sysfs.c) walks the table for module/GOV/parameters/, and the governor
 * reads its block with cpuidle_dev_gov_params().
 *
 * The kernel keeps module parameters in static variables read without a
 * lock by every CPU and written by sysfs.  Here they live in the system,
 * so that several systems of one process can be tuned apart: written under
 * the system lock one field at a time, read lock-free by the governors,
 * each field with a single relaxed load, as the kernel reads each parameter
 * once.  A block lives as long as its system: a lock-free reader never
 * sees it go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t field_size(const struct cpuidle_param *p)
{
	return p->type == CPUIDLE_PARAM_BOOL ? sizeof(bool) : sizeof(unsigned int);
}

/* a file name of the attribute tree: [A-Za-z0-9_], 1 to CPUIDLE_PARAM_NAME_MAX */
static bool param_name_valid(const char *name)
{
	size_t n;

	if (!name)
		return false;
	for (n = 0; name[n]; n++)
		if (n == CPUIDLE_PARAM_NAME_MAX ||
		    !((name[n] >= 'a' && name[n] <= 'z') || (name[n] >= 'A' && name[n] <= 'Z') ||
		      (name[n] >= '0' && name[n] <= '9') || name[n] == '_'))
			return false;
	return n > 0;
}

/* is @gov's table sound: every field inside the block, every default in range? */
static bool table_valid(const struct cpuidle_governor *gov)
{
	const struct cpuidle_param *p;
	unsigned int i;

	if (!gov->nr_params)
		return !gov->params;
	if (!gov->params || !gov->params_size)
		return false;
	for (i = 0; i < gov->nr_params; i++) {
		p = &gov->params[i];
		if (!param_name_valid(p->name) ||
		    (p->type != CPUIDLE_PARAM_UINT && p->type != CPUIDLE_PARAM_BOOL) ||
		    p->offset > gov->params_size || field_size(p) > gov->params_size - p->offset ||
		    p->offset % field_size(p) || p->min > p->def || p->def > p->max ||
		    (p->type == CPUIDLE_PARAM_BOOL && p->max > 1) ||
		    cpuidle_gov_param_find(gov, p->name, strlen(p->name)) != p)
			return false;
	}
	return true;
}

static void store(void *block, const struct cpuidle_param *p, unsigned int value)
{
	char *field = (char *)block + p->offset;

	if (p->type == CPUIDLE_PARAM_BOOL)
		__atomic_store_n((bool *)field, value != 0, __ATOMIC_RELAXED);
	else
		__atomic_store_n((unsigned int *)field, value, __ATOMIC_RELAXED);
}

static unsigned int load(const void *block, const struct cpuidle_param *p)
{
	const char *field = (const char *)block + p->offset;

	if (p->type == CPUIDLE_PARAM_BOOL)
		return cpuidle_param_load_bool((const bool *)field);
	return cpuidle_param_load_uint((const unsigned int *)field);
}

/* @gov's entry, or NULL; lock-free */
static const struct cpuidle_gov_params *entry_of(const struct cpuidle_system *sys,
						 const struct cpuidle_governor *gov)
{
	unsigned int i;

	for (i = 0; i < CPUIDLE_MAX_GOV_PARAMS; i++) {
		const struct cpuidle_governor *g = __atomic_load_n(&sys->gov_params[i].gov,
								   __ATOMIC_ACQUIRE);

		if (!g)
			return NULL;	/* entries are taken in order */
		if (g == gov)
			return &sys->gov_params[i];
	}
	return NULL;
}

/*
 * At @gov's registration (system lock held): its block, at its defaults,
 * made the first time, reset the next.  0, -EINVAL for an unsound table,
 * -ENOMEM, or -ENOSPC when the system has had too many governors with
 * tunables.
 */
int cpuidle_gov_params_attach(struct cpuidle_system *sys, const struct cpuidle_governor *gov)
{
	struct cpuidle_gov_params *e = (struct cpuidle_gov_params *)entry_of(sys, gov);
	unsigned int i;
	void *block;

	if (!table_valid(gov))
		return -EINVAL;
	if (!gov->nr_params)
		return 0;
	if (e) {
		block = e->block;
	} else {
		for (i = 0; i < CPUIDLE_MAX_GOV_PARAMS && sys->gov_params[i].gov; i++)
			;
		if (i == CPUIDLE_MAX_GOV_PARAMS)
			return -ENOSPC;
		e = &sys->gov_params[i];
		block = calloc(1, gov->params_size);
		if (!block)
			return -ENOMEM;
	}
	for (i = 0; i < gov->nr_params; i++)
		store(block, &gov->params[i], gov->params[i].def);
	if (!e->gov) {
		e->block = block;
		__atomic_store_n(&e->gov, gov, __ATOMIC_RELEASE);	/* published */
	}
	return 0;
}

void cpuidle_gov_params_free(struct cpuidle_system *sys)
{
	unsigned int i;

	for (i = 0; i < CPUIDLE_MAX_GOV_PARAMS; i++)
		free(sys->gov_params[i].block);
}

const struct cpuidle_param *cpuidle_gov_param_find(const struct cpuidle_governor *gov,
						   const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < gov->nr_params; i++)
		if (gov->params[i].name && strlen(gov->params[i].name) == len &&
		    !memcmp(gov->params[i].name, name, len))
			return &gov->params[i];
	return NULL;
}

unsigned int cpuidle_gov_param_read(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
				    const struct cpuidle_param *param)
{
	const struct cpuidle_gov_params *e = entry_of(sys, gov);

	return e ? load(e->block, param) : param->def;
}

/* system lock held */
int cpuidle_gov_param_write(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
			    const struct cpuidle_param *param, unsigned int value)
{
	const struct cpuidle_gov_params *e = entry_of(sys, gov);

	if (value < param->min || value > param->max)
		return -EINVAL;
	if (!e)
		return -ENOENT;
	store(e->block, param, value);
	return 0;
}

/* the registered governor @governor and its tunable @name (lock held) */
static int lookup(struct cpuidle_system *sys, const char *governor, const char *name,
		  const struct cpuidle_governor **gov, const struct cpuidle_param **param)
{
	*gov = cpuidle_find_governor_locked(sys, governor);
	*param = *gov ? cpuidle_gov_param_find(*gov, name, strlen(name)) : NULL;
	return *param ? 0 : -ENOENT;
}

int cpuidle_param_get(struct cpuidle_system *sys, const char *governor, const char *name,
		      unsigned int *value)
{
	const struct cpuidle_governor *gov;
	const struct cpuidle_param *param;
	bool locked;
	int ret;

	if (!sys || !governor || !name || !value)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	ret = lookup(sys, governor, name, &gov, &param);
	if (!ret)
		*value = cpuidle_gov_param_read(sys, gov, param);
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_param_set(struct cpuidle_system *sys, const char *governor, const char *name,
		      unsigned int value)
{
	const struct cpuidle_governor *gov;
	const struct cpuidle_param *param;
	bool locked;
	int ret;

	if (!sys || !governor || !name)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	ret = lookup(sys, governor, name, &gov, &param);
	if (!ret)
		ret = cpuidle_gov_param_write(sys, gov, param, value);
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

const void *cpuidle_dev_gov_params(const struct cpuidle_device *dev,
				   const struct cpuidle_governor *gov)
{
	const struct cpuidle_system *sys;
	const struct cpuidle_gov_params *e;

	if (!dev || !gov)
		return NULL;
	sys = READ_ONCE(dev->sys);
	if (!sys)
		return NULL;
	e = entry_of(sys, gov);
	return e ? e->block : NULL;
}
