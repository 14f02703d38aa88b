// SPDX-License-Identifier: MIT
/*
 * table.c - the table driver: a struct cpuidle_driver built from a platform
 * (a parsed platform file), whose states idle through the embedding.
 */

/**
 * DOC: how enter() finds its way back
 *
 * Each state table is held once: the driver's (the platform's top-level
 * table, cluster 0's) for a device registered without states, and one per
 * cluster, built at cpuidle_table_driver_init(), shared by the devices
 * cpuidle_table_device_init() prepares for that cluster's CPUs.  Every
 * state carries in driver_data a struct cpuidle_table_state of the table
 * driver: the driver itself, which enter() calls back through, and the
 * platform's description of the state (its powers and energies,
 * cpuidle_table_state_model()); the index is the state's position in its
 * device's table (cpuidle_table_state_index()).  The table driver and the
 * platform must stay at the same address for as long as the driver is
 * registered, like any driver.
 *
 * The state handed to the idle callback is the one the core enters: after
 * CHECK_BM demotion it is the safe state, with the safe state's index.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "cpuidle/platform.h"

static int table_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct cpuidle_table_driver *td;
	int index;

	if (!dev || !state)
		return -EINVAL;
	td = state->driver_data ? cpuidle_table_state_driver(state) : NULL;
	index = cpuidle_table_state_index(dev, state);
	if (!td || !td->idle || index < 0)
		return -EINVAL;
	return td->idle(dev, state, index, td->ctx);
}

static bool utf8_continuation(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

/*
 * Copy a string field that may lack its terminator, truncating to fit (and
 * not in the middle of a UTF-8 sequence).  Only a real sequence is kept
 * whole: a lead byte at most three bytes back; bytes that are no UTF-8 are
 * cut where they fall, so a name never shrinks to nothing ("s" and twenty
 * stray continuation bytes used to give "", which no driver may be named).
 */
static void copy_field(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen), k;

	if (n > dstlen - 1) {
		n = dstlen - 1;
		for (k = n; k > 0 && n - k < 3 && utf8_continuation(src[k]); k--)
			;
		if (((unsigned char)src[k] & 0xc0) == 0xc0)
			n = k;	/* src[k] leads the sequence src[n] is in */
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* One template or device state from the platform's description of it. */
static void fill_state(struct cpuidle_table_driver *td, struct cpuidle_state *s,
		       struct cpuidle_table_state *data, const struct cpuidle_platform_state *ps)
{
	copy_field(s->name, sizeof(s->name), ps->name, sizeof(ps->name));
	copy_field(s->desc, sizeof(s->desc), ps->desc, sizeof(ps->desc));
	data->td = td;
	data->model = ps;
	s->driver_data = data;
	s->flags = ps->flags;
	if (cpuidle_platform_state_is_domain(ps))
		s->flags |= CPUIDLE_FLAG_DOMAIN;
	s->power_usage = ps->power_mw;
	/* ns only: registration derives the us fields. */
	s->exit_latency_ns = ps->exit_latency_ns;
	s->target_residency_ns = ps->target_residency_ns;
	s->enter = table_enter;
}

int cpuidle_table_driver_init(struct cpuidle_table_driver *td,
			      const struct cpuidle_platform *platform,
			      cpuidle_table_idle_fn idle, void *ctx)
{
	int i, c;

	if (!td || !platform || !idle)
		return -EINVAL;
	if (platform->state_count < 1 || platform->state_count > CPUIDLE_STATE_MAX)
		return -EINVAL;

	if (platform->nr_clusters < 0 || platform->nr_clusters > CPUIDLE_PLATFORM_MAX_CLUSTERS)
		return -EINVAL;
	for (c = 0; c < platform->nr_clusters; c++)
		if (platform->clusters[c].state_count < 1 ||
		    platform->clusters[c].state_count > CPUIDLE_STATE_MAX)
			return -EINVAL;

	memset(td, 0, sizeof(*td));
	td->platform = platform;
	td->idle = idle;
	td->ctx = ctx;

	copy_field(td->drv.name, sizeof(td->drv.name), platform->name, sizeof(platform->name));
	td->drv.owner = td;
	td->drv.safe_state_index = -1;
	td->drv.state_count = platform->state_count;
	for (i = 0; i < platform->state_count; i++)
		fill_state(td, &td->drv.states[i], &td->drv_data[i], &platform->states[i]);
	for (c = 0; c < platform->nr_clusters; c++)
		for (i = 0; i < platform->clusters[c].state_count; i++)
			fill_state(td, &td->cluster_states[c][i], &td->cluster_data[c][i],
				   &platform->clusters[c].states[i]);
	return 0;
}

int cpuidle_table_device_init(struct cpuidle_table_driver *td, struct cpuidle_device *dev,
			      unsigned int cpu)
{
	const struct cpuidle_platform *p;
	struct cpuidle_state *table;
	int count, cluster;

	if (!td || !dev || !td->idle || !td->platform || cpu >= CPUIDLE_MAX_CPUS)
		return -EINVAL;
	if (dev->registered)
		return -EBUSY;
	p = td->platform;
	if (p->nr_clusters) {
		cluster = cpuidle_platform_cluster_of(p, cpu);
		if (cluster < 0)
			return cluster;
		table = td->cluster_states[cluster];
		count = p->clusters[cluster].state_count;
	} else {
		/* built by hand, without clusters: the driver's table */
		table = td->drv.states;
		count = td->drv.state_count;
	}
	if (count < 1 || count > CPUIDLE_STATE_MAX)
		return -EINVAL;

	memset(dev, 0, sizeof(*dev));
	dev->cpu = cpu;
	dev->state_count = count;
	dev->states = table;
	return 0;
}
