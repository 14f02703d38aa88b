/* SPDX-License-Identifier: MIT */
/* cli.h - shared pieces of the cpuidle command-line tool. */
#ifndef TOOLS_CLI_H
#define TOOLS_CLI_H

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>

#include "libcpuidle.h"
#include "parse.h"

#define CLI_NAME "cpuidle"

enum cli_format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct cli_subcommand;

/**
 * struct cli_options - what a command's command line takes (options.c):
 * the tables its getopt_long() parses, which 'cpuidle --list-options'
 * prints for the shell's completion, so that the two never differ
 * @shortopts: getopt_long()'s option string
 * @longopts: getopt_long()'s table, a zeroed entry last; every option has
 *	a long name, and a short one where its val is in @shortopts
 * @subs: the command's sub-commands (qos show, qos hold), a NULL name
 *	last; or NULL
 */
struct cli_options {
	const char *shortopts;
	const struct option *longopts;
	const struct cli_subcommand *subs;
};

/**
 * struct cli_subcommand - a word that follows the command's name
 * @name: the word ("show")
 * @opts: the options it takes
 */
struct cli_subcommand {
	const char *name;
	const struct cli_options *opts;
};

/* every command's -h and -q (cli_getopt() takes -q itself) */
#define CLI_OPT_HELP	{ "help", no_argument, NULL, 'h' }
#define CLI_OPT_QUIET	{ "quiet", no_argument, NULL, 'q' }
#define CLI_OPT_END	{ NULL, 0, NULL, 0 }
#define CLI_USAGE_QUIET	"  -q, --quiet             no notes, warnings or progress on stderr\n" \
			"                          (errors still)\n"

/* getopt_long() over @o's tables; -q/--quiet is taken here (cli_set_quiet()), never returned */
int cli_getopt(int argc, char **argv, const struct cli_options *o);

/* whether @arg asks for help: -h or --help */
bool cli_is_help(const char *arg);

/*
 * A sub-command's options (@argv[0] its name), parsed afresh: optind 0
 * makes getopt start over, its ordering from the new option string (glibc
 * and musl).  *@fmt (if not NULL) set by --json ('J') or --csv ('C'); both
 * are a usage error.  Return: the index of the first argument after them,
 * or -1 after getopt's message (or the error) and @usage on stderr.
 */
int cli_sub_options(int argc, char **argv, const struct cli_options *o, enum cli_format *fmt,
		    void (*usage)(FILE *f));
/*
 * @o's options, one a line: "--LONG" ("--LONG=" where it takes an
 * argument), then " -S" where it has a short form; a short option without
 * a long name (none should be) as "-S" ("-S=") alone.
 */
void cli_list_options(FILE *f, const struct cli_options *o);
/* Help texts keep within this many columns (an 80-column terminal, a margin). */
#define CLI_HELP_WIDTH	78

/*
 * @text on @f from column @col, its words wrapped within CLI_HELP_WIDTH,
 * each new line indented by @indent spaces; a newline at its end.
 */
void cli_print_wrapped(FILE *f, size_t col, size_t indent, const char *text);

/* the options of @o's sub-command @name, or NULL if it has none so named */
const struct cli_options *cli_subcommand(const struct cli_options *o, const char *name);

/* each command's, in its cmd_NAME.c */
extern const struct cli_options cli_sim_opts, cli_sweep_opts, cli_convert_opts, cli_stats_opts,
	cli_fidelity_opts, cli_advise_opts, cli_validate_opts, cli_fleet_gen_opts,
	cli_platform_opts, cli_governors_opts, cli_conformance_opts, cli_info_opts, cli_set_opts,
	cli_qos_opts, cli_monitor_opts, cli_record_opts, cli_diff_opts;

int cmd_sim(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_fidelity(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_platform(int argc, char **argv);
int cmd_governors(int argc, char **argv);
int cmd_conformance(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_qos(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_fleet_gen(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_advise(int argc, char **argv);

/* "cpuidle platform --from-host [NAME]" (cmd_platform_host.c); NULL: "host" */
int cli_platform_from_host(const char *name);
/*
 * The names of @flags' CPUIDLE_FLAG_* bits, comma-separated, as platform
 * files spell them (cmd_platform.c).  Return: how many were written.
 */
int cli_print_flags(FILE *f, unsigned int flags);
/* "platform import" (cmd_platform_import.c): argv[0] is "import" */
int cli_platform_import(int argc, char **argv);
extern const struct cli_options cli_platform_import_opts;

/*
 * What a command says on stderr besides errors (notes.c): nothing of it
 * under -q.  cli_note() "cpuidle CMD: note: ...", cli_warn() "cpuidle CMD:
 * warning: ...", cli_info() "cpuidle CMD: ..." (what it is doing); the _on
 * forms are about input @path: "cpuidle CMD: note: PATH: ...".  Each is one
 * line; the newline is theirs.
 */
void cli_set_quiet(bool quiet);
bool cli_is_quiet(void);
void cli_note(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_info(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_note_on(const char *cmd, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cli_warn_on(const char *cmd, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a note of the lab's (cpuidle_lab_fidelity_options.note), "PATH: ..." */
void cli_plan_note(const char *cmd, const char *path, bool warning, const char *msg);
/*
 * With @nr_inputs > 1, the notes and warnings about an input are held
 * from now on: one that another input gave alike (but for its numbers) is
 * counted, not said again; cli_notes_flush() says each once, the first
 * input's, with "(and on N more traces)".  main() flushes after the
 * command; a command flushes earlier where its inputs are read.
 */
void cli_notes_hold(unsigned int nr_inputs);
void cli_notes_flush(void);

/* Print "cpuidle CMD: message" to stderr; returns 1 (the usage/error exit). */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a usage error (an extra argument, options that exclude each other): returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Progress on stderr when it is a terminal; @arg is a label (a lab_progress_fn). */
void cli_progress(uint64_t done, uint64_t total, void *arg);
void cli_progress_end(void);

struct iv_stats;
struct iv_notes;

/*
 * Intervals for a replay from @path: an interval file as it is, a trace
 * converted into a temporary one (*@tmp set: unlink it when done), with
 * cli_trace_notes() on stderr, the interval file's own (version 6 on) or
 * the conversion's; *@stats (if not NULL) filled with what the conversion
 * saw (for an interval file, its notes only, the rest zeroes).
 * Return: 0 or 1 after printing the error.
 */
int cli_intervals(const char *cmd, const char *path, char *ivf, size_t len, int *tmp,
		  struct iv_stats *stats);

/*
 * What a trace's conversion found that its results depend on, on stderr,
 * once each: the trace clock's offset from CLOCK_MONOTONIC, corrected (a
 * note); the tracer's lost events; CPUs without idle events (warnings).
 */
void cli_trace_notes(const char *cmd, const char *path, const struct iv_notes *notes);

/* The warnings of cli_trace_notes(), for a reader without a struct iv_notes. */
void cli_warn_lost(const char *cmd, const char *path, uint64_t gaps, uint64_t events,
		   unsigned int cpu, uint64_t line, int64_t n);
void cli_warn_idle_less(const char *cmd, const char *path, const uint64_t *mask,
			unsigned int nr);

/*
 * An interval file read back as events (trace_open_intervals()): one note
 * saying which figures are exact and which approximate (@a's counts); the
 * kernel's above/below judged by @platform's table where @a could not
 * place them (NULL: not known).
 */
struct trace_ivf_approx;
void cli_note_intervals(const char *cmd, const char *path, const struct trace_ivf_approx *a,
			const char *platform);

/*
 * The JSON member "read_back" (cpuidle-output(7)): null for a trace; for an
 * interval file read back as events, what of them is approximate (@a).
 */
void cli_json_read_back(const struct trace_ivf_approx *a);

/*
 * Split a comma-separated @list (modified) into at most @max @items: no
 * empty item, none twice; @what names the option in @cmd's messages.
 * Return: 0, or 1 after a message.
 */
int cli_split_list(const char *cmd, const char *what, char *list, char **items,
		   unsigned int max, unsigned int *n);

/* A built-in governor by exact name, or NULL. */
const struct cpuidle_governor *cli_builtin_governor(const char *name);

/*
 * Governor plugins (plugin.c, include/cpuidle/plugin.h).  cli_governor()
 * resolves a -g item: a built-in governor's name; a plugin's file (a path,
 * or a file name ending in .so; PATH:NAME for one of several governors); or
 * NAME, found as NAME.so in a directory of CPUIDLE_GOVERNOR_PATH.  A plugin
 * is loaded once and stays.  Return: 0 with *@out set, or 1 after a
 * message.  cli_plugin_governors() gives the governors of every plugin
 * loaded, NULL-terminated, for cpuidle_lab_run.plugins.
 */
int cli_governor(const char *cmd, const char *name, const struct cpuidle_governor **out);
const struct cpuidle_governor *const *cli_plugin_governors(void);
/* the file of the loaded plugin that gives governor @name, or NULL (a built-in one) */
const char *cli_plugin_path(const char *name);

/* Write @s as a JSON string literal. */
void json_string(FILE *f, const char *s);

/*
 * where cli_put_text() writes: a field of plain text (every control
 * character escaped), a message (newlines and tabs kept), a JSON string's
 * inside, a quoted CSV field's
 */
enum cli_text { CLI_TEXT, CLI_TEXT_MSG, CLI_TEXT_JSON, CLI_TEXT_CSV };

/*
 * @text as text that is safe to print (text.c): control characters and
 * bytes that are not valid UTF-8 as \xNN, the rest as it is; inside a
 * JSON string the backslash doubled and quotes escaped, inside a quoted
 * CSV field quotes doubled.  Return: 0, or -1 if a write failed.
 */
int cli_put_text(FILE *f, const char *text, enum cli_text how);

/*
 * Standard output through cli_put_text()'s rule (newlines and tabs kept),
 * whatever prints to it: a text table quoting a trace's path or names is
 * safe on a terminal.  Return: 0, or -1 (stdout left as it was).
 */
int cli_filter_stdout(void);

/* A message (or a part of one) on stderr, formatted, its untrusted bytes as \xNN. */
void cli_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_vsay(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/*
 * The exit status for a command after "--" that could not be started
 * (@ret, its negative errno), as a shell gives it: 127 where it was not
 * found, else 126.
 */
static inline int cli_exec_status(int ret)
{
	return ret == -ENOENT ? 127 : 126;
}

/*
 * Write @s as a CSV field, quoted when it must be (RFC 4180) (outfile.c).
 * Return: 0, or -1 if a write failed.
 */
int cli_csv_field(FILE *f, const char *s);

/*
 * Output files (outfile.c): checked against the inputs before anything is
 * written; a regular file written to FILE.XXXXXX next to it and renamed
 * over FILE by cli_out_commit(), removed by cli_out_abort(), so that a
 * failed command leaves FILE as it was.  "-" is standard output; other
 * files that are not regular (devices, pipes) are written directly.
 */

/**
 * struct cli_out_arg - an output option, for cli_out_check()
 * @opt: the option, for messages ("-o", "--report")
 * @path: its file as given; NULL: not given
 * @ivf: an interval file: an existing interval file may be replaced
 */
struct cli_out_arg {
	const char *opt;
	const char *path;
	bool ivf;
};

/*
 * Refuse, before anything is opened for writing, an output that is the
 * same file as one of @ins (NULL entries skipped; "-" is standard input)
 * or as another of @outs, or an existing file that holds a trace or an
 * interval file.  Return: 0, or 1 after a message.
 */
int cli_out_check(const char *cmd, const struct cli_out_arg *outs, unsigned int nout,
		  const char *const *ins, unsigned int nin);

/* @spec (a -p value) if it names a platform file, NULL for a bundled name. */
const char *cli_platform_file(const char *spec);

/*
 * What an existing, non-empty regular file @path holds that no output may
 * replace ("is a trace", "is an interval file"), or NULL.
 */
const char *cli_out_holds_input(const char *path);

/*
 * Check -s PATH=VALUE writes (NULL-terminated @attrs) on a scratch system,
 * so that a bad one is reported once, clearly, before any work; the plugins
 * loaded so far register their governors (and tunables) there.  A device
 * file (cpuN/...) is checked when the devices exist.  Return: 0, or 1
 * after a message.
 */
int cli_check_attrs(const char *cmd, const char *const *attrs);

/*
 * If states of platform @p (as -p @spec gave it) have no model power, say
 * on stderr which, that energy is therefore unknown, and how to give it.
 */
void cli_note_power_unknown(const char *cmd, const struct cpuidle_platform *p,
			    const char *spec);

struct recording;
struct cpuidle_lab_result;

/*
 * Warn on stderr if more than a few of the @intervals replayed from
 * @path had no known next timer (@unknown) (the governors were told of none), and
 * note it if more than a few had theirs reconstructed (@guessed).
 */
void cli_warn_timer_unknown(const char *cmd, const char *path, uint64_t intervals,
			    uint64_t guessed, uint64_t unknown);

/*
 * Note on stderr that some of @res's entries were counted from a steady
 * state (cpuidle_lab_result.extrapolated), not replayed one by one.
 */
void cli_note_extrapolated(const char *cmd, const char *path, const struct cpuidle_lab_result *res);

/* "N traced, N reconstructed, N unknown": how the next timers of @res were known */
void cli_timer_split(char *buf, size_t len, const struct cpuidle_lab_result *res);

/*
 * The recording's description in @path (a trace's header, an interval
 * file's notes) into @rec (version 0: none).  A file that cannot be read
 * is left to the command's own reading.  Return: 0, or 1 after a message
 * (a malformed description).
 */
int cli_recording(const char *cmd, const char *path, struct recording *rec);

/*
 * The platform to replay @path on: -p @spec if given (with a note if the
 * recording names its own), else the recording's (with a note), else
 * @default_spec.  Return: 0, or 1 after a message.
 */
int cli_recording_platform(const char *cmd, const char *path, const struct recording *rec,
			   const char *spec, const char *default_spec,
			   struct cpuidle_platform *out);

/*
 * @out (room for @max and a NULL): the recording's attribute writes, then
 * @user's (-s), a recording's write of a path -s also writes left out, with
 * a note.  Return: 0, or 1 after a message.
 */
int cli_recording_attrs(const char *cmd, const char *path, const struct recording *rec,
			const char *const *user, const char **out, size_t max);

/**
 * struct cli_out - an output being written
 * @path: as given (messages name it)
 * @opt: the option, prefixed to messages, or NULL
 * @f: the stream (cli_out_open())
 * @tmp: the temporary file, or NULL: @path is written directly
 * @target: what @tmp is renamed to (@path, a symbolic link resolved)
 * @open: not yet committed or aborted
 */
struct cli_out {
	const char *path;
	const char *opt;
	FILE *f;
	char *tmp;
	char *target;
	bool open;
};

/* Open @path ("-": stdout) as @o->f.  Return: 0, or 1 after a message. */
int cli_out_open(const char *cmd, const char *opt, struct cli_out *o, const char *path);
/* The same without a stream: write the file named cli_out_target(). */
int cli_out_reserve(const char *cmd, const char *opt, struct cli_out *o, const char *path);
const char *cli_out_target(const struct cli_out *o);
/* Flush @o->f and check it for write errors.  Return: 0, or 1 after a message. */
int cli_out_flush(const char *cmd, struct cli_out *o);
/* Close; rename the temporary file over the file.  0, or 1 after a message (aborted). */
int cli_out_commit(const char *cmd, struct cli_out *o);
/* Close; remove the temporary file (the file is left as it was).  Idempotent. */
void cli_out_abort(struct cli_out *o);
/*
 * Remove every output's temporary file now (async-signal-safe: a fatal
 * signal's handler calls it before the process dies).
 */
void cli_out_remove_temps(void);

/*
 * A temporary file of the command's (an interval file in $TMPDIR): removed
 * if a signal (INT, TERM, HUP, QUIT) ends the command.  @tmp must stay in
 * place until cli_temp_unregister() or cli_temp_remove() (which unlinks it).
 */
void cli_temp_register(char *tmp);
void cli_temp_unregister(const char *tmp);
void cli_temp_remove(char *tmp);
/* Replace the temporary file's name in @msg (of size @len) by the name given. */
void cli_out_rename_in(const struct cli_out *o, char *msg, size_t len);

#endif /* TOOLS_CLI_H */
