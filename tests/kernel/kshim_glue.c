// SPDX-License-Identifier: MIT
/*
 * kshim_glue.c - the kernel's services that menu.c and teo.c call, and
 * their registry, for the differential test: each call sees the inputs the
 * test set (struct kshim_input), as the kernel's governors would see the
 * tick, the timers and the QoS limit.
 */
#include "kshim.h"
#include "kshim_api.h"

_Static_assert(KSHIM_CPUS == KSHIM_NR_CPUS, "one CPU count");

long kshim_tick_nsec = 4000000L;
int kshim_cpu;

static const struct kshim_input *cur;
static struct cpuidle_governor *govs[4];
static int nr_govs;
static struct cpuidle_driver drivers[KSHIM_NR_CPUS];
static struct cpuidle_device devices[KSHIM_NR_CPUS];

/* the kernel files' initcalls and per-CPU accessors (kshim.h's macros) */
int kshim_initcall_init_menu(void);
int kshim_initcall_teo_governor_init(void);
void *kshim_percpu_menu_devices(int cpu);
size_t kshim_percpu_size_menu_devices(void);
void *kshim_percpu_teo_cpus(int cpu);
size_t kshim_percpu_size_teo_cpus(void);

int cpuidle_register_governor(struct cpuidle_governor *gov)
{
	if (nr_govs == (int)(sizeof(govs) / sizeof(govs[0])))
		return -1;
	govs[nr_govs++] = gov;
	return 0;
}

s64 cpuidle_governor_latency_req(unsigned int cpu)
{
	(void)cpu;
	return cur->latency_req_ns;
}

ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next)
{
	*delta_next = cur->delta_tick_ns;
	return cur->sleep_length_ns;
}

bool tick_nohz_tick_stopped(void)
{
	return cur->tick_stopped;
}

bool tick_nohz_idle_got_tick(void)
{
	return cur->got_tick;
}

int kshim_init(void)
{
	nr_govs = 0;
	if (kshim_initcall_init_menu() || kshim_initcall_teo_governor_init())
		return -1;
	return 0;
}

int kshim_find(const char *name)
{
	int i;

	for (i = 0; i < nr_govs; i++)
		if (!strcmp(govs[i]->name, name))
			return i;
	return -1;
}

void kshim_set_states(unsigned int cpu, int n, const int64_t *exit_latency_ns,
		      const int64_t *target_residency_ns, const bool *polling)
{
	struct cpuidle_driver *drv = &drivers[cpu];
	int i;

	memset(drv, 0, sizeof(*drv));
	drv->state_count = n;
	for (i = 0; i < n; i++) {
		drv->states[i].exit_latency_ns = exit_latency_ns[i];
		drv->states[i].target_residency_ns = target_residency_ns[i];
		drv->states[i].flags = polling[i] ? CPUIDLE_FLAG_POLLING : 0;
	}
}

int kshim_enable(int gov, unsigned int cpu)
{
	struct cpuidle_device *dev = &devices[cpu];

	memset(dev, 0, sizeof(*dev));
	dev->cpu = cpu;
	dev->last_state_idx = -1;
	kshim_cpu = (int)cpu;
	return govs[gov]->enable ? govs[gov]->enable(&drivers[cpu], dev) : 0;
}

static void set_inputs(struct cpuidle_device *dev, const struct kshim_input *in,
		       uint64_t last_residency_ns, bool poll_time_limit)
{
	cur = in;
	kshim_tick_nsec = in->tick_nsec;
	kshim_cpu = (int)dev->cpu;
	dev->last_residency_ns = last_residency_ns;
	dev->poll_time_limit = poll_time_limit;
}

int kshim_select(int gov, unsigned int cpu, const struct kshim_input *in, uint32_t disabled,
		 uint64_t last_residency_ns, bool poll_time_limit, bool *stop_tick)
{
	struct cpuidle_device *dev = &devices[cpu];
	int i;

	set_inputs(dev, in, last_residency_ns, poll_time_limit);
	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		dev->states_usage[i].disable = (disabled >> i) & 1;
	*stop_tick = true;	/* as do_idle() starts it */
	return govs[gov]->select(&drivers[cpu], dev, stop_tick);
}

void kshim_reflect(int gov, unsigned int cpu, const struct kshim_input *in, int state,
		   uint64_t last_residency_ns, bool poll_time_limit)
{
	struct cpuidle_device *dev = &devices[cpu];

	set_inputs(dev, in, last_residency_ns, poll_time_limit);
	if (govs[gov]->reflect)
		govs[gov]->reflect(dev, state);
}

int kshim_last_state_idx(unsigned int cpu)
{
	return devices[cpu].last_state_idx;
}

bool kshim_poll_time_limit(unsigned int cpu)
{
	return devices[cpu].poll_time_limit;
}

const struct kshim_menu_device *kshim_menu(unsigned int cpu)
{
	return kshim_percpu_menu_devices((int)cpu);
}

const struct kshim_teo_cpu *kshim_teo(unsigned int cpu)
{
	return kshim_percpu_teo_cpus((int)cpu);
}

size_t kshim_menu_size(void)
{
	return kshim_percpu_size_menu_devices();
}

size_t kshim_teo_size(void)
{
	return kshim_percpu_size_teo_cpus();
}

void kshim_menu_set(unsigned int cpu, const struct kshim_menu_device *d)
{
	memcpy(kshim_percpu_menu_devices((int)cpu), d, sizeof(*d));
}

void kshim_teo_set(unsigned int cpu, const struct kshim_teo_cpu *d)
{
	memcpy(kshim_percpu_teo_cpus((int)cpu), d, sizeof(*d));
}
