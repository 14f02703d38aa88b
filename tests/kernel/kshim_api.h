/* SPDX-License-Identifier: MIT */
/*
 * kshim_api.h - the kernel governors' side of the differential test, in
 * plain C types: kernel_diff.c (which sees libcpuidle's headers) talks to
 * kshim_glue.c (which sees only the shim's) through this.
 */
#ifndef KSHIM_API_H
#define KSHIM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KSHIM_CPUS	64

/* What a governor may ask the kernel during one call. */
struct kshim_input {
	int64_t sleep_length_ns;	/* tick_nohz_get_sleep_length() */
	int64_t delta_tick_ns;		/* ... and its *delta_next */
	bool tick_stopped;		/* tick_nohz_tick_stopped() */
	bool got_tick;			/* tick_nohz_idle_got_tick() */
	int64_t latency_req_ns;		/* cpuidle_governor_latency_req() */
	long tick_nsec;			/* TICK_NSEC */
};

/* The kernel's per-CPU data of menu and teo, as v6.18 lays them out. */
struct kshim_menu_device {
	int needs_update;
	int tick_wakeup;
	uint64_t next_timer_ns;
	unsigned int bucket;
	unsigned int correction_factor[6];
	unsigned int intervals[8];
	int interval_ptr;
};

struct kshim_teo_cpu {
	int64_t sleep_length_ns;
	struct {
		unsigned int intercepts;
		unsigned int hits;
	} state_bins[10];
	unsigned int total;
	unsigned int tick_intercepts;
	unsigned int short_idles;
	bool artificial_wakeup;
};

/* Register the kernel's governors (their postcore_initcall()s); 0 or -1. */
int kshim_init(void);
/* "menu" or "teo": the kernel governor's handle, -1 if not there. */
int kshim_find(const char *name);
/* @cpu's driver: @n states, as given. */
void kshim_set_states(unsigned int cpu, int n, const int64_t *exit_latency_ns,
		      const int64_t *target_residency_ns, const bool *polling);
int kshim_enable(int gov, unsigned int cpu);
int kshim_select(int gov, unsigned int cpu, const struct kshim_input *in, uint32_t disabled,
		 uint64_t last_residency_ns, bool poll_time_limit, bool *stop_tick);
void kshim_reflect(int gov, unsigned int cpu, const struct kshim_input *in, int state,
		   uint64_t last_residency_ns, bool poll_time_limit);
/* @cpu's device after a call */
int kshim_last_state_idx(unsigned int cpu);
bool kshim_poll_time_limit(unsigned int cpu);
/* the kernel's data of @cpu, and its size (to check the layout above) */
const struct kshim_menu_device *kshim_menu(unsigned int cpu);
const struct kshim_teo_cpu *kshim_teo(unsigned int cpu);
size_t kshim_menu_size(void);
size_t kshim_teo_size(void);
/* overwrite the kernel's data of @cpu (after an input it never meets) */
void kshim_menu_set(unsigned int cpu, const struct kshim_menu_device *d);
void kshim_teo_set(unsigned int cpu, const struct kshim_teo_cpu *d);

#endif /* KSHIM_API_H */
