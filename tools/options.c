// SPDX-License-Identifier: MIT
/*
 * options.c - the commands' options, one table each (struct cli_options):
 * what the command's getopt_long() parses, and what 'cpuidle
 * --list-options' prints for the shell's completion (share/bash-completion,
 * share/zsh), so that completion offers exactly what the command takes.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const struct cli_options *o)
{
	int c;

	while ((c = getopt_long(argc, argv, o->shortopts, o->longopts, NULL)) == 'q')
		cli_set_quiet(true);
	return c;
}

/* is @val a short option of @o ("p" in "+p:g:h")? */
static bool is_short(const struct cli_options *o, int val)
{
	const char *s = o->shortopts;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s; s++)
		if (*s != ':' && *s == val)
			return true;
	return false;
}

/* is @c the val of one of @o's long options? */
static bool has_long(const struct cli_options *o, int c)
{
	const struct option *l;

	for (l = o->longopts; l && l->name; l++)
		if (!l->flag && l->val == c)
			return true;
	return false;
}

void cli_list_options(FILE *f, const struct cli_options *o)
{
	const struct option *l;
	const char *s;

	for (l = o->longopts; l && l->name; l++) {
		fprintf(f, "--%s%s", l->name, l->has_arg == no_argument ? "" : "=");
		if (!l->flag && is_short(o, l->val))
			fprintf(f, " -%c", l->val);
		fputc('\n', f);
	}
	/* a short option without a long name breaks the rule: shown, for the test to see */
	for (s = o->shortopts; *s; s++)
		if (*s != '+' && *s != '-' && *s != ':' && !has_long(o, *s))
			fprintf(f, "-%c%s\n", *s, s[1] == ':' ? "=" : "");
}

bool cli_is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

int cli_sub_options(int argc, char **argv, const struct cli_options *o, enum cli_format *fmt,
		    void (*usage)(FILE *f))
{
	int c;

	optind = 0;
	while ((c = cli_getopt(argc, argv, o)) != -1) {
		if ((c == 'J' || c == 'C') && fmt) {
			enum cli_format want = c == 'J' ? FMT_JSON : FMT_CSV;

			if (*fmt != FMT_TABLE && *fmt != want) {
				/* "cpuidle qos show": the command's name after CLI_NAME */
				cli_usage_error(argv[0] + strlen(CLI_NAME) + 1,
						"--csv and --json: one of them");
				return -1;
			}
			*fmt = want;
		} else if (c != 'h') {	/* -h: said before (cli_is_help()) */
			usage(stderr);
			return -1;
		}
	}
	return optind;
}

const struct cli_options *cli_subcommand(const struct cli_options *o, const char *name)
{
	const struct cli_subcommand *s;

	for (s = o->subs; s && s->name; s++)
		if (!strcmp(s->name, name))
			return s->opts;
	return NULL;
}

void cli_print_wrapped(FILE *f, size_t col, size_t indent, const char *text)
{
	const char *w = text;

	while (*w) {
		size_t len = strcspn(w, " ");

		if (w != text && col + 1 + len > CLI_HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (w != text) {
			fputc(' ', f);
			col++;
		}
		fwrite(w, 1, len, f);
		col += len;
		w += len;
		w += strspn(w, " ");
	}
	fputc('\n', f);
}
