// SPDX-License-Identifier: MIT
/*
 * recording.c - parse a recording's description (recording.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording.h"

/* copy @n bytes of @s into @out's buffer at *@at, NUL-terminated */
static char *keep(struct recording *out, size_t *at, const char *s, size_t n)
{
	char *p = out->buf + *at;

	memcpy(p, s, n);
	p[n] = '\0';
	*at += n + 1;
	return p;
}

int recording_parse(const char *text, size_t len, struct recording *out, char *err,
		    size_t errlen)
{
	const char *p = text, *end = text + len;
	size_t at = 0, plat_at;
	char *plat;

	memset(out, 0, sizeof(*out));
	if (len > TRACE_RECORDING_MAX)
		return -EINVAL;
	/* the platform's lines go at the buffer's far half, joined */
	plat_at = TRACE_RECORDING_MAX;
	plat = out->buf + plat_at;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *sp, *v;
		size_t n = (size_t)((nl ? nl : end) - p), key, vn;

		sp = memchr(p, ' ', n);
		key = sp ? (size_t)(sp - p) : n;
		v = sp ? sp + 1 : p + n;
		vn = (size_t)(p + n - v);

		if (key == 7 && !memcmp(p, "version", 7)) {
			out->version = (unsigned int)strtoul(v, NULL, 10);
		} else if (key == 6 && !memcmp(p, "driver", 6)) {
			if (vn >= sizeof(out->driver))
				goto bad;
			memcpy(out->driver, v, vn);
			out->driver[vn] = '\0';
		} else if (key == 8 && !memcmp(p, "governor", 8)) {
			if (!vn || vn >= sizeof(out->governor))
				goto bad;
			memcpy(out->governor, v, vn);
			out->governor[vn] = '\0';
		} else if (key == 4 && !memcmp(p, "tick", 4)) {
			if (vn == 8 && !memcmp(v, "periodic", 8))
				out->tick_periodic = true;
			else if (!(vn == 9 && (!memcmp(v, "nohz-idle", 9) ||
					       !memcmp(v, "nohz-full", 9))))
				goto bad;
		} else if (key == 3 && !memcmp(p, "set", 3)) {
			if (out->nr_attrs == RECORDING_MAX_ATTRS || !memchr(v, '=', vn) || *v == '=')
				goto bad;
			out->attrs[out->nr_attrs++] = keep(out, &at, v, vn);
		} else if (key == 7 && !memcmp(p, "derived", 7)) {
			out->derived = keep(out, &at, v, vn);
		} else if (key == 8 && !memcmp(p, "platform", 8)) {
			memcpy(plat + out->platform_len, v, vn);
			out->platform_len += vn;
			plat[out->platform_len++] = '\n';
		}
		p += n + (nl != NULL);
		continue;
bad:
		snprintf(err, errlen, "the recording's description: a bad line \"%.*s\"",
			 (int)(n > 80 ? 80 : n), p);
		return -EINVAL;
	}
	if (out->platform_len)
		out->platform = plat;
	return 0;
}
