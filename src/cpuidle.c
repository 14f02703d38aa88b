// SPDX-License-Identifier: MIT
/*
 * cpuidle.c - systems, device registration, pause, and the idle path.
 *
 * The idle path follows the kernel's cpuidle_idle_call() and
 * cpuidle_enter_state() (drivers/cpuidle/cpuidle.c, kernel/sched/idle.c):
 * select, demote a CHECK_BM state when bus mastering is active, enter
 * between two clock readings, account, reflect.
 *
 * Pausing without a lock on the hot path: an idle call announces itself in
 * dev->in_idle (an atomic exchange, which also catches two concurrent calls
 * on one device) and then checks sys->paused; the pauser sets sys->paused
 * and then waits for every in_idle to drop.  Both sides use sequentially
 * consistent operations, so at least one of them sees the other (Dekker).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "governors/gov.h"

/* ---------------------------------------------------------------- locking */

/*
 * pause_depth and pause_owner are written only by the thread holding the
 * lock through a pause, so a thread that reads itself as owner really is
 * it, and any other thread reads a value that cannot name it.
 */
bool cpuidle_paused_by_me(struct cpuidle_system *sys)
{
	return __atomic_load_n(&sys->pause_depth, __ATOMIC_RELAXED) > 0 &&
	       pthread_equal(__atomic_load_n(&sys->pause_owner, __ATOMIC_RELAXED),
			     pthread_self());
}

/*
 * Take the control lock unless this thread holds it through a pause.
 * Returns whether it was taken, for cpuidle_sys_unlock().
 */
bool cpuidle_sys_lock(struct cpuidle_system *sys)
{
	if (cpuidle_paused_by_me(sys))
		return false;
	pthread_mutex_lock(&sys->lock);
	return true;
}

void cpuidle_sys_unlock(struct cpuidle_system *sys, bool locked)
{
	if (locked)
		pthread_mutex_unlock(&sys->lock);
}

void cpuidle_kick_all(struct cpuidle_system *sys)
{
	unsigned int cpu;

	if (!sys->ops.kick)
		return;
	for (cpu = 0; cpu < sys->devices_cap; cpu++) {
		struct cpuidle_device *dev = sys->devices[cpu];

		if (dev && __atomic_load_n(&dev->in_idle, __ATOMIC_SEQ_CST))
			sys->ops.kick(dev, sys->ctx);
	}
}

/* Keep idle calls out and wait for those inside.  Lock held. */
void cpuidle_pause(struct cpuidle_system *sys)
{
	unsigned int cpu;

	__atomic_store_n(&sys->paused, 1, __ATOMIC_SEQ_CST);
	cpuidle_kick_all(sys);
	for (cpu = 0; cpu < sys->devices_cap; cpu++) {
		struct cpuidle_device *dev = sys->devices[cpu];

		if (!dev)
			continue;
		while (__atomic_load_n(&dev->in_idle, __ATOMIC_SEQ_CST)) {
			if (sys->ops.kick)
				sys->ops.kick(dev, sys->ctx);
			sched_yield();
		}
	}
}

void cpuidle_resume(struct cpuidle_system *sys)
{
	__atomic_store_n(&sys->paused, 0, __ATOMIC_SEQ_CST);
}

void cpuidle_pause_and_lock(struct cpuidle_system *sys)
{
	if (!sys)
		return;
	if (cpuidle_paused_by_me(sys)) {
		__atomic_store_n(&sys->pause_depth, sys->pause_depth + 1, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_lock(&sys->lock);
	__atomic_store_n(&sys->pause_owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&sys->pause_depth, 1, __ATOMIC_RELAXED);
	cpuidle_pause(sys);
}

void cpuidle_resume_and_unlock(struct cpuidle_system *sys)
{
	if (!sys || !cpuidle_paused_by_me(sys))
		return;
	__atomic_store_n(&sys->pause_depth, sys->pause_depth - 1, __ATOMIC_RELAXED);
	if (sys->pause_depth > 0)
		return;
	cpuidle_resume(sys);
	pthread_mutex_unlock(&sys->lock);
}

/* ---------------------------------------------------------------- systems */

int cpuidle_system_create(const struct cpuidle_system_opts *opts,
			  struct cpuidle_system **out)
{
	const struct cpuidle_governor *const *gov;
	struct cpuidle_system *sys;
	unsigned int hz;
	int ret;

	if (!opts || !out || opts->sz < sizeof(*opts) || !opts->ops.clock_ns)
		return -EINVAL;
	if (opts->flags & ~CPUIDLE_SYS_NO_BUILTIN_GOVERNORS)
		return -EINVAL;
	hz = opts->tick_hz ? opts->tick_hz : CPUIDLE_DEFAULT_TICK_HZ;
	if (hz > CPUIDLE_MAX_TICK_HZ)
		return -EINVAL;
	if (opts->governor && !cpuidle_name_valid(opts->governor, CPUIDLE_NAME_LEN))
		return -EINVAL;

	sys = calloc(1, sizeof(*sys));
	if (!sys)
		return -ENOMEM;
	sys->ops = opts->ops;
	sys->ctx = opts->ctx;
	sys->tick_nsec = (CPUIDLE_NSEC_PER_SEC + hz / 2) / hz;
	if (opts->governor)
		strcpy(sys->param_governor, opts->governor);
	pthread_mutex_init(&sys->lock, NULL);
	ret = cpuidle_qos_init(sys);
	if (ret)
		goto err;

	if (!(opts->flags & CPUIDLE_SYS_NO_BUILTIN_GOVERNORS)) {
		for (gov = cpuidle_builtin_governors(); *gov; gov++) {
			ret = cpuidle_register_governor(sys, *gov);
			if (ret)
				goto err;
		}
		for (gov = cpuidle_versioned_governors(); *gov; gov++) {
			ret = cpuidle_register_governor(sys, *gov);
			if (ret)
				goto err;
		}
	}
	*out = sys;
	return 0;
err:
	cpuidle_system_destroy(sys);
	return ret;
}

void cpuidle_system_destroy(struct cpuidle_system *sys)
{
	unsigned int cpu;

	if (!sys)
		return;
	for (cpu = 0; cpu < sys->devices_cap; cpu++)
		if (sys->devices[cpu])
			cpuidle_unregister_device(sys, sys->devices[cpu]);
	if (sys->driver)
		cpuidle_unregister_driver(sys, sys->driver);
	cpuidle_qos_exit(sys);
	cpuidle_gov_params_free(sys);
	free(sys->devices);
	pthread_mutex_destroy(&sys->lock);
	free(sys);
}

void *cpuidle_system_ctx(const struct cpuidle_system *sys)
{
	return sys ? sys->ctx : NULL;
}

int64_t cpuidle_tick_nsec(const struct cpuidle_system *sys)
{
	return sys ? sys->tick_nsec : 0;
}

/* ---------------------------------------------------------------- devices */

/*
 * Validate a state table and normalise its time units (the ns fields win
 * when both are set; the kernel's __cpuidle_driver_init() does the same
 * from the us side).  The work is done on a copy: @states is written only
 * when the whole table is valid.  @safe_index: -1 for the default.  Shared
 * with the driver template check.
 */
int cpuidle_validate_states(struct cpuidle_state *states, int count, int safe_index)
{
	struct cpuidle_state tmp[CPUIDLE_STATE_MAX];
	int64_t prev_lat = 0, prev_res = 0;
	int i, first_bm = -1;

	if (count < 1 || count > CPUIDLE_STATE_MAX)
		return -EINVAL;
	if (safe_index < -1 || safe_index >= count)
		return -EINVAL;
	memcpy(tmp, states, (size_t)count * sizeof(tmp[0]));
	for (i = 0; i < count; i++) {
		struct cpuidle_state *s = &tmp[i];

		if (!s->enter || !cpuidle_name_valid(s->name, sizeof(s->name)))
			return -EINVAL;
		if (memchr(s->desc, 0, sizeof(s->desc)) == NULL)
			return -EINVAL;
		if (s->exit_latency_ns < 0 || s->target_residency_ns < 0)
			return -EINVAL;
		if (s->exit_latency_ns == 0)
			s->exit_latency_ns = (int64_t)s->exit_latency * CPUIDLE_NSEC_PER_USEC;
		else if (s->exit_latency && s->exit_latency_ns / 1000 != s->exit_latency)
			return -EINVAL;
		if (s->target_residency_ns == 0)
			s->target_residency_ns = (int64_t)s->target_residency *
						 CPUIDLE_NSEC_PER_USEC;
		else if (s->target_residency &&
			 s->target_residency_ns / 1000 != s->target_residency)
			return -EINVAL;
		/* also keeps the us fields below from wrapping */
		if (s->exit_latency_ns > CPUIDLE_STATE_TIME_MAX_NS ||
		    s->target_residency_ns > CPUIDLE_STATE_TIME_MAX_NS)
			return -EINVAL;
		s->exit_latency = (unsigned int)(s->exit_latency_ns / 1000);
		s->target_residency = (unsigned int)(s->target_residency_ns / 1000);
		/* Index order is depth order: the governors rely on it. */
		if (s->exit_latency_ns < prev_lat || s->target_residency_ns < prev_res)
			return -EINVAL;
		prev_lat = s->exit_latency_ns;
		prev_res = s->target_residency_ns;
		if ((s->flags & CPUIDLE_FLAG_CHECK_BM) && first_bm < 0)
			first_bm = i;
	}
	if (safe_index >= 0 && (tmp[safe_index].flags & CPUIDLE_FLAG_CHECK_BM))
		return -EINVAL;
	if (safe_index < 0 && first_bm == 0)
		return -EINVAL;	/* nothing is safe while DMA runs */
	/*
	 * Written back only if something was derived: a cluster's table,
	 * complete since its first device, is read by the others' idle
	 * paths while the next device registers.
	 */
	if (memcmp(states, tmp, (size_t)count * sizeof(tmp[0])))
		memcpy(states, tmp, (size_t)count * sizeof(tmp[0]));
	return 0;
}

static int default_safe_index(const struct cpuidle_device *dev)
{
	int i;

	for (i = 0; i < dev->state_count; i++)
		if (dev->states[i].flags & CPUIDLE_FLAG_CHECK_BM)
			return i - 1;
	return dev->state_count - 1;
}

static int grow_devices(struct cpuidle_system *sys, unsigned int cpu)
{
	unsigned int cap = sys->devices_cap ? sys->devices_cap : 8;
	struct cpuidle_device **p;

	while (cap <= cpu)
		cap *= 2;
	if (cap > CPUIDLE_MAX_CPUS)
		cap = CPUIDLE_MAX_CPUS;
	p = realloc(sys->devices, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	memset(p + sys->devices_cap, 0, (cap - sys->devices_cap) * sizeof(*p));
	sys->devices = p;
	sys->devices_cap = cap;
	return 0;
}

int cpuidle_enable_device_locked(struct cpuidle_device *dev)
{
	const struct cpuidle_governor *gov = dev->sys->governor;
	int ret;

	if (dev->enabled)
		return 0;
	if (!gov)
		return -ENODEV;
	dev->last_state_idx = -1;
	dev->governor_data = NULL;
	if (gov->governor_data_size) {
		dev->governor_data = calloc(1, gov->governor_data_size);
		if (!dev->governor_data)
			return -ENOMEM;
	}
	if (gov->enable) {
		ret = gov->enable(dev);
		if (ret) {
			free(dev->governor_data);
			dev->governor_data = NULL;
			return ret;
		}
	}
	dev->enabled = true;
	return 0;
}

void cpuidle_disable_device_locked(struct cpuidle_device *dev)
{
	const struct cpuidle_governor *gov = dev->sys->governor;

	if (!dev->enabled)
		return;
	if (gov && gov->disable)
		gov->disable(dev);
	if (gov && gov->governor_data_size) {
		free(dev->governor_data);
		dev->governor_data = NULL;
	}
	dev->enabled = false;
}

int cpuidle_register_device(struct cpuidle_system *sys, struct cpuidle_device *dev)
{
	struct cpuidle_state *table, orig[CPUIDLE_STATE_MAX];
	struct cpuidle_device saved;
	struct cpuidle_driver *drv;
	int i, ret, safe, count;
	bool locked;

	if (!sys || !dev || dev->cpu >= CPUIDLE_MAX_CPUS)
		return -EINVAL;
	if (dev->state_count < 0 || dev->state_count > CPUIDLE_STATE_MAX)
		return -EINVAL;

	locked = cpuidle_sys_lock(sys);
	drv = sys->driver;
	if (!drv) {
		ret = -ENODEV;
		goto out;
	}
	if (dev->registered || (dev->cpu < sys->devices_cap && sys->devices[dev->cpu])) {
		ret = -EEXIST;
		goto out;
	}
	/*
	 * The driver's table, validated when the driver was registered, or
	 * the device's own (validated in a copy: a device refused leaves its
	 * table as it was, one accepted gets the derived fields).
	 */
	safe = -1;
	if (dev->state_count == 0 || !dev->states || dev->states == drv->states) {
		table = drv->states;
		count = drv->state_count;
		if (drv->safe_state_index >= 0)
			safe = drv->safe_state_index;
		if (!count) {
			ret = -EINVAL;	/* no states of its own, none in the driver */
			goto out;
		}
	} else {
		table = dev->states;
		count = dev->state_count;
		memcpy(orig, table, (size_t)count * sizeof(*table));
		if (dev->safe_state) {
			if (dev->safe_state < dev->states ||
			    dev->safe_state >= dev->states + count) {
				ret = -EINVAL;
				goto out;
			}
			safe = (int)(dev->safe_state - dev->states);
		}
		ret = cpuidle_validate_states(table, count, safe);
		if (ret)
			goto out;
	}
	if (dev->cpu >= sys->devices_cap) {
		ret = grow_devices(sys, dev->cpu);
		if (ret)
			goto out;
	}

	memcpy(&saved, dev, offsetof(struct cpuidle_device, in_idle));
	dev->states = table;
	dev->state_count = count;
	dev->safe_state = &dev->states[safe >= 0 ? safe : default_safe_index(dev)];
	memset(dev->states_usage, 0, sizeof(dev->states_usage));
	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];
		struct cpuidle_state_usage *su = &dev->states_usage[i];

		if (s->flags & CPUIDLE_FLAG_UNUSABLE)
			su->disable |= CPUIDLE_STATE_DISABLED_BY_DRIVER;
		if (s->flags & CPUIDLE_FLAG_OFF)
			su->disable |= CPUIDLE_STATE_DISABLED_BY_USER;
	}
	dev->last_residency = 0;
	dev->last_residency_ns = 0;
	dev->last_state = NULL;
	dev->poll_time_limit = false;
	dev->governor_data = NULL;
	WRITE_ONCE(dev->sys, sys);	/* read lock-free: cpuidle_disable_state() */
	dev->idle_ctx = NULL;
	dev->qos_latency_us = &sys->qos[PM_QOS_CPU_DMA_LATENCY].target;
	dev->tick_nsec = sys->tick_nsec;
	dev->enabled = false;
	__atomic_store_n(&dev->resume_latency_us, CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT,
			 __ATOMIC_RELAXED);

	if (sys->governor) {
		ret = cpuidle_enable_device_locked(dev);
		if (ret) {
			/* refused: left as it was (in_idle is written only on success) */
			memcpy(dev, &saved, offsetof(struct cpuidle_device, in_idle));
			if (table != drv->states)
				memcpy(table, orig, (size_t)count * sizeof(*table));
			goto out;
		}
	}
	__atomic_store_n(&dev->in_idle, 0, __ATOMIC_RELAXED);
	dev->registered = true;
	sys->devices[dev->cpu] = dev;
	sys->nr_devices++;
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_unregister_device(struct cpuidle_system *sys, struct cpuidle_device *dev)
{
	if (!sys || !dev)
		return -EINVAL;
	cpuidle_pause_and_lock(sys);
	if (!dev->registered || dev->sys != sys || dev->cpu >= sys->devices_cap ||
	    sys->devices[dev->cpu] != dev) {
		cpuidle_resume_and_unlock(sys);
		return -ENOENT;
	}
	cpuidle_disable_device_locked(dev);
	sys->devices[dev->cpu] = NULL;
	sys->nr_devices--;
	dev->registered = false;
	WRITE_ONCE(dev->sys, NULL);
	dev->qos_latency_us = NULL;
	cpuidle_resume_and_unlock(sys);
	return 0;
}

static int check_paused_device(struct cpuidle_device *dev)
{
	struct cpuidle_system *sys;

	if (!dev)
		return -EINVAL;
	/*
	 * The device may be unregistered meanwhile by the thread holding the
	 * pause: only once that is us may its fields be read.
	 */
	sys = READ_ONCE(dev->sys);
	if (!sys)
		return -ENOENT;
	if (!cpuidle_paused_by_me(sys))
		return -EPERM;
	if (!dev->registered || dev->sys != sys)
		return -ENOENT;
	return 0;
}

int cpuidle_enable_device(struct cpuidle_device *dev)
{
	int ret = check_paused_device(dev);

	return ret ? ret : cpuidle_enable_device_locked(dev);
}

int cpuidle_disable_device(struct cpuidle_device *dev)
{
	int ret = check_paused_device(dev);

	if (ret)
		return ret;
	cpuidle_disable_device_locked(dev);
	return 0;
}

/*
 * Lock @dev's system if @dev is registered in it: the device may be
 * unregistered (and registered again) by another thread until the lock is
 * held, as after an attribute tree lookup, so its fields are read only
 * then.  Returns the system, locked (*@locked for the unlock), or NULL
 * with nothing held.
 */
static struct cpuidle_system *lock_registered(const struct cpuidle_device *dev, bool *locked)
{
	struct cpuidle_system *sys = READ_ONCE(dev->sys);

	if (!sys)
		return NULL;
	*locked = cpuidle_sys_lock(sys);
	if (dev->registered && dev->sys == sys)
		return sys;
	cpuidle_sys_unlock(sys, *locked);
	return NULL;
}

int cpuidle_disable_state(struct cpuidle_device *dev, int index, unsigned int reason,
			  bool disable)
{
	struct cpuidle_system *sys;
	unsigned int *bits;
	bool locked;
	int ret = 0;

	if (!dev || index < 0 || index >= CPUIDLE_STATE_MAX)
		return -EINVAL;
	if (reason != CPUIDLE_STATE_DISABLED_BY_USER &&
	    reason != CPUIDLE_STATE_DISABLED_BY_DRIVER)
		return -EINVAL;
	sys = lock_registered(dev, &locked);
	if (!sys)
		return -ENOENT;
	if (index >= dev->state_count) {
		ret = -EINVAL;
		goto out;
	}
	bits = &dev->states_usage[index].disable;
	WRITE_ONCE(*bits, disable ? (*bits | reason) : (*bits & ~reason));
	/* As the kernel's sysfs store: forget the derived poll limit. */
	WRITE_ONCE(dev->poll_limit_ns, 0);
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_set_resume_latency(struct cpuidle_device *dev, int32_t us)
{
	struct cpuidle_system *sys;
	bool locked;
	int32_t old;

	if (!dev || us < 0)
		return -EINVAL;
	sys = lock_registered(dev, &locked);
	if (!sys)
		return -ENOENT;
	old = __atomic_exchange_n(&dev->resume_latency_us, us, __ATOMIC_SEQ_CST);
	/*
	 * As a CPU latency QoS change (update_target() in pm_qos.c): a device
	 * idle in a state chosen under the old limit leaves it and selects
	 * again, rather than only at its next idle period.
	 */
	if (old != us && sys->ops.kick && __atomic_load_n(&dev->in_idle, __ATOMIC_SEQ_CST))
		sys->ops.kick(dev, sys->ctx);
	cpuidle_sys_unlock(sys, locked);
	return 0;
}

int32_t cpuidle_resume_latency(const struct cpuidle_device *dev)
{
	struct cpuidle_system *sys;
	bool locked;
	int32_t us;

	if (!dev)
		return -EINVAL;
	sys = lock_registered(dev, &locked);
	if (!sys)
		return -ENOENT;
	us = __atomic_load_n(&dev->resume_latency_us, __ATOMIC_RELAXED);
	cpuidle_sys_unlock(sys, locked);
	return us;
}

struct cpuidle_device *cpuidle_get_device(struct cpuidle_system *sys, unsigned int cpu)
{
	struct cpuidle_device *dev = NULL;
	bool locked;

	if (!sys) {
		errno = EINVAL;
		return NULL;
	}
	locked = cpuidle_sys_lock(sys);
	if (cpu < sys->devices_cap)
		dev = sys->devices[cpu];
	cpuidle_sys_unlock(sys, locked);
	if (!dev)
		errno = ENODEV;
	return dev;
}

/* ---------------------------------------------------------------- idle path */

int cpuidle_find_deepest_state(struct cpuidle_device *dev, int64_t max_latency_ns,
			       unsigned int forbidden_flags)
{
	int64_t best_latency = 0;
	int i, ret = 0;

	if (!dev || !READ_ONCE(dev->sys))
		return -EINVAL;
	for (i = 1; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];

		if (cpuidle_is_disabled(dev, i) || s->exit_latency_ns <= best_latency ||
		    s->exit_latency_ns > max_latency_ns || (s->flags & forbidden_flags))
			continue;
		best_latency = s->exit_latency_ns;
		ret = i;
	}
	return ret;
}

/*
 * The kernel's "above"/"below" verdicts (cpuidle_enter_state()): too deep if
 * the stay was shorter than the target residency and a shallower state was
 * enabled; too shallow if the stay, less the exit latency, would have paid
 * for the next enabled deeper state.
 */
static void account_miss(struct cpuidle_device *dev, int entered, int64_t d)
{
	const struct cpuidle_state *s = &dev->states[entered];
	struct cpuidle_state_usage *su = &dev->states_usage[entered];
	int i;

	if (d < s->target_residency_ns) {
		for (i = entered - 1; i >= 0; i--) {
			if (!cpuidle_is_disabled(dev, i)) {
				WRITE_ONCE(su->above, su->above + 1);
				break;
			}
		}
	} else if (d > s->exit_latency_ns) {
		for (i = entered + 1; i < dev->state_count; i++) {
			if (cpuidle_is_disabled(dev, i))
				continue;
			if (d - s->exit_latency_ns >= dev->states[i].target_residency_ns)
				WRITE_ONCE(su->below, su->below + 1);
			break;
		}
	}
}

static int enter_state(struct cpuidle_device *dev, struct cpuidle_idle_ctx *ctx, int index)
{
	struct cpuidle_system *sys = dev->sys;
	struct cpuidle_state *target = &dev->states[index], *used;
	struct cpuidle_state_usage *su;
	bool broadcast = false;
	uint64_t t0, t1, us, t;
	int64_t d;
	int ret;

	if (unlikely(target->flags & (CPUIDLE_FLAG_CHECK_BM | CPUIDLE_FLAG_TIMER_STOP))) {
		if ((target->flags & CPUIDLE_FLAG_CHECK_BM) && sys->ops.bm_active &&
		    sys->ops.bm_active(sys, sys->ctx)) {
			target = dev->safe_state;
			index = (int)(target - dev->states);
		}
		if ((target->flags & CPUIDLE_FLAG_TIMER_STOP) && sys->ops.broadcast_enter) {
			broadcast = sys->ops.broadcast_enter(dev, sys->ctx) == 0;
			if (!broadcast) {
				index = cpuidle_find_deepest_state(dev, target->exit_latency_ns,
								   CPUIDLE_FLAG_TIMER_STOP);
				target = &dev->states[index];
			}
		}
	}
	if (target->flags & CPUIDLE_FLAG_POLLING)
		dev->poll_time_limit = false;

	dev->last_state = target;
	t0 = sys->ops.clock_ns(dev, sys->ctx);
	ret = target->enter(dev, target);
	t1 = sys->ops.clock_ns(dev, sys->ctx);
	if (unlikely(broadcast) && sys->ops.broadcast_exit)
		sys->ops.broadcast_exit(dev, sys->ctx);

	if (unlikely(ret < 0)) {
		dev->last_residency_ns = 0;
		dev->last_residency = 0;
		WRITE_ONCE(dev->states_usage[index].rejected,
			   dev->states_usage[index].rejected + 1);
		ctx->entered = -1;
		return ret;
	}

	used = dev->last_state;
	if (unlikely(used != target)) {
		if (used < dev->states || used >= dev->states + dev->state_count)
			used = dev->last_state = target;	/* driver bug: trust the request */
		index = (int)(used - dev->states);
	}
	d = likely(t1 > t0) ? (int64_t)(t1 - t0) : 0;
	us = (uint64_t)d / 1000;
	dev->last_residency_ns = (uint64_t)d;
	dev->last_residency = us > INT_MAX ? INT_MAX : (int)us;
	/*
	 * As the kernel (since the article's 2.6.24): time and the above/below
	 * verdicts count for every state; CPUIDLE_FLAG_TIME_VALID only tells
	 * governors whether last_residency can be trusted.
	 */
	su = &dev->states_usage[index];
	t = su->time_ns + (uint64_t)d;
	WRITE_ONCE(su->usage, su->usage + 1);
	WRITE_ONCE(su->time_ns, t);
	WRITE_ONCE(su->time, t / 1000);
	account_miss(dev, index, d);
	ctx->entered = index;
	return index;
}

int cpuidle_idle_call(struct cpuidle_device *dev, struct cpuidle_idle_ctx *ctx)
{
	const struct cpuidle_governor *gov;
	struct cpuidle_system *sys;
	int ret, index;

	if (unlikely(!dev || !ctx))
		return -EINVAL;
	ctx->selected = -1;
	ctx->entered = -1;
	ctx->stop_tick = true;
	ctx->expected_stay_ns = CPUIDLE_TIME_UNKNOWN;
	if (unlikely(__atomic_exchange_n(&dev->in_idle, 1, __ATOMIC_SEQ_CST)))
		return -EBUSY;
	sys = READ_ONCE(dev->sys);
	if (unlikely(!sys)) {
		ret = -ENODEV;
		goto out;
	}
	if (unlikely(__atomic_load_n(&sys->paused, __ATOMIC_SEQ_CST))) {
		ret = -EAGAIN;
		goto out;
	}
	/* Not paused: every control write is now visible and none can start. */
	gov = sys->governor;
	if (unlikely(!(dev->registered & dev->enabled) | !gov)) {
		ret = -ENODEV;
		goto out;
	}

	dev->idle_ctx = ctx;
	index = gov->select(dev, &ctx->stop_tick);
	ctx->selected = index;
	if (ctx->tick_stopped)
		ctx->stop_tick = true;
	if (unlikely(index < 0 || index >= dev->state_count)) {
		ret = -ERANGE;	/* a broken governor: enter nothing */
		goto out;
	}
	ret = enter_state(dev, ctx, index);
	if (likely(ret >= 0) && gov->reflect)
		gov->reflect(dev, ret);
out:
	if (unlikely(ret < 0))
		ctx->stop_tick = ctx->tick_stopped;
	__atomic_store_n(&dev->in_idle, 0, __ATOMIC_RELEASE);
	return ret;
}
