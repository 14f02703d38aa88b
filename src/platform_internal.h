/* SPDX-License-Identifier: MIT */
/*
 * platform_internal.h - what the platform file's reader shares between its
 * words (platform_lex.c: tokens, numbers, times, powers, flags, CPU lists)
 * and its grammar (platform_parse.c: lines, states, clusters, the checks
 * at the end); platform.c loads files and the bundled platforms
 */
#ifndef CPUIDLE_PLATFORM_INTERNAL_H
#define CPUIDLE_PLATFORM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "cpuidle/platform.h"

/* The largest time: what cpuidle_state's unsigned int us fields can hold. */
#define PLATFORM_MAX_TIME_NS	((int64_t)UINT_MAX * CPUIDLE_NSEC_PER_USEC)
/* The largest energy: the same number, in uJ. */
#define PLATFORM_MAX_ENERGY_NJ	((int64_t)UINT_MAX * 1000)
/* The range of tick_hz, as cpuidle_system_create() accepts it. */
#define PLATFORM_MAX_TICK_HZ	CPUIDLE_MAX_TICK_HZ
/* How much of an offending word an error message quotes. */
#define SNIPPET_MAX		40
/* "state 'NAME'" or "cluster 'NAME'" for messages */
#define OWNER_LEN		(CPUIDLE_PLATFORM_CLUSTER_NAME_LEN + 16)

struct parser {
	const char *file;
	unsigned int line;		/* current line, from 1 */
	char *err;
	size_t errlen;
	struct cpuidle_platform *p;
	unsigned int platform_line;	/* where each header line was, 0: not yet */
	unsigned int desc_line;
	unsigned int tick_line;
	unsigned int cpus_line;
	unsigned int active_line;
	unsigned int toplevel_line;	/* the first state before any cluster line */
	unsigned int cluster_line[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	bool cluster_active[CPUIDLE_PLATFORM_MAX_CLUSTERS];	/* active_power_mw= given */
};

/* The unread part of the current line: [pos, end), comment included. */
struct cursor {
	const char *pos;
	const char *end;
};

/*
 * A word of a line: a bare word, or the inside of a quoted string with its
 * escapes still in place (copy_string() resolves them).
 */
struct token {
	const char *s;
	size_t n;
	bool quoted;
};

/* A printable excerpt of @n bytes at @s for an error message. */
struct snippet {
	char buf[SNIPPET_MAX + 4];
};

const char *plat_show_tok(struct snippet *sn, const struct token *t);
int plat_fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool plat_at_eol(struct cursor *c);
bool plat_ends_word(const struct cursor *c);
bool plat_tok_is(const struct token *t, const char *word);
int plat_read_value(struct parser *ps, struct cursor *c, struct token *t,
		      const char *what);
int plat_copy_string(struct parser *ps, const struct token *t, char *dst, size_t size,
		       const char *what, bool allow_empty);
int plat_parse_uint(struct parser *ps, const struct token *t, const char *key,
		      uint64_t max, uint64_t *out);
int plat_parse_time(struct parser *ps, const struct token *t, const char *key,
		      int64_t unit_ns, int64_t *out);
int plat_parse_energy(struct parser *ps, const struct token *t, const char *key,
			int64_t *out);
int plat_parse_power(struct parser *ps, const struct token *t, const char *key,
		       bool unknown_ok, int *out);
int plat_parse_flags(struct parser *ps, const struct token *t, unsigned int *out);
void plat_cpumask_set(uint64_t *mask, unsigned int cpu);
unsigned int plat_cluster_last_cpu(const struct cpuidle_platform_cluster *cl);
int plat_parse_cpulist(struct parser *ps, const struct token *t, const char *owner,
			 struct cpuidle_platform_cluster *cl);
const char *plat_show_time(char *buf, size_t size, int64_t ns);
int plat_read_key(struct parser *ps, struct cursor *c, const char *owner, struct token *key);
int plat_read_key_value(struct parser *ps, struct cursor *c, const char *owner,
			  const char *name, struct token *val);
int plat_check_once(struct parser *ps, const char *owner, const char **seen,
		      const char *name);

#endif /* CPUIDLE_PLATFORM_INTERNAL_H */
