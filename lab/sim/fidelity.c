// SPDX-License-Identifier: MIT
/*
 * fidelity.c - the replay of a recording through the port of the governor
 * that recorded it, on the machine that recorded it (cpuidle fidelity, and
 * the Python package's fidelity()): which governor, which platform, which
 * tunables, and what the kernel itself chose, for every consumer alike.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuidle/lab.h"
#include "kstats.h"
#include "lab_trace.h"
#include "recording.h"

#define HALTPOLL_WINDOW_ATTR	"module/haltpoll/parameters/guest_halt_poll_ns"
/* the kernel's default for it (haltpoll.c), which the port starts from too */
#define HALTPOLL_DEFAULT_WINDOW_NS	200000u
/* the caller's writes a plan takes, beyond the name's and the recording's */
#define FIDELITY_USER_ATTRS	64
#define FIDELITY_MAX_ATTRS	(1 + RECORDING_MAX_ATTRS + FIDELITY_USER_ATTRS)

/*
 * What the kernel's own polling window adjustments (haltpoll's
 * power:guest_halt_poll_ns after a halt, kept in the intervals) say of
 * haltpoll's cap, guest_halt_poll_ns, which a trace does not log: it is at
 * least the widest window logged, and below the kernel's residency of
 * every halt after which the window went to 0.  (haltpoll.c's
 * adjust_poll_limit() grows the window after a halt no longer than the
 * cap, never to 0 while guest_halt_poll_grow_start, 50 us by default, is
 * above 0, and shrinks it after a longer one; the trace's stay is the
 * kernel's residency plus the cost of its events, so it bounds the cap
 * from above too.)
 */
struct window_evidence {
	uint64_t events;		/* adjustments kept in the intervals */
	uint64_t widest_ns;		/* the widest window logged */
	uint64_t shrunk_after_ns;	/* the shortest halt before a 0; UINT64_MAX: none */
};

struct cpuidle_lab_fidelity {
	struct recording rec;		/* its strings are the run's attrs */
	struct cpuidle_platform platform;
	char governor[CPUIDLE_NAME_LEN];
	char window_attr[96];
	const char *attrs[FIDELITY_MAX_ATTRS + 1];
	struct cpuidle_lab_census census;
	struct window_evidence windows;
	int64_t clock_offset_ns;
	struct cpuidle_lab_run run;
};

static void note(const struct cpuidle_lab_fidelity_options *opt, bool warning,
		 const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!opt->note)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	opt->note(opt->note_ctx, warning, msg);
}

static const struct cpuidle_governor *
find_governor(const char *name, const struct cpuidle_governor *const *extra)
{
	const struct cpuidle_governor *const *g, *builtin = cpuidle_builtin_governor(name);

	if (builtin)	/* NAME or NAME@RELEASE */
		return builtin;
	for (g = extra; g && *g; g++)
		if (!strcmp((*g)->name, name))
			return *g;
	return NULL;
}

/* Does "-NAME." (haltpoll: "-haltpollDIGITS.") of @gov appear in @base? */
static bool name_in_path(const char *base, const struct cpuidle_governor *g, char *gov,
			 size_t len, long long *window_us)
{
	char pat[CPUIDLE_NAME_LEN + 2];
	const char *p;

	snprintf(pat, sizeof(pat), "-%s", g->name);
	for (p = strstr(base, pat); p; p = strstr(p + 1, pat)) {
		const char *d = p + strlen(pat), *e = d;

		if (!strcmp(g->name, "haltpoll"))
			while (*e >= '0' && *e <= '9' && e - d < 9)
				e++;
		if (*e != '.')
			continue;
		if (e > d)
			*window_us = strtoll(d, NULL, 10);
		snprintf(gov, len, "%s", g->name);
		return true;
	}
	return false;
}

int cpuidle_lab_governor_from_name(const char *path, char *gov, size_t len,
				   long long *window_us)
{
	const struct cpuidle_governor *const *g;
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	*window_us = -1;
	for (g = cpuidle_builtin_governors(); *g; g++)
		if (name_in_path(base, *g, gov, len, window_us))
			return 0;
	for (g = cpuidle_versioned_governors(); *g; g++)	/* "-teo@7.1." */
		if (name_in_path(base, *g, gov, len, window_us))
			return 0;
	return -ENOENT;
}

/* the kernel's choices, tallied per state over the trace's intervals */
struct census_tally {
	int nr_states;
	uint64_t entries;
	uint64_t in_state[TRACE_MAX_STATES];
	struct window_evidence windows;
};

static void tally(struct census_tally *c, const struct cpuidle_platform *p,
		  const struct idle_interval *iv)
{
	bool partial = iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END);
	int j;

	for (j = 0; j < iv->nr_entries && j < IV_MAX_KSTATES; j++) {
		int k = iv->kstates[j];

		if (k < 0 || k >= TRACE_MAX_STATES)
			continue;
		if (iv->kwindow_mask & (1u << j)) {
			struct window_evidence *w = &c->windows;

			w->events++;
			if (iv->kwindow[j] > w->widest_ns)
				w->widest_ns = iv->kwindow[j];
			/* a halt's (a polling entry adjusts nothing) */
			if (!iv->kwindow[j] && iv->kresidency[j] < UINT32_MAX &&
			    iv->kresidency[j] < w->shrunk_after_ns &&
			    !(k < p->state_count && (p->states[k].flags & CPUIDLE_FLAG_POLLING)))
				w->shrunk_after_ns = iv->kresidency[j];
		}
		if (k + 1 > c->nr_states)
			c->nr_states = k + 1;
		if (partial)
			continue;
		c->entries++;
		c->in_state[k]++;
	}
	/* the entries past those kept, where they were all in one state */
	if ((iv->flags & IV_KSTATES_REST) && !partial) {
		int k = iv->kstates[IV_MAX_KSTATES - 1];

		if (k >= 0 && k < TRACE_MAX_STATES) {
			c->entries += iv->nr_entries - IV_MAX_KSTATES;
			c->in_state[k] += iv->nr_entries - IV_MAX_KSTATES;
		}
	}
}

/* nr_states -1 where the trace cannot be read: its replay will say why */
static void take_census(const struct cpuidle_lab_trace *t, const struct cpuidle_platform *p,
			struct cpuidle_lab_census *out, struct window_evidence *windows)
{
	struct census_tally *c = calloc(1, sizeof(*c));
	struct replay_source *src;
	struct idle_interval iv;
	int ret, s;

	*out = (struct cpuidle_lab_census){ .nr_states = -1, .top_state = -1 };
	*windows = (struct window_evidence){ .shrunk_after_ns = UINT64_MAX };
	if (!c)
		return;
	c->windows.shrunk_after_ns = UINT64_MAX;
	if (lab_trace_stream(t, &src)) {
		free(c);
		return;
	}
	while ((ret = src->next(src, &iv)) > 0)
		tally(c, p, &iv);
	src->close(src);
	if (!ret) {
		out->nr_states = c->nr_states;
		out->entries = c->entries;
		for (s = 0; s < TRACE_MAX_STATES; s++)
			if (c->in_state[s] && (out->top_state < 0 ||
					       c->in_state[s] > c->in_state[out->top_state]))
				out->top_state = s;
		out->top_entries = out->top_state >= 0 ? c->in_state[out->top_state] : 0;
		*windows = c->windows;
	}
	free(c);
}

/* the length of @a's PATH */
static size_t attr_path_len(const char *a)
{
	const char *eq = strchr(a, '=');

	return eq ? (size_t)(eq - a) : strlen(a);
}

static bool same_path(const char *a, const char *b)
{
	return attr_path_len(a) == attr_path_len(b) && !strncmp(a, b, attr_path_len(a));
}

/*
 * Where neither the name, the description nor the caller says haltpoll's
 * cap, its default, which the replay would take, may contradict the
 * kernel's own adjustments (struct window_evidence): the recording VM of
 * the shared *-haltpoll traces ran with guest_halt_poll_ns = 0.  Then the
 * widest window logged is taken, the smallest cap the trace allows.
 * Return: that cap in ns, or -1 to leave the default.
 */
static long long window_from_trace(const struct cpuidle_lab_fidelity *f, const char *path,
				   const struct cpuidle_lab_fidelity_options *opt)
{
	const struct window_evidence *w = &f->windows;
	const char *const *u;
	size_t i;

	if (strcmp(f->governor, "haltpoll") || !w->events)
		return -1;
	for (i = 0; i < f->rec.nr_attrs; i++)
		if (same_path(f->rec.attrs[i], HALTPOLL_WINDOW_ATTR))
			return -1;
	for (u = opt->attrs; u && *u; u++)
		if (same_path(*u, HALTPOLL_WINDOW_ATTR))
			return -1;
	if (w->shrunk_after_ns > HALTPOLL_DEFAULT_WINDOW_NS &&
	    w->widest_ns <= HALTPOLL_DEFAULT_WINDOW_NS)
		return -1;	/* the default fits */
	if (w->shrunk_after_ns <= HALTPOLL_DEFAULT_WINDOW_NS)
		note(opt, false, "%s: haltpoll's polling window capped at %llu us "
		     "(guest_halt_poll_ns), as the kernel's own adjustments say: none wider, "
		     "and a 0 after a %.1f us halt, which the default cap of %u us would have "
		     "polled", path, (unsigned long long)w->widest_ns / 1000,
		     (double)w->shrunk_after_ns / 1000, HALTPOLL_DEFAULT_WINDOW_NS / 1000);
	else
		note(opt, false, "%s: haltpoll's polling window capped at %llu us "
		     "(guest_halt_poll_ns), the widest the kernel logged, above the default "
		     "of %u us", path, (unsigned long long)w->widest_ns / 1000,
		     HALTPOLL_DEFAULT_WINDOW_NS / 1000);
	return (long long)w->widest_ns;
}

/*
 * The name's window first, then the recording's writes, then the
 * caller's: the later write of a path wins, and a caller's write of a
 * path drops the recording's.
 */
static int plan_attrs(struct cpuidle_lab_fidelity *f, const char *path, long long window_us,
		      const struct cpuidle_lab_fidelity_options *opt, char *err, size_t errlen)
{
	const char *const *u;
	size_t n = 0, i;

	long long window_ns = window_us >= 0 ? window_us * 1000 : window_from_trace(f, path, opt);

	if (window_ns >= 0) {
		snprintf(f->window_attr, sizeof(f->window_attr), HALTPOLL_WINDOW_ATTR "=%lld",
			 window_ns);
		f->attrs[n++] = f->window_attr;
	}
	for (i = 0; i < f->rec.nr_attrs; i++) {
		for (u = opt->attrs; u && *u; u++)
			if (same_path(*u, f->rec.attrs[i]))
				break;
		if (u && *u) {
			note(opt, false, "%s: %s, not the recording's %s", path, *u,
			     f->rec.attrs[i]);
			continue;
		}
		f->attrs[n++] = f->rec.attrs[i];	/* at most RECORDING_MAX_ATTRS */
	}
	for (u = opt->attrs; u && *u; u++) {
		if (n == FIDELITY_MAX_ATTRS) {
			snprintf(err, errlen, "%s: too many attribute writes (at most %d)", path,
				 FIDELITY_USER_ATTRS);
			return -E2BIG;
		}
		f->attrs[n++] = *u;
	}
	f->attrs[n] = NULL;
	return 0;
}

static int plan_platform(struct cpuidle_lab_fidelity *f, const char *path,
			 const struct cpuidle_lab_fidelity_options *opt, char *err, size_t errlen)
{
	char why[512];
	int ret;

	if (!opt->platform && f->rec.platform) {
		ret = cpuidle_platform_parse(f->rec.platform, f->rec.platform_len,
					     "the recording's platform", &f->platform, why,
					     sizeof(why));
		if (ret) {
			snprintf(err, errlen, "%s: %s", path, why);
			return ret;
		}
		note(opt, false, "%s: on the platform it was recorded on (%s), as its "
		     "description says", path, f->platform.desc);
		return 0;
	}
	if (opt->platform && f->rec.platform)
		note(opt, false, "%s: on platform %s, not the platform it was recorded on", path,
		     opt->platform);
	ret = cpuidle_platform_load(opt->platform ? opt->platform :
				    opt->default_platform ? opt->default_platform : "haltpoll-vm",
				    &f->platform, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "%s", why[0] ? why : strerror(-ret));
	return ret;
}

static int plan_governor(struct cpuidle_lab_fidelity *f, const char *path,
			 const struct cpuidle_lab_fidelity_options *opt, long long *window_us,
			 char *err, size_t errlen)
{
	const struct cpuidle_governor *g;

	*window_us = -1;
	if (opt->governor) {
		g = find_governor(opt->governor, opt->governors);
		if (!g || !strcmp(opt->governor, CPUIDLE_LAB_ORACLE)) {
			snprintf(err, errlen, "%s: no governor '%s' here", path, opt->governor);
			return -EOPNOTSUPP;
		}
		snprintf(f->governor, sizeof(f->governor), "%s", g->name);
		return 0;
	}
	if (f->rec.governor[0]) {
		if (!find_governor(f->rec.governor, opt->governors)) {
			snprintf(err, errlen, "%s: recorded under governor '%s', which has no "
				 "port here", path, f->rec.governor);
			return -EOPNOTSUPP;
		}
		snprintf(f->governor, sizeof(f->governor), "%s", f->rec.governor);
		return 0;
	}
	if (cpuidle_lab_governor_from_name(path, f->governor, sizeof(f->governor), window_us)) {
		snprintf(err, errlen, "%s: which governor recorded it? (neither its "
			 "description nor its name, NAME-GOVERNOR.*, says)", path);
		return -ENOENT;
	}
	return 0;
}

int cpuidle_lab_fidelity_plan(const char *path, const struct cpuidle_lab_trace *t,
			      const struct cpuidle_lab_fidelity_options *opt,
			      struct cpuidle_lab_fidelity **out, char *err, size_t errlen)
{
	static const struct cpuidle_lab_fidelity_options defaults;
	const struct iv_notes *notes = lab_trace_notes(t);
	struct cpuidle_lab_fidelity *f;
	long long window_us;
	char msg[512];
	int ret;

	*out = NULL;
	err[0] = '\0';
	if (!opt)
		opt = &defaults;
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	if (notes && notes->recording_len &&
	    recording_parse(notes->recording, notes->recording_len, &f->rec, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s", path, msg);
		ret = -EINVAL;
		goto fail;
	}
	ret = plan_platform(f, path, opt, err, errlen);
	if (ret)
		goto fail;
	ret = plan_governor(f, path, opt, &window_us, err, errlen);
	if (ret)
		goto fail;
	take_census(t, &f->platform, &f->census, &f->windows);
	if (kstats_platform_mismatch(f->census.nr_states, NULL, &f->platform, msg, sizeof(msg)))
		note(opt, true, "%s: %s (is the platform the machine that recorded it?)", path,
		     msg);
	ret = plan_attrs(f, path, window_us, opt, err, errlen);
	if (ret)
		goto fail;
	f->clock_offset_ns = notes ? notes->clock_offset_ns : 0;
	f->run = (struct cpuidle_lab_run){
		.trace = t,
		.platform = &f->platform,
		.governor = f->governor,
		.governors = opt->governors,
		.qos_us = -1,
		.tick_periodic = f->rec.tick_periodic,
		.attrs = f->attrs,
		.kernel_loop = !opt->no_kernel_loop,
	};
	*out = f;
	return 0;
fail:
	free(f);
	return ret;
}

const struct cpuidle_lab_run *cpuidle_lab_fidelity_run(const struct cpuidle_lab_fidelity *f)
{
	return &f->run;
}

const struct cpuidle_lab_census *cpuidle_lab_fidelity_census(const struct cpuidle_lab_fidelity *f)
{
	return &f->census;
}

int64_t cpuidle_lab_fidelity_clock_offset(const struct cpuidle_lab_fidelity *f)
{
	return f->clock_offset_ns;
}

void cpuidle_lab_fidelity_free(struct cpuidle_lab_fidelity *f)
{
	free(f);
}
