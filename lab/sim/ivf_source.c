// SPDX-License-Identifier: MIT
/*
 * ivf_source.c - an interval file as a replay's source (ivf_source.h)
 */
#include <errno.h>
#include <stdlib.h>

#include "ivf_source.h"

struct ivf_source {
	struct replay_source src;	/* first: the replay sees only this */
	struct ivf_reader *r;
};

static int ivf_source_next(struct replay_source *src, struct idle_interval *iv)
{
	return ivf_next(((struct ivf_source *)src)->r, iv);
}

static const char *ivf_source_error(struct replay_source *src)
{
	return ivf_error(((struct ivf_source *)src)->r);
}

static void ivf_source_close(struct replay_source *src)
{
	ivf_close(((struct ivf_source *)src)->r);
	free(src);
}

int ivf_replay_open(void *arg, struct replay_source **out)
{
	struct ivf_source *s = calloc(1, sizeof(*s));
	char err[512];
	int ret;

	if (!s)
		return -ENOMEM;
	ret = ivf_open(arg, &s->r, err, sizeof(err));
	if (ret) {
		free(s);
		return ret;
	}
	s->src.next = ivf_source_next;
	s->src.close = ivf_source_close;
	s->src.error = ivf_source_error;
	*out = &s->src;
	return 0;
}
