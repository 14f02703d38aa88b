// SPDX-License-Identifier: MIT
/*
 * cpuidle.c - the command-line tool: "cpuidle COMMAND [OPTIONS]", in the
 * manner of perf and git.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cpuidle/lab.h"

#ifndef CPUIDLE_VERSION
#define CPUIDLE_VERSION "unknown"
#endif

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cli_options *opts;
	const char *help;
} commands[] = {
	{ "sim", cmd_sim, &cli_sim_opts,
	  "replay a trace (or a synthetic pattern) through governors" },
	{ "sweep", cmd_sweep, &cli_sweep_opts,
	  "governors x platforms x traces x QoS x tunables, in parallel" },
	{ "convert", cmd_convert, &cli_convert_opts,
	  "parse a trace once into an interval file, or dump it as CSV" },
	{ "stats", cmd_stats, &cli_stats_opts,
	  "what the kernel did in a trace, per CPU and state" },
	{ "diff", cmd_diff, &cli_diff_opts,
	  "what changed between two traces, beyond the noise" },
	{ "fidelity", cmd_fidelity, &cli_fidelity_opts,
	  "how often our port of a governor chooses as the kernel did" },
	{ "advise", cmd_advise, &cli_advise_opts,
	  "the cheapest setting within a latency budget, as commands" },
	{ "validate", cmd_validate, &cli_validate_opts,
	  "the lab's predictions against recordings under each setting" },
	{ "fleet-gen", cmd_fleet_gen, &cli_fleet_gen_opts,
	  "plausible traces made of real ones, for a fleet's scale tests" },
	{ "platform", cmd_platform, &cli_platform_opts, "list or show platform files" },
	{ "governors", cmd_governors, &cli_governors_opts, "list the built-in governors" },
	{ "conformance", cmd_conformance, &cli_conformance_opts,
	  "check governors against the rules every governor keeps" },
	{ "info", cmd_info, &cli_info_opts,
	  "the host's cpuidle: driver, governor, every state's sysfs files" },
	{ "set", cmd_set, &cli_set_opts,
	  "enable or disable the host's idle states, switch its governor" },
	{ "qos", cmd_qos, &cli_qos_opts,
	  "hold a CPU latency request (/dev/cpu_dma_latency), show the limit" },
	{ "monitor", cmd_monitor, &cli_monitor_opts,
	  "the host's idle states per interval: usage, time%, above, below" },
	{ "record", cmd_record, &cli_record_opts,
	  "record an idle trace of the host for the lab, with its platform" },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, CLI_NAME "%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	cli_vsay(fmt, ap);	/* a trace's bytes may be quoted */
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, CLI_NAME "%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	cli_vsay(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

int cli_split_list(const char *cmd, const char *what, char *list, char **items,
		   unsigned int max, unsigned int *n)
{
	char *p = list, *comma;
	unsigned int i;

	*n = 0;
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p)
			return cli_error(cmd, "%s: an empty item in the list", what);
		for (i = 0; i < *n; i++)
			if (!strcmp(items[i], p))
				return cli_error(cmd, "%s: '%s' listed twice", what, p);
		if (*n == max)
			return cli_error(cmd, "%s: at most %u items", what, max);
		items[(*n)++] = p;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

const struct cpuidle_governor *cli_builtin_governor(const char *name)
{
	return cpuidle_builtin_governor(name);	/* NAME or NAME@RELEASE */
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	cli_put_text(f, s, CLI_TEXT_JSON);
	fputc('"', f);
}

static void usage(FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: " CLI_NAME " [--version] [--help] COMMAND [ARGS]\n\n"
		   "The Linux cpuidle subsystem in user space.  Commands:\n");
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'" CLI_NAME " COMMAND --help' describes a command; see also cpuidle(1).\n");
}

/*
 * For the shell's completion (share/bash-completion, share/zsh): what the
 * command line takes, from the tables the commands parse with.
 *   --list-commands            the commands, one a line
 *   --list-commands CMD        CMD's sub-commands (qos: show, hold)
 *   --list-options CMD [SUB]   the options of CMD (of its sub-command SUB),
 *                              as cli_list_options() prints them
 * Return: 0, or 2 for a command or sub-command there is not.
 */
static int list(int argc, char **argv)
{
	const struct cli_options *o = NULL;
	const struct cli_subcommand *s;
	bool commands_wanted = !strcmp(argv[1], "--list-commands");
	unsigned int i;

	if (argc == 2 && commands_wanted) {
		for (i = 0; i < NR_COMMANDS; i++)
			printf("%s\n", commands[i].name);
		return 0;
	}
	for (i = 0; argc >= 3 && i < NR_COMMANDS; i++)
		if (!strcmp(argv[2], commands[i].name))
			o = commands[i].opts;
	if (o && argc == 4 && !commands_wanted)
		o = cli_subcommand(o, argv[3]);
	if (!o || argc > 4 || (argc == 4 && commands_wanted)) {
		cli_error(NULL, "usage: " CLI_NAME " --list-commands [COMMAND], or "
			  CLI_NAME " --list-options COMMAND [SUB-COMMAND]");
		return 2;
	}
	if (!commands_wanted) {
		cli_list_options(stdout, o);
		return 0;
	}
	for (s = o->subs; s && s->name; s++)
		printf("%s\n", s->name);
	return 0;
}

/*
 * What every command's output owes its reader: a write to stdout that
 * failed (a full disk, /dev/full, a closed descriptor) is an error, not a
 * success.  Commands write with stdio and leave the last buffer to us.
 * @cmd is the command (NULL: cpuidle itself), @ret its status: a command
 * that already failed keeps its status and message (sweep and convert
 * --csv report their own output's errors).  A reader that went away (EPIPE,
 * SIGPIPE ignored) ends a filter quietly, the way convert --csv does: by
 * SIGPIPE if it is not ignored, else with status 1 and no message.
 */
static int finish_stdout(const char *cmd, int ret)
{
	int err = 0;

	errno = 0;
	if (fflush(stdout))
		err = errno ? errno : EIO;
	else if (ferror(stdout))
		err = EIO;	/* an earlier flush failed; its errno is gone */
	if (!err || ret)
		return ret;
	if (err == EPIPE) {
		raise(SIGPIPE);
		return 1;
	}
	return cli_error(cmd, "stdout: %s", strerror(err));
}

/*
 * Standard input, output and error closed by the caller ("2>&-") are
 * opened on /dev/null: else the next file opened would take their number,
 * and a message meant for stderr would be written into it (qos hold's
 * /dev/cpu_dma_latency, which would take the text as a latency).
 */
static void stdio_open(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(125);	/* nowhere to say it */
}

int main(int argc, char **argv)
{
	char prog[64];
	unsigned int i;
	int ret;

	stdio_open();
	/* a program's own choice: binary traces read in place (lab.h) */
	cpuidle_lab_read_mapped(true);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/* "help COMMAND [SUB]" is "COMMAND [SUB] --help" */
	if (argc >= 3 && !strcmp(argv[1], "help")) {
		static char help_opt[] = "--help";
		int k;

		for (k = 1; k < argc - 1; k++)
			argv[k] = argv[k + 1];
		argv[argc - 1] = help_opt;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(NULL, 0);
	}
	if (!strcmp(argv[1], "--list-commands") || !strcmp(argv[1], "--list-options"))
		return finish_stdout(NULL, list(argc, argv));
	if (!strcmp(argv[1], "--version")) {
		printf(CLI_NAME " (libcpuidle) %s\n", CPUIDLE_VERSION);
		return finish_stdout(NULL, 0);
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/*
		 * The command's argv[0] is "cpuidle NAME": getopt's messages
		 * ("cpuidle sim: unrecognized option '--bogus'") then carry
		 * the prefix every message has.  No command reads argv[0].
		 */
		snprintf(prog, sizeof(prog), CLI_NAME " %s", commands[i].name);
		argv[1] = prog;
		/*
		 * What a command prints may quote a trace's bytes (a path, an
		 * IRQ's name): stdout keeps to text.c's rule, as messages do.
		 * monitor's terminal view clears the screen with escapes of its
		 * own, and prints the kernel's names alone.
		 */
		if (strcmp(commands[i].name, "monitor") && cli_filter_stdout())
			return cli_error(commands[i].name, "out of memory");
		ret = commands[i].fn(argc - 1, argv + 1);
		cli_notes_flush();	/* what the command held back (cli_notes_hold()) */
		return finish_stdout(commands[i].name, ret);
	}
	cli_error(NULL, "'%s' is not a command; see '" CLI_NAME " --help'", argv[1]);
	return 2;
}
