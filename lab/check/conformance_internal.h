/* SPDX-License-Identifier: MIT */
/*
 * conformance_internal.h - what conformance.c (the runs and the judging)
 * and conformance_machine.c (the simulated machine a governor is run on,
 * its shapes and its random inputs) share
 */
#ifndef LAB_CONFORMANCE_INTERNAL_H
#define LAB_CONFORMANCE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "libcpuidle.h"
#include "cpuidle/conformance.h"

#define US		1000LL
#define MS		(1000 * US)
#define CONF_CPUS	2
#define CONF_REQUEST	"conformance"
#define CONF_MAX_REC	(1u << 20)	/* decisions kept for the determinism check */

struct conf_state {
	const char *name;
	int64_t exit_ns;
	int64_t residency_ns;
	unsigned int flags;
};

struct conf_shape {
	const char *name;
	const char *desc;
	unsigned int tick_hz;
	int count;
	struct conf_state states[CPUIDLE_STATE_MAX];
};

/* the machines a governor is run on, one per enum conformance_shape_id */
extern const struct conf_shape conf_shapes[CONFORMANCE_NR_SHAPES];

/* One CPU of a simulated machine. */
struct conf_cpu {
	struct cpuidle_device dev;
	uint64_t clock;
	bool in_period;		/* idle, waiting for the wake-up */
	int64_t remaining;	/* to that wake-up */
	int64_t timer_left;	/* to the next timer, or CPUIDLE_TIME_INFINITE */
	bool tick_stopped;
	int mode;		/* the regime of its idle periods */
	int64_t typical;	/* their typical length */
};

struct conf_machine {
	struct cpuidle_system *sys;
	struct cpuidle_driver drv;
	struct conf_cpu cpus[CONF_CPUS];
	const struct conf_shape *shape;
	uint64_t rng;
	struct cpuidle_idle_ctx *ctx;	/* the idle call under way */
	int32_t qos_us;			/* our request; -1: none */
	bool bm_active;
	bool no_broadcast;
	bool reject;			/* the next enter() refuses */
	bool enter_called;
	int64_t stay;			/* of the last enter() */
	uint64_t entries;
};

/* One idle call: its inputs and the answers. */
struct conf_decision {
	unsigned int cpu;
	int64_t sleep_ns;
	int64_t delta_tick_ns;
	bool tick_stopped;
	int32_t qos_us;		/* the aggregate in force */
	uint32_t disabled;	/* bit i: state i disabled */
	int last_state;		/* entered in the CPU's last idle call, -1: none */
	uint64_t last_residency_ns;
	bool selected_valid;	/* select() was called */
	int selected;
	int entered;
	bool stop_tick;
	int ret;
	int64_t stay;
};

/* What determinism compares, per decision. */
struct conf_rec {
	int32_t selected;
	int16_t entered;
	uint8_t cpu;
	uint8_t stop_tick;
	int64_t stay;
};

/* The state of one conformance_check() call. */
struct conf_ctx {
	const struct cpuidle_governor *gov;
	const struct cpuidle_governor *partners[32];
	unsigned int nr_partners;
	struct conformance_report *rep;
	uint64_t seed;
	unsigned int entries;
	struct conf_rec *rec;		/* shape run's decisions */
	unsigned int nr_rec;
	bool rec_ok;			/* the shape's base run completed */
};

/* ------------------------------------------------------------ random */

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

static inline bool rng_one_in(uint64_t *s, unsigned int n)
{
	return rng_below(s, n) == 0;
}

/* Roughly log-uniform in [1, 2^bits). */
static inline int64_t rng_log(uint64_t *s, unsigned int bits)
{
	unsigned int k = (unsigned int)rng_below(s, bits);

	return (int64_t)((1ull << k) + rng_below(s, 1ull << k));
}

/* conformance_machine.c */
int conf_machine_init(const struct conf_ctx *cc, int shape,
			     const struct cpuidle_governor *start, uint64_t seed,
			     struct conf_machine **out, bool *dev_err);
void conf_machine_fini(struct conf_machine *m);
void conf_step(struct conf_machine *m, struct conf_decision *d);
int64_t conf_exit_ns(const struct conf_machine *m, int i);
bool conf_same_name(const struct cpuidle_governor *a, const struct cpuidle_governor *b);

#endif /* LAB_CONFORMANCE_INTERNAL_H */
