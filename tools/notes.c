// SPDX-License-Identifier: MIT
/*
 * notes.c - what a command says on stderr besides its errors: notes,
 * warnings, and what it is doing (qos hold's request, record's events).
 * -q (--quiet, every command) silences them all; errors (cli_error()) are
 * always said.
 *
 * A command given many traces (sweep, fidelity, validate, fleet-gen) would
 * say the same thing once per trace: "CPU 1 has events but no idle entry"
 * for every trace recorded so.  While held (cli_notes_hold()), a note or a
 * warning about a trace (cli_note_on(), cli_warn_on()) is kept until
 * cli_notes_flush(), and one that another trace already gave, but for its
 * numbers, is counted instead: said once, the first trace's, with "(and on
 * 12 more traces)".
 *
 * The state is the process's (stderr is): set once by the command's
 * option parsing, read by every message; a mutex guards the held notes,
 * which worker threads may add to.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* a note held: the first trace's line, how many more traces said the like */
struct held_note {
	char *key;		/* its kind and words, numbers masked */
	char *rest;		/* the first one's text after the trace's name */
	char *line;		/* the whole message, as it would have been said */
	unsigned long more;	/* other traces that said the like */
	bool differs;		/* some of them with other numbers */
};

static struct {
	bool quiet;
	bool holding;
	struct held_note *held;
	size_t nr_held;
	pthread_mutex_t lock;
} notes = { .lock = PTHREAD_MUTEX_INITIALIZER };

void cli_set_quiet(bool quiet)
{
	notes.quiet = quiet;
}

bool cli_is_quiet(void)
{
	return notes.quiet;
}

void cli_notes_hold(unsigned int nr_inputs)
{
	notes.holding = nr_inputs > 1;
}

/* "cpuidle CMD: LEVEL" and the message, one line, in one write */
static void vsay_line(const char *cmd, const char *level, const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (notes.quiet)
		return;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	cli_say(CLI_NAME " %s: %s%s\n", cmd, level, msg ? msg : "(out of memory)");
	free(msg);
}

void cli_note(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay_line(cmd, "note: ", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay_line(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

void cli_info(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay_line(cmd, "", fmt, ap);
	va_end(ap);
}

/* @rest with every run of digits (and a decimal point between) as one '#' */
static char *mask_numbers(const char *level, const char *rest)
{
	size_t len = strlen(level) + strlen(rest) + 1;
	char *key = malloc(len), *k;
	const char *s;

	if (!key)
		return NULL;
	k = key + sprintf(key, "%s", level);
	for (s = rest; *s; ) {
		if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s) ||
			       (*s == '.' && isdigit((unsigned char)s[1])))
				s++;
			*k++ = '#';
			continue;
		}
		*k++ = *s++;
	}
	*k = '\0';
	return key;
}

/* hold it; false: say it now (not holding, or no memory to hold it) */
static bool hold(const char *cmd, const char *level, const char *path, const char *rest)
{
	struct held_note *h, *more;
	char *key, *line = NULL;
	size_t i;
	bool held = false;

	if (!notes.holding)
		return false;
	key = mask_numbers(level, rest);
	if (!key)
		return false;
	pthread_mutex_lock(&notes.lock);
	for (i = 0; i < notes.nr_held; i++) {
		h = &notes.held[i];
		if (strcmp(h->key, key))
			continue;
		h->more++;
		h->differs |= strcmp(h->rest, rest) != 0;
		held = true;
		goto out;
	}
	more = realloc(notes.held, (notes.nr_held + 1) * sizeof(*more));
	if (!more)
		goto out;
	notes.held = more;	/* realloc() may have moved it */
	if (asprintf(&line, CLI_NAME " %s: %s%s: %s", cmd, level, path, rest) < 0) {
		line = NULL;
		goto out;
	}
	h = &notes.held[notes.nr_held];
	*h = (struct held_note){ .key = key, .rest = strdup(rest), .line = line };
	if (!h->rest)
		goto out;
	notes.nr_held++;
	key = line = NULL;
	held = true;
out:
	pthread_mutex_unlock(&notes.lock);
	free(key);
	free(line);
	return held;
}

static void vsay_on(const char *cmd, const char *level, const char *path, const char *fmt,
		    va_list ap)
{
	char *rest = NULL;

	if (notes.quiet)
		return;
	if (vasprintf(&rest, fmt, ap) < 0)
		rest = NULL;
	if (!rest || !hold(cmd, level, path, rest))
		cli_say(CLI_NAME " %s: %s%s: %s\n", cmd, level, path, rest ? rest : "(out of memory)");
	free(rest);
}

void cli_note_on(const char *cmd, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay_on(cmd, "note: ", path, fmt, ap);
	va_end(ap);
}

void cli_warn_on(const char *cmd, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay_on(cmd, "warning: ", path, fmt, ap);
	va_end(ap);
}

void cli_plan_note(const char *cmd, const char *path, bool warning, const char *msg)
{
	size_t len = strlen(path);

	if (!strncmp(msg, path, len) && !strncmp(msg + len, ": ", 2))
		(warning ? cli_warn_on : cli_note_on)(cmd, path, "%s", msg + len + 2);
	else
		(warning ? cli_warn : cli_note)(cmd, "%s", msg);
}

void cli_notes_flush(void)
{
	size_t i;

	pthread_mutex_lock(&notes.lock);
	for (i = 0; i < notes.nr_held; i++) {
		struct held_note *h = &notes.held[i];

		if (h->more)
			cli_say("%s (and on %lu more trace%s%s)\n", h->line, h->more,
				h->more == 1 ? "" : "s",
				h->differs ? ", with figures of their own" : "");
		else
			cli_say("%s\n", h->line);
		free(h->key);
		free(h->rest);
		free(h->line);
	}
	free(notes.held);
	notes.held = NULL;
	notes.nr_held = 0;
	pthread_mutex_unlock(&notes.lock);
}
