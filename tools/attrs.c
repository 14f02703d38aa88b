// SPDX-License-Identifier: MIT
/*
 * attrs.c - what the lab's commands share about the replayed system: the
 * attribute writes of -s (checked once, on a scratch system, so that a bad
 * one is reported clearly before any work), the note for a platform whose
 * states have no power figure, and what a recording's description
 * (recording.h) says of its machine: the platform and the tunables a
 * replay uses unless -p and -s say otherwise.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ivf.h"
#include "cpuidle/lab.h"
#include "recording.h"
#include "trace.h"

static uint64_t zero_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return 0;
}

int cli_check_attrs(const char *cmd, const char *const *attrs)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	const struct cpuidle_governor *const *g;
	struct cpuidle_system *sys;
	int ret = 0;

	if (!attrs || !*attrs)
		return 0;
	if (cpuidle_system_create(&opts, &sys))
		return cli_error(cmd, "out of memory");
	/* the plugins' governors have tunables too: load them (-g) first */
	for (g = cli_plugin_governors(); *g && !ret; g++)
		if (cpuidle_register_governor(sys, *g))
			ret = cli_error(cmd, "governor '%s': cannot be registered", (*g)->name);
	for (; !ret && *attrs; attrs++) {
		const char *eq = strchr(*attrs, '=');
		char path[256];
		int err;

		if (!eq || eq == *attrs || (size_t)(eq - *attrs) >= sizeof(path)) {
			ret = cli_error(cmd, "-s '%s': PATH=VALUE expected", *attrs);
			break;
		}
		memcpy(path, *attrs, (size_t)(eq - *attrs));
		path[eq - *attrs] = '\0';
		/* written after the run's governor is chosen: it would replay another */
		if (!strcmp(path, "cpuidle/current_governor")) {
			ret = cli_error(cmd, "-s '%s': choose governors with -g (this write "
					"would replay another governor under the first one's "
					"name)", *attrs);
			break;
		}
		if (!strncmp(path, "cpu", 3) && path[3] >= '0' && path[3] <= '9')
			continue;	/* a device file: checked when the devices exist */
		err = cpuidle_attr_write(sys, path, eq + 1);
		if (err)
			ret = cli_error(cmd, "-s '%s': %s", *attrs, strerror(-err));
	}
	cpuidle_system_destroy(sys);
	return ret;
}

void cli_note_power_unknown(const char *cmd, const struct cpuidle_platform *p, const char *spec)
{
	char names[CPUIDLE_STATE_MAX * (CPUIDLE_NAME_LEN + 2)] = "";
	size_t len = 0;
	int c, s, n = 0;

	for (s = 0; s < p->state_count; s++) {
		bool unknown = false;

		for (c = 0; c < p->nr_clusters; c++)
			unknown |= p->clusters[c].states[s].model_power_mw < 0;
		if (!unknown)
			continue;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", n ? ", " : "",
					p->states[s].name);
		n++;
	}
	if (!n) {
		/* the states' power known, the running power not: said, as energy leaves it out */
		for (c = 0; c < p->nr_clusters && p->clusters[c].active_power_mw >= 0; c++)
			;
		if (c < p->nr_clusters)
			cli_note(cmd, "platform %s gives no running power "
				"(active_power_mw) for cluster %s: energy counts the idle states "
				"(and clusters' shared power) only, the oracle's too, so energy over "
				"the oracle still compares governors", p->name,
				p->clusters[c].name);
		return;
	}
	cli_note(cmd, "platform %s gives no power for %s %s (sysfs "
		"shows none, 4294967295, on most machines), so energy is unknown: replay on a "
		"modelled platform (" CLI_NAME " platform list), or give %s model_power_mw in "
		"%s (libcpuidle-platform(5))", p->name, n == 1 ? "state" : "states", names,
		n == 1 ? "it" : "them", cli_platform_file(spec) ? cli_platform_file(spec) :
		"a copy of the platform file");
}

int cli_recording(const char *cmd, const char *path, struct recording *rec)
{
	const char *text = NULL;
	size_t len = 0;
	struct trace_info *info = NULL;
	struct ivf_reader *ir = NULL;
	char err[600];
	int ret = 0;

	memset(rec, 0, sizeof(*rec));
	if (!ivf_path_rereadable(path))
		return 0;	/* standard input, a pipe or FIFO: read once, by the command */
	if (ivf_is_file(path)) {
		if (ivf_open(path, &ir, err, sizeof(err)))
			return 0;	/* the command says why */
		text = ivf_reader_info(ir)->notes.recording;
		len = ivf_reader_info(ir)->notes.recording_len;
	} else {
		/* the description only: the events' reader (a perf.data's formats) opens once */
		info = malloc(sizeof(*info));
		if (!info)
			return cli_error(cmd, "out of memory");
		if (trace_read_info(path, info, err, sizeof(err))) {
			free(info);
			return 0;	/* the command says why */
		}
		text = info->recording;
		len = info->recording_len;
	}
	if (len && recording_parse(text, len, rec, err, sizeof(err)))
		ret = cli_error(cmd, "%s: %s", path, err);
	else if (rec->derived)
		cli_note_on(cmd, path, "not a recording: derived %s (" CLI_NAME
			" fleet-gen)", rec->derived);
	if (!ret && rec->tick_periodic && strcmp(cmd, "stats"))
		cli_note_on(cmd, path, "its kernel never stopped its tick (the "
			"recording says 'tick periodic'): replayed so, whatever the governors "
			"ask");
	if (ir)
		ivf_close(ir);
	free(info);
	return ret;
}

int cli_recording_platform(const char *cmd, const char *path, const struct recording *rec,
			   const char *spec, const char *default_spec,
			   struct cpuidle_platform *out)
{
	char err[600];
	int ret;

	if (!spec && rec->platform) {
		ret = cpuidle_platform_parse(rec->platform, rec->platform_len,
					     "the recording's platform", out, err, sizeof(err));
		if (ret)
			return cli_error(cmd, "%s: %s", path, err);
		cli_note_on(cmd, path, "on the platform it was recorded on "
			"(%s), as its description says; -p chooses another", out->desc);
		return 0;
	}
	if (spec && rec->platform)
		cli_note_on(cmd, path, "on -p %s, not the platform it was "
			"recorded on", spec);
	ret = cpuidle_platform_load(spec ? spec : default_spec, out, err, sizeof(err));
	if (ret)
		return cli_error(cmd, "%s", err[0] ? err : strerror(-ret));
	return 0;
}

/* the length of @a's PATH */
static size_t attr_path_len(const char *a)
{
	const char *eq = strchr(a, '=');

	return eq ? (size_t)(eq - a) : strlen(a);
}

int cli_recording_attrs(const char *cmd, const char *path, const struct recording *rec,
			const char *const *user, const char **out, size_t max)
{
	size_t n = 0, i;
	const char *const *u;

	for (i = 0; i < rec->nr_attrs; i++) {
		for (u = user; u && *u; u++)
			if (attr_path_len(*u) == attr_path_len(rec->attrs[i]) &&
			    !strncmp(*u, rec->attrs[i], attr_path_len(*u)))
				break;
		if (u && *u) {
			cli_note_on(cmd, path, "-s %s, not the recording's %s", *u, rec->attrs[i]);
			continue;
		}
		if (n == max)
			return cli_error(cmd, "too many attribute writes");
		out[n++] = rec->attrs[i];
	}
	for (u = user; u && *u; u++) {
		if (n == max)
			return cli_error(cmd, "too many attribute writes");
		out[n++] = *u;
	}
	out[n] = NULL;
	return 0;
}

/*
 * More than this share of a replay's intervals with an unknown or a
 * reconstructed next timer is worth saying: a few at a trace's start
 * (before its CPUs' timers were seen) are normal and change little.
 */
#define TIMER_UNKNOWN_WARN_PCT	1.0

void cli_note_extrapolated(const char *cmd, const char *path, const struct cpuidle_lab_result *res)
{
	char estimate[160] = "";

	if (!res->extrapolated)
		return;
	if (res->approximated)
		snprintf(estimate, sizeof(estimate), "; %llu of them past %u entries in an "
			 "interval, the governor's state still changing: an estimate",
			 (unsigned long long)res->approximated,
			 CPUIDLE_LAB_EXACT_ENTRIES * CPUIDLE_LAB_CAP_FACTOR);
	cli_note_on(cmd, path, "governor %s: %llu of %llu idle entries, in intervals "
		"of over %u entries, were counted as repeats of a steady state, not replayed "
		"one by one%s (libcpuidle-replay(7), BOUNDED WORK)", res->governor,
		(unsigned long long)res->extrapolated, (unsigned long long)res->entries,
		CPUIDLE_LAB_EXACT_ENTRIES, estimate);
}

void cli_warn_timer_unknown(const char *cmd, const char *path, uint64_t intervals,
			    uint64_t nr_guessed, uint64_t nr_unknown)
{
	double unknown, guessed;

	if (!intervals)
		return;
	unknown = 100.0 * (double)nr_unknown / (double)intervals;
	guessed = 100.0 * (double)nr_guessed / (double)intervals;
	if (unknown > TIMER_UNKNOWN_WARN_PCT)
		cli_warn_on(cmd, path, "the next timer is unknown in %llu of "
			"%llu replayed intervals (%.1f%%): the trace shows no timer armed before "
			"them (timer:hrtimer_start, timer:hrtimer_expire_entry, timer:tick_stop) "
			"nor the CPU's local timer interrupts, so the governors were told there "
			"was none, which the kernel hardly ever is; their choices there are the "
			"lab's guess", (unsigned long long)nr_unknown,
			(unsigned long long)intervals, unknown);
	if (guessed > TIMER_UNKNOWN_WARN_PCT)
		cli_note_on(cmd, path, "the next timer is reconstructed in %llu "
			"of %llu replayed intervals (%.1f%%) from the CPUs' local timer "
			"interrupts, the trace showing no timer armed before them (exact where "
			"a timer woke the CPU, else the next one that fired: see 'reconstructed "
			"timers' in cpuidle(1))", (unsigned long long)nr_guessed,
			(unsigned long long)intervals, guessed);
}

void cli_timer_split(char *buf, size_t len, const struct cpuidle_lab_result *res)
{
	uint64_t known = res->intervals - res->timer_unknown - res->timer_guessed;

	snprintf(buf, len, "%llu traced, %llu reconstructed, %llu unknown",
		 (unsigned long long)known, (unsigned long long)res->timer_guessed,
		 (unsigned long long)res->timer_unknown);
}

