// SPDX-License-Identifier: MIT
/*
 * diff_results.c - cpuidle diff of two sim or sweep results (their --csv):
 * each row of BEFORE matched with AFTER's row of the same run (the same
 * trace, platform, governor, QoS, attribute values and state), each
 * figure's change.  A replay's figure is one number, not a sample: no
 * interval, no verdict; a changed figure is a changed result.
 *
 * The key columns are named (KEY_COLUMNS, and every attribute path, which
 * has a '/'); sweep's residency_pct column ("POLL:0.00;C1:99.55") becomes a
 * figure per state, residency_pct:NAME; every other column is a figure
 * (empty: not known).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define MAX_COLUMNS	128
#define MAX_LINE	65536

/* today's names (cpuidle-output(7)), and qos and state as results before them had */
static const char *const key_columns[] = {
	"trace", "platform", "governor", "qos_ns", "state_index", "state_name", "qos", "state",
};

/** struct table - a result file: its header and rows, each a line's fields */
struct table {
	const char *path;
	char *names[MAX_COLUMNS];
	unsigned int nr_names;
	char ***rows;		/* [row][column] */
	size_t nr_rows, cap;
};

/* split @line (modified) into RFC 4180 fields; Return: their number, or -1 */
static int split_csv(char *line, char **fields, unsigned int max)
{
	unsigned int n = 0;
	char *r = line, *w;

	for (;;) {
		if (n == max)
			return -1;
		fields[n++] = w = r;
		if (*r == '"') {
			for (r++;; r++) {
				if (!*r)
					return -1;	/* an unterminated quote */
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r++;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r;
				}
			}
			if (*r && *r != ',')
				return -1;
		} else {
			while (*r && *r != ',')
				*w++ = *r++;
		}
		if (!*r) {
			*w = '\0';
			return (int)n;
		}
		*w = '\0';
		r++;
	}
}

static void table_free(struct table *t)
{
	size_t i;
	unsigned int c;

	for (c = 0; c < t->nr_names; c++)
		free(t->names[c]);
	for (i = 0; i < t->nr_rows; i++) {
		for (c = 0; c < t->nr_names; c++)
			free(t->rows[i][c]);
		free(t->rows[i]);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* read @path as a result CSV; Return: 0, or 1 after a message */
static int table_read(const char *path, struct table *t)
{
	char *line = malloc(MAX_LINE), *fields[MAX_COLUMNS];
	FILE *f = fopen(path, "r");
	unsigned long lineno = 0;
	int n, c, ret = 1;

	t->path = path;
	if (!f || !line) {
		cli_error("diff", "%s: %s", path, strerror(f ? ENOMEM : errno));
		goto out;
	}
	while (fgets(line, MAX_LINE, f)) {
		size_t len = strlen(line);

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			cli_error("diff", "%s:%lu: a line over %d bytes", path, lineno, MAX_LINE);
			goto out;
		}
		if (!len || line[0] == '#')
			continue;
		n = split_csv(line, fields, MAX_COLUMNS);
		if (n < 0 || (t->nr_names && (unsigned int)n != t->nr_names)) {
			cli_error("diff", "%s:%lu: not a row of the header's %u columns", path,
				  lineno, t->nr_names);
			goto out;
		}
		if (!t->nr_names) {
			for (c = 0; c < n; c++)
				if (!(t->names[c] = strdup(fields[c])))
					goto nomem;
			t->nr_names = (unsigned int)n;
			continue;
		}
		if (t->nr_rows == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;
			char ***r = realloc(t->rows, cap * sizeof(*r));

			if (!r)
				goto nomem;
			t->rows = r;
			t->cap = cap;
		}
		t->rows[t->nr_rows] = calloc((size_t)n, sizeof(char *));
		if (!t->rows[t->nr_rows])
			goto nomem;
		t->nr_rows++;
		for (c = 0; c < n; c++)
			if (!(t->rows[t->nr_rows - 1][c] = strdup(fields[c])))
				goto nomem;
	}
	if (ferror(f)) {
		cli_error("diff", "%s: %s", path, strerror(EIO));
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	cli_error("diff", "%s: %s", path, strerror(ENOMEM));
out:
	if (f)
		fclose(f);
	free(line);
	return ret;
}

static bool is_key(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(key_columns) / sizeof(key_columns[0]); i++)
		if (!strcmp(name, key_columns[i]))
			return true;
	return strchr(name, '/') != NULL;
}

/* a figure's value: a number, or NAN (empty: not known); Return: false if not a number */
static bool number(const char *s, double *v)
{
	char *end;

	if (!*s) {
		*v = NAN;
		return true;
	}
	*v = strtod(s, &end);
	return !*end && isfinite(*v);
}

/* @row's key: its key columns' "name=value", joined by ", " */
static void row_key(const struct table *t, char **row, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int c;

	buf[0] = '\0';
	for (c = 0; c < t->nr_names; c++)
		if (is_key(t->names[c]))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s=%s", n ? ", " : "",
					      t->names[c], row[c]);
}

static int column_of(const struct table *t, const char *name)
{
	unsigned int c;

	for (c = 0; c < t->nr_names; c++)
		if (!strcmp(t->names[c], name))
			return (int)c;
	return -1;
}

/* a per-state "NAME:VALUE;..." cell's value of @state, NAN if it has none */
static double composite(const char *cell, const char *state)
{
	size_t n = strlen(state);
	const char *p = cell;
	double v;

	while (*p) {
		const char *semi = strchr(p, ';'), *end = semi ? semi : p + strlen(p);

		if ((size_t)(end - p) > n && !strncmp(p, state, n) && p[n] == ':') {
			char num[64];

			snprintf(num, sizeof(num), "%.*s", (int)(end - p - (ptrdiff_t)n - 1), p + n + 1);
			if (number(num, &v))
				return v;
		}
		p = semi ? semi + 1 : end;
	}
	return NAN;
}

struct result_row {
	char key[512];
	char figure[160];
	double before, after;
};

/* the text's run column: as wide as its widest key (at least 60, the runs of one trace) */
#define RUN_COLUMN_MIN	60

static int run_column(const struct result_row *r, size_t n)
{
	size_t i, w = RUN_COLUMN_MIN;

	for (i = 0; i < n; i++)
		if (strlen(r[i].key) > w)
			w = strlen(r[i].key);
	return (int)w;
}

static void print_rows(const struct result_row *r, size_t n, enum cli_format fmt,
		       const char *before, const char *after)
{
	size_t i, changed = 0;
	int w = run_column(r, n);

	if (fmt == FMT_JSON) {
		printf("{\"before\": [{\"result\": ");
		json_string(stdout, before);
		printf("}], \"after\": [{\"result\": ");
		json_string(stdout, after);
		printf("}], \"rows\": [");
	} else if (fmt == FMT_CSV) {
		printf("run,figure,before,after,change\n");
	} else {
		printf("before  %s\nafter   %s\nresults are replays, not samples: no interval, "
		       "no verdict\n\n  %-*s %-24s %12s %12s %12s\n", before, after, w, "run",
		       "figure", "before", "after", "change");
	}
	for (i = 0; i < n; i++) {
		double d = r[i].after - r[i].before;
		/* a figure known on one side only changed; unknown on both did not */
		bool differs = isnan(r[i].before) != isnan(r[i].after) || (!isnan(d) && d != 0);

		changed += differs;
		if (fmt == FMT_JSON) {
			printf("%s\n{\"run\": ", i ? "," : "");
			json_string(stdout, r[i].key);
			printf(", \"figure\": ");
			json_string(stdout, r[i].figure);
			printf(", \"before\": ");
			isnan(r[i].before) ? printf("null") : printf("%.10g", r[i].before);
			printf(", \"after\": ");
			isnan(r[i].after) ? printf("null") : printf("%.10g", r[i].after);
			printf(", \"change\": ");
			isnan(d) ? printf("null}") : printf("%.10g}", d);
		} else if (fmt == FMT_CSV) {
			cli_csv_field(stdout, r[i].key);
			putchar(',');
			cli_csv_field(stdout, r[i].figure);
			putchar(',');
			if (!isnan(r[i].before))
				printf("%.10g", r[i].before);
			putchar(',');
			if (!isnan(r[i].after))
				printf("%.10g", r[i].after);
			putchar(',');
			if (!isnan(d))
				printf("%.10g", d);
			putchar('\n');
		} else if (differs) {	/* the text: what changed */
			printf("  %-*s %-24s %12.6g %12.6g %+12.6g\n", w, r[i].key, r[i].figure,
			       r[i].before, r[i].after, d);
		}
	}
	if (fmt == FMT_JSON)
		printf("]}\n");
	else if (fmt == FMT_TABLE)
		printf("\n%zu of %zu figures changed (the rest as they were)\n", changed, n);
}

/* add @r to @rows; Return: 0 or -ENOMEM */
static int push(struct result_row **rows, size_t *n, size_t *cap, const struct result_row *r)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		struct result_row *x = realloc(*rows, c * sizeof(*x));

		if (!x)
			return -ENOMEM;
		*rows = x;
		*cap = c;
	}
	(*rows)[(*n)++] = *r;
	return 0;
}

int diff_results(const char *before, const char *after, enum cli_format fmt)
{
	struct table b = { 0 }, a = { 0 };
	struct result_row *rows = NULL, row;
	size_t nr = 0, cap = 0, i, j, unmatched = 0;
	char key[512];
	unsigned int c;
	int ret = 1;

	if (table_read(before, &b) || table_read(after, &a))
		goto out;
	if (b.nr_names != a.nr_names) {
		cli_error("diff", "%s and %s: results of other columns (%u and %u): not the same "
			  "command's", before, after, b.nr_names, a.nr_names);
		goto out;
	}
	for (c = 0; c < b.nr_names; c++)
		if (strcmp(b.names[c], a.names[c])) {
			cli_error("diff", "%s and %s: column %u is %s and %s: not the same command's",
				  before, after, c + 1, b.names[c], a.names[c]);
			goto out;
		}
	for (i = 0; i < b.nr_rows; i++) {
		row_key(&b, b.rows[i], row.key, sizeof(row.key));
		for (j = 0; j < a.nr_rows; j++) {
			row_key(&a, a.rows[j], key, sizeof(key));
			if (!strcmp(key, row.key))
				break;
		}
		if (j == a.nr_rows) {
			unmatched++;
			continue;
		}
		for (c = 0; c < b.nr_names; c++) {
			const char *name = b.names[c];

			if (is_key(name))
				continue;
			if ((!strcmp(name, "residency_pct") || !strcmp(name, "residency")) &&
			    column_of(&b, "state_name") < 0 && column_of(&b, "state") < 0) {
				/* sweep's per-state cell: a figure per state BEFORE names */
				const char *p = b.rows[i][c];

				while (*p) {
					const char *colon = strchr(p, ':'), *semi = strchr(p, ';');
					char state[CPUIDLE_NAME_LEN];

					if (!colon || (semi && semi < colon))
						break;
					snprintf(state, sizeof(state), "%.*s", (int)(colon - p), p);
					snprintf(row.figure, sizeof(row.figure), "residency_pct:%s", state);
					row.before = composite(b.rows[i][c], state);
					row.after = composite(a.rows[j][c], state);
					if (push(&rows, &nr, &cap, &row))
						goto nomem;
					p = semi ? semi + 1 : p + strlen(p);
				}
				continue;
			}
			if (!number(b.rows[i][c], &row.before) || !number(a.rows[j][c], &row.after)) {
				cli_error("diff", "%s: column %s: %s is not a number (a result of sim "
					  "--csv or sweep --csv?)", before, name, b.rows[i][c]);
				goto out;
			}
			snprintf(row.figure, sizeof(row.figure), "%s", name);
			if (push(&rows, &nr, &cap, &row))
				goto nomem;
		}
	}
	if (unmatched || b.nr_rows != a.nr_rows)
		cli_warn("diff", "%zu of %s's %zu runs not in %s (%zu runs): "
			"compared the runs both have", unmatched, before, b.nr_rows, after,
			a.nr_rows);
	if (!nr) {
		cli_error("diff", "%s and %s: no run in both", before, after);
		goto out;
	}
	print_rows(rows, nr, fmt, before, after);
	ret = 0;
	goto out;
nomem:
	cli_error("diff", "%s", strerror(ENOMEM));
out:
	free(rows);
	table_free(&b);
	table_free(&a);
	return ret;
}

bool diff_is_result(const char *path)
{
	char line[4096], *fields[MAX_COLUMNS];
	FILE *f = fopen(path, "r");
	bool yes = false, read = false;
	int n, c;

	if (!f)
		return false;
	while ((read = fgets(line, sizeof(line), f) != NULL) && line[0] == '#')
		;
	fclose(f);
	if (!read)
		return false;
	line[strcspn(line, "\r\n")] = '\0';
	n = split_csv(line, fields, MAX_COLUMNS);
	for (c = 0; c < n; c++)
		yes |= !strcmp(fields[c], "governor");
	/* a header's names have no space (attribute paths none either) */
	for (c = 0; c < n && yes; c++)
		yes = !strchr(fields[c], ' ');
	return yes;
}
