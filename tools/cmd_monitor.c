// SPDX-License-Identifier: MIT
/*
 * cmd_monitor.c - "cpuidle monitor": what the host's idle states did in
 * each interval (usage, time as a share of the interval, above, below per
 * CPU and state), redrawn in place on a terminal, plain lines when piped,
 * and a summary over the whole run at the end.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "host_child.h"
#include "host_cli.h"

static void monitor_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " monitor [-i SEC] [-n COUNT] [-c CPULIST] [--csv | --json]\n"
		"                      [-- CMD [ARGS]]\n\n"
		"Every SEC seconds (default 1), per CPU and idle state: entries (usage),\n"
		"time idle in the state as a share of the interval, and the kernel's\n"
		"above/below verdicts, as deltas of the sysfs counters.  On a terminal\n"
		"the table is redrawn in place; piped, one line per CPU and state per\n"
		"interval.  Runs COUNT intervals, or while CMD runs (then exits with\n"
		"its status), or until interrupted; then prints a summary of the run.\n"
		"--json: one JSON object per line, per interval and for the summary\n"
		"(\"summary\": true, with the command's exit status as command_exit):\n"
		"cpus[].states[] with usage, time_ns, time_pct, and above and below\n"
		"(null where the kernel has no such file).  --csv: a header, then a row\n"
		"per interval, CPU and state, the summary's with summary 1, the same\n"
		"names (empty where null).\n\n"
		"  -i, --interval SEC      seconds between samples (default 1)\n"
		"  -n, --count COUNT       stop after COUNT intervals\n"
		"  -c, --cpus CPULIST      only these CPUs (0-3,6 or all; default all)\n"
		"      --csv               a row per interval, CPU and state\n"
		"      --json              one JSON object a line\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"The command after -- exits 127 if it is not found, 126 if it cannot run.\n"
		"See cpuidle-monitor(1).\n");
}

/* @b - @a for a counter; 0 if it went backwards (reset, driver change) */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

static bool same_layout(const struct host_cpuidle *a, const struct host_cpuidle *b)
{
	unsigned int i;

	if (a->nr_cpus != b->nr_cpus)
		return false;
	for (i = 0; i < a->nr_cpus; i++)
		if (a->cpus[i].cpu != b->cpus[i].cpu ||
		    a->cpus[i].state_count != b->cpus[i].state_count)
			return false;
	return true;
}

/* What changed from @a to @b, into @buf: "CPU 1 gone; CPU 2 new; CPU 0's states" */
static void describe_change(const struct host_cpuidle *a, const struct host_cpuidle *b,
			    char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < a->nr_cpus && n < len; i++) {
		const struct host_cpu *cb = host_find_cpu(b, a->cpus[i].cpu);

		/*
		 * a CPU whose states all went is one whose cpuidle directory
		 * went as it was read (hotplug): gone, as if read a moment later
		 */
		if (!cb || !cb->state_count)
			n += (size_t)snprintf(buf + n, len - n, "%sCPU %u gone", n ? "; " : "",
					      a->cpus[i].cpu);
		else if (cb->state_count != a->cpus[i].state_count)
			n += (size_t)snprintf(buf + n, len - n, "%sCPU %u's idle states", n ? "; " : "",
					      a->cpus[i].cpu);
	}
	for (i = 0; i < b->nr_cpus && n < len; i++)
		if (!host_find_cpu(a, b->cpus[i].cpu))
			n += (size_t)snprintf(buf + n, len - n, "%sCPU %u new", n ? "; " : "",
					      b->cpus[i].cpu);
}

static void print_delta(const struct host_cpuidle *a, const struct host_cpuidle *b,
			const struct host_cpuset *set, int64_t span_ns, double at_s, bool table)
{
	double span_us = (double)span_ns / 1000.0;
	unsigned int i;
	int k;

	if (table)
		printf("%-5s %-15s %10s %7s %8s %8s\n", "cpu", "state", "usage", "time%", "above",
		       "below");
	for (i = 0; i < b->nr_cpus; i++) {
		const struct host_cpu *ca = &a->cpus[i], *cb = &b->cpus[i];

		if (!host_cpuset_has(set, cb->cpu))
			continue;
		for (k = 0; k < cb->state_count; k++) {
			const struct host_state *sa = &ca->states[k], *sb = &cb->states[k];
			unsigned long long usage = delta(sa->usage, sb->usage);
			double pct = span_us > 0 ? 100.0 * (double)delta(sa->time_us, sb->time_us) /
						   span_us : 0.0;
			char above[24] = "-", below[24] = "-";

			if (host_state_has(sb, HOST_F_ABOVE))
				snprintf(above, sizeof(above), "%llu",
					 (unsigned long long)delta(sa->above, sb->above));
			if (host_state_has(sb, HOST_F_BELOW))
				snprintf(below, sizeof(below), "%llu",
					 (unsigned long long)delta(sa->below, sb->below));
			if (table) {
				printf("cpu%-2u %-15s %10llu %7.2f %8s %8s\n", cb->cpu, sb->name, usage,
				       pct, above, below);
			} else {
				printf("%.3f cpu%u state%d ", at_s, cb->cpu, k);
				json_string(stdout, sb->name);
				printf(" usage=%llu time%%=%.2f above=%s below=%s\n", usage, pct, above,
				       below);
			}
		}
	}
}

/* One JSON object on one line: the deltas from @a to @b over @span_ns. */
static void print_json(const struct host_cpuidle *a, const struct host_cpuidle *b,
		       const struct host_cpuset *set, int64_t span_ns, double at_s,
		       long long interval, bool summary, int command_exit)
{
	double span_us = (double)span_ns / 1000.0;
	bool first_cpu = true;
	unsigned int i;
	int k;

	printf("{\"elapsed_ns\": %lld, \"span_ns\": %lld, ", (long long)(at_s * 1e9 + 0.5),
	       (long long)span_ns);
	if (summary)
		printf("\"summary\": true, \"intervals\": %lld, ", interval);
	if (summary && command_exit >= 0)
		printf("\"command_exit\": %d, ", command_exit);
	else
		printf("\"interval\": %lld, ", interval);
	printf("\"driver\": ");
	json_string(stdout, b->driver);
	printf(", \"governor\": ");
	json_string(stdout, host_current_governor(b));
	printf(", \"cpus\": [");
	for (i = 0; i < b->nr_cpus; i++) {
		const struct host_cpu *ca = &a->cpus[i], *cb = &b->cpus[i];

		if (!host_cpuset_has(set, cb->cpu))
			continue;
		printf("%s{\"cpu\": %u, \"states\": [", first_cpu ? "" : ", ", cb->cpu);
		first_cpu = false;
		for (k = 0; k < cb->state_count; k++) {
			const struct host_state *sa = &ca->states[k], *sb = &cb->states[k];
			uint64_t time_us = delta(sa->time_us, sb->time_us);

			printf("%s{\"index\": %d, \"name\": ", k ? ", " : "", k);
			json_string(stdout, sb->name);
			printf(", \"usage\": %llu, \"time_ns\": %llu, \"time_pct\": %.4f",
			       (unsigned long long)delta(sa->usage, sb->usage),
			       (unsigned long long)time_us * 1000,
			       span_us > 0 ? 100.0 * (double)time_us / span_us : 0.0);
			if (host_state_has(sb, HOST_F_ABOVE))
				printf(", \"above\": %llu",
				       (unsigned long long)delta(sa->above, sb->above));
			else
				printf(", \"above\": null");
			if (host_state_has(sb, HOST_F_BELOW))
				printf(", \"below\": %llu}",
				       (unsigned long long)delta(sa->below, sb->below));
			else
				printf(", \"below\": null}");
		}
		printf("]}");
	}
	printf("]}\n");
}

/* The same as print_json(), a CSV row per CPU and state. */
static void print_csv(const struct host_cpuidle *a, const struct host_cpuidle *b,
		      const struct host_cpuset *set, int64_t span_ns, double at_s,
		      long long interval, bool summary)
{
	double span_us = (double)span_ns / 1000.0;
	unsigned int i;
	int k;

	for (i = 0; i < b->nr_cpus; i++) {
		const struct host_cpu *ca = &a->cpus[i], *cb = &b->cpus[i];

		if (!host_cpuset_has(set, cb->cpu))
			continue;
		for (k = 0; k < cb->state_count; k++) {
			const struct host_state *sa = &ca->states[k], *sb = &cb->states[k];
			uint64_t time_us = delta(sa->time_us, sb->time_us);

			printf("%lld,%lld,%lld,%d,%u,%d,", (long long)(at_s * 1e9 + 0.5),
			       (long long)span_ns, interval, summary, cb->cpu, k);
			cli_csv_field(stdout, sb->name);
			printf(",%llu,%llu,%.4f,", (unsigned long long)delta(sa->usage, sb->usage),
			       (unsigned long long)time_us * 1000,
			       span_us > 0 ? 100.0 * (double)time_us / span_us : 0.0);
			if (host_state_has(sb, HOST_F_ABOVE))
				printf("%llu", (unsigned long long)delta(sa->above, sb->above));
			putchar(',');
			if (host_state_has(sb, HOST_F_BELOW))
				printf("%llu", (unsigned long long)delta(sa->below, sb->below));
			putchar('\n');
		}
	}
}

static const struct option monitor_longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_monitor_opts = {
	.shortopts = "+i:n:c:qh",
	.longopts = monitor_longopts,
};

int cmd_monitor(int argc, char **argv)
{
	struct host_cpuidle first, prev, now;
	struct host_cpuset set;
	const char *cpus = NULL;
	double interval = 1.0;
	long long count = 0, n = 0;
	int64_t t_first, t_prev, t_now;
	int c, ret, status = 0, signo, exit_code = 0;
	bool tty = isatty(STDOUT_FILENO), done = false, failed = false, json = false, csv = false;
	bool changed = false;	/* the CPUs changed: monitoring stopped */
	char err[600];
	char **cmd = NULL;
	pid_t pid = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_monitor_opts)) != -1) {
		switch (c) {
		case 'i':
			if (cli_parse_seconds(optarg, 0.01, 3600, &interval))
				return cli_error("monitor", "-i: '%s' is not an interval in seconds "
						 "(0.01 to 3600)", optarg);
			break;
		case 'n':
			if (cli_parse_ll(optarg, 1, 1000000000, &count))
				return cli_error("monitor", "-n: '%s' is not a count (1 or more)", optarg);
			break;
		case 'c':
			cpus = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'h':
			monitor_usage(stdout);
			return 0;
		default:
			monitor_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") || optind == argc)
			return cli_usage_error("monitor", "unexpected argument '%s' (a command "
					       "goes after --)", argv[optind]);
		cmd = argv + optind;
	}
	if (csv && json)
		return cli_usage_error("monitor", "--csv and --json: one of them");
	if (json || csv)
		tty = false;	/* lines for a program, even on a terminal */
	if (host_cli_read("monitor", &first))
		return 1;
	if (host_cli_cpus("monitor", cpus, &first, &set)) {
		host_cpuidle_free(&first);
		return 1;
	}
	if (host_cli_read("monitor", &prev)) {
		host_cpuidle_free(&first);
		return 1;
	}
	t_first = t_prev = host_now_ns();
	host_signals_block();
	if (cmd) {
		ret = host_spawn(cmd, -1, -1, &pid);
		if (ret) {
			host_cpuidle_free(&first);
			host_cpuidle_free(&prev);
			cli_error("monitor", "cannot run '%s': %s", cmd[0], strerror(-ret));
			return cli_exec_status(ret);
		}
	}
	if (csv)
		printf("elapsed_ns,span_ns,interval,summary,cpu,state_index,state_name,usage,"
		       "time_ns,time_pct,above,below\n");
	else if (!tty && !json)
		printf("# time[s] cpu state name usage time%% above below (deltas over %.3f s)\n",
		       interval);
	while (!done) {
		int64_t left = t_prev + (int64_t)(interval * 1e9) - host_now_ns();
		enum host_wake wake = left > 0 ? host_wait(pid, left, &status, &signo) :
						 HOST_WAKE_TIMEOUT;

		if (wake == HOST_WAKE_CHILD) {
			exit_code = host_exit_code(status);
			pid = 0;
			done = true;
		} else if (wake == HOST_WAKE_SIGNAL && !pid) {
			done = true;
		} else if (wake == HOST_WAKE_SIGNAL) {
			continue;	/* CMD got it too: its end ends the run */
		}
		/*
		 * A CPU gone offline (its cpuidle directory with it, maybe as it
		 * is read) or a new driver: the intervals no longer compare.
		 * Monitoring stops, the command is left to finish.
		 */
		ret = host_cpuidle_read(&now, err, sizeof(err));
		if (ret || !same_layout(&prev, &now)) {
			if (!ret) {
				struct host_cpuidle settled;

				/*
				 * described as read again: a read that met a CPU's
				 * directory as it went has some of its states, not
				 * none (host_test's rename, under load: "CPU 1's
				 * idle states" for "CPU 1 gone")
				 */
				if (!host_cpuidle_read(&settled, err, sizeof(err))) {
					host_cpuidle_free(&now);
					now = settled;
				}
				describe_change(&prev, &now, err, sizeof(err));
				host_cpuidle_free(&now);
			}
			cli_say(CLI_NAME " monitor: the CPUs or idle states changed (CPU hotplug or a "
				"new driver: %s): monitoring stops%s\n", err,
				pid > 0 ? "; waiting for the command" : "");
			changed = true;
			break;
		}
		t_now = host_now_ns();
		n++;
		if (tty)
			printf("\033[H\033[2J" CLI_NAME " monitor: interval %lld, %.3f s; driver %s, "
			       "governor %s%s\n\n", n, (double)(t_now - t_prev) * 1e-9, now.driver,
			       host_current_governor(&now), cmd ? "; running the command" : "");
		if (json)
			print_json(&prev, &now, &set, t_now - t_prev,
				   (double)(t_now - t_first) * 1e-9, n, false, -1);
		else if (csv)
			print_csv(&prev, &now, &set, t_now - t_prev,
				  (double)(t_now - t_first) * 1e-9, n, false);
		else
			print_delta(&prev, &now, &set, t_now - t_prev,
				    (double)(t_now - t_first) * 1e-9, tty);
		host_cpuidle_free(&prev);
		prev = now;
		t_prev = t_now;
		if (fflush(stdout) || ferror(stdout)) {	/* a full disk: no point going on */
			cli_error("monitor", "stdout: %s", strerror(errno));
			failed = true;
			break;
		}
		if (count && n >= count)
			done = true;
	}
	if (pid > 0) {
		/* COUNT intervals are over before the command: it is stopped */
		if (!changed)
			kill(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		exit_code = host_exit_code(status);
	} else if (changed) {
		exit_code = 1;	/* no command: the run ends early */
	}
	if (failed) {
		exit_code = 1;
	} else if (json) {
		print_json(&first, &prev, &set, t_prev - t_first, (double)(t_prev - t_first) * 1e-9,
			   n, true, cmd ? exit_code : -1);
	} else if (csv) {
		print_csv(&first, &prev, &set, t_prev - t_first, (double)(t_prev - t_first) * 1e-9,
			  n, true);
	} else {
		printf("\nsummary: %.3f s, %lld interval%s%s\n", (double)(t_prev - t_first) * 1e-9,
		       n, n == 1 ? "" : "s", cmd ? (exit_code ? ", the command failed" :
						      ", the command ended") : "");
		if (!tty)
			printf("# totals over the run\n");
		print_delta(&first, &prev, &set, t_prev - t_first, (double)(t_prev - t_first) * 1e-9,
			    tty);
	}
	host_cpuidle_free(&first);
	host_cpuidle_free(&prev);
	return exit_code;
}
