// SPDX-License-Identifier: MIT
/*
 * cmd_qos.c - "cpuidle qos": hold a CPU latency request through
 * /dev/cpu_dma_latency while a command runs or until interrupted, and show
 * the limit the kernel applies.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host_child.h"
#include "host_cli.h"
#include "host_qos.h"

static void qos_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " qos show [--csv | --json]\n"
		"       " CLI_NAME " qos hold USEC [-- CMD [ARGS]]\n\n"
		"show: the CPU latency limit the kernel applies (the minimum over every\n"
		"request on /dev/cpu_dma_latency; 2000000000 us when there is none) and\n"
		"each CPU's resume latency limit (power/pm_qos_resume_latency_us).\n"
		"hold: request a CPU latency of at most USEC us (0 allows only polling)\n"
		"while CMD runs, or until SIGINT or SIGTERM; the exit status is CMD's\n"
		"(127 if it is not found, 126 if it cannot run).\n\n"
		"      --csv           (show) a header, then a row for the device's request\n"
		"                      (cpu empty) and one per CPU (cpuidle-output(7))\n"
		"      --json          (show) one JSON object\n"
		"  -q, --quiet         no notes, warnings or progress on stderr\n"
		"  -h, --help          this text\n\n"
		"CPUIDLE_QOS_DEVICE replaces /dev/cpu_dma_latency.  See cpuidle-qos(1).\n");
}

static const struct option qos_show_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_options qos_show_opts = {
	.shortopts = "qh",
	.longopts = qos_show_longopts,
};

static const struct option qos_longopts[] = {
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

/* hold's options come before USEC: what follows "--" is the command's */
static const struct cli_options qos_hold_opts = {
	.shortopts = "+qh",
	.longopts = qos_longopts,
};

const struct cli_options cli_qos_opts = {
	.shortopts = "+qh",
	.longopts = qos_longopts,
	.subs = (const struct cli_subcommand[]){
		{ "show", &qos_show_opts },
		{ "hold", &qos_hold_opts },
		{ NULL, NULL },
	},
};

static int device_error(int ret)
{
	const char *dev = host_qos_device();

	if (ret == -EACCES || ret == -EPERM)
		return cli_error("qos", "%s: %s (needs root)", dev, strerror(-ret));
	if (ret == -ENOENT || ret == -ENODEV || ret == -ENXIO)
		return cli_error("qos", "%s: %s (this kernel has no CPU latency QoS device)", dev,
				 strerror(-ret));
	return cli_error("qos", "%s: %s", dev, strerror(-ret));
}

/* A CSV field or a JSON value: @v, or empty / null when not @known. */
static void qos_value(bool json, bool known, long long v)
{
	if (known)
		printf("%lld", v);
	else if (json)
		printf("null");
}

/*
 * The device's request and each CPU's limits, in @fmt; in the JSON and
 * the CSV, nanoseconds, and null (empty) for no limit (cpuidle-output(7)).
 */
static int qos_show(enum cli_format fmt)
{
	bool json = fmt == FMT_JSON, csv = fmt == FMT_CSV;
	struct host_cpuidle h;
	char err[600];
	int32_t agg;
	unsigned int i, n = 0;
	bool known = true;	/* the aggregate: its device needs root to read */
	bool limited;
	int ret;

	ret = host_qos_read(&agg);
	if (ret == -EACCES || ret == -EPERM) {
		known = false;
		agg = HOST_QOS_NO_CONSTRAINT;
	} else if (ret) {
		return device_error(ret);
	}
	/* per-CPU limits only where the kernel has cpuidle; the device is enough */
	if (host_cpuidle_read(&h, err, sizeof(err)))
		memset(&h, 0, sizeof(h));
	/* no request: no limit, null (the kernel's default value is no latency) */
	limited = known && agg < HOST_QOS_NO_CONSTRAINT;
	if (json || csv) {
		printf(json ? "{\"cpu_dma_latency_ns\": " :
		       "cpu,cpu_dma_latency_ns,constrained,resume_latency_ns,"
		       "effective_latency_ns\n,");
		qos_value(json, limited, (long long)agg * 1000);
		printf(json ? ", \"constrained\": " : ",");
		if (json)
			fputs(!known ? "null" : limited ? "true" : "false", stdout);
		else if (known)
			printf("%d", limited);
		printf(json ? ", \"cpus\": [" : ",,\n");
	} else if (!known) {
		printf("CPU latency QoS: not known (%s is readable by root alone)\n",
		       host_qos_device());
	} else {
		if (agg >= HOST_QOS_NO_CONSTRAINT)
			printf("CPU latency QoS: no request (%d us)\n", agg);
		else
			printf("CPU latency QoS: %d us\n", agg);
	}
	for (i = 0; i < h.nr_cpus; i++) {
		const struct host_cpu *c = &h.cpus[i];
		long long lim, eff;

		if (!c->resume_latency[0] || host_cli_resume_limit(c->resume_latency, &lim))
			continue;	/* no file, or what the kernel never writes */
		eff = lim >= 0 && lim < agg ? lim : agg;
		if (json) {
			printf("%s{\"cpu\": %u, \"resume_latency_ns\": ", n++ ? ", " : "", c->cpu);
		} else if (csv) {
			printf("%u,", c->cpu);
			qos_value(false, limited, (long long)agg * 1000);
			printf(known ? ",%d," : ",,", limited);
		}
		if (json || csv) {
			qos_value(json, lim >= 0, lim * 1000);
			/*
			 * null: no limit at all, or the aggregate not known (at most
			 * the CPU's own limit then)
			 */
			printf(json ? ", \"effective_latency_ns\": " : ",");
			qos_value(json, known && eff < HOST_QOS_NO_CONSTRAINT, eff * 1000);
			printf(json ? "}" : "\n");
		} else {
			if (!n++)
				printf("%-6s %-20s %s\n", "cpu", "resume latency[us]", "effective[us]");
			printf("cpu%-3u %-20s ", c->cpu,
			       lim < 0 ? "none" : c->resume_latency[0] == 'n' ? "0 (n/a)" :
			       c->resume_latency);
			if (known)
				printf("%lld\n", eff);
			else if (lim >= 0)
				printf("at most %lld\n", lim);
			else
				printf("not known\n");
		}
	}
	if (json)
		printf("]}\n");
	host_cpuidle_free(&h);
	return 0;
}


/* "qos hold USEC [-- CMD [ARGS]]": argv[0] is "cpuidle qos hold" */
static int qos_hold(int argc, char **argv)
{
	long long usec;
	int32_t agg = -1;
	int fd, ret, status = 0, signo = 0;
	char **cmd = NULL;
	pid_t pid = 0;

	/* a negative USEC ("-5") is a bad latency, said so, not an option */
	if (argc > 1 && !(argv[1][0] == '-' && isdigit((unsigned char)argv[1][1]))) {
		ret = cli_sub_options(argc, argv, &qos_hold_opts, NULL, qos_usage);
		if (ret < 0)
			return 2;
		argc -= ret - 1;	/* argv[1] USEC, as without options */
		argv += ret - 1;
	}
	if (argc < 2) {
		cli_error("qos", "hold wants USEC (and optionally -- CMD)");
		return 2;
	}
	if (cli_parse_ll(argv[1], 0, HOST_QOS_NO_CONSTRAINT, &usec))
		return cli_error("qos", "hold: '%s' is not a latency in us (0 to %d)", argv[1],
				 HOST_QOS_NO_CONSTRAINT);
	if (argc > 2) {
		if (strcmp(argv[2], "--") || argc == 3) {
			cli_error("qos", "hold: after USEC comes -- CMD [ARGS]");
			return 2;
		}
		cmd = argv + 3;
	}
	host_signals_block();
	fd = host_qos_hold((int32_t)usec);
	if (fd < 0)
		return device_error(fd);
	host_qos_read(&agg);
	cli_info("qos", "holding %lld us on %s (the kernel applies %d us)%s",
		usec, host_qos_device(), agg,
		cmd ? "" : "; interrupt (Ctrl-C) to release");
	if (cmd) {
		ret = host_spawn(cmd, -1, -1, &pid);
		if (ret) {
			host_qos_release(fd);
			cli_error("qos", "cannot run '%s': %s", cmd[0], strerror(-ret));
			return cli_exec_status(ret);
		}
		/* signals pass to CMD; the request lasts until it ends */
		while (host_wait(pid, -1, &status, &signo) != HOST_WAKE_CHILD)
			;
		host_qos_release(fd);
		return host_exit_code(status);
	}
	host_wait(0, -1, &status, &signo);
	host_qos_release(fd);
	cli_info("qos", "released (%s)", strsignal(signo));
	return 0;
}

int cmd_qos(int argc, char **argv)
{
	enum cli_format fmt = FMT_TABLE;
	char prog[64];
	int i, c;

	/* -h or --help before any "--" (what follows is CMD's) */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (cli_is_help(argv[i])) {
			qos_usage(stdout);
			return 0;
		}
	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_qos_opts)) != -1) {
		if (c != 'h') {
			qos_usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		qos_usage(stderr);
		return 2;
	}
	if (!cli_subcommand(&cli_qos_opts, argv[optind])) {
		cli_error("qos", "'%s' is not a qos command (show, hold)", argv[optind]);
		qos_usage(stderr);
		return 2;
	}
	/* getopt's messages: "cpuidle qos show: unrecognized option ..." */
	snprintf(prog, sizeof(prog), CLI_NAME " qos %s", argv[optind]);
	argv[optind] = prog;
	argc -= optind;
	argv += optind;
	if (!strcmp(prog, CLI_NAME " qos hold"))
		return qos_hold(argc, argv);
	i = cli_sub_options(argc, argv, &qos_show_opts, &fmt, qos_usage);
	if (i < 0)
		return 2;
	if (i < argc) {
		cli_error("qos", "show takes only --csv or --json");
		return 2;
	}
	return qos_show(fmt);
}
