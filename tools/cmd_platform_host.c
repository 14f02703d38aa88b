// SPDX-License-Identifier: MIT
/*
 * cmd_platform_host.c - "cpuidle platform --from-host": the host's state
 * table as a platform file (libcpuidle-platform(5)), checked by the
 * library's parser before it is printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "host_cli.h"
#include "host_platform.h"

int cli_platform_from_host(const char *name)
{
	struct host_cpuidle h;
	char err[600], *text;
	size_t len;
	int ret;

	if (!name)
		name = "host";
	if (host_cli_read("platform", &h))
		return 1;
	ret = host_platform_text(&h, name, &text, &len, err, sizeof(err));
	host_cpuidle_free(&h);
	if (ret)
		return cli_error("platform", "--from-host: %s", err[0] ? err : strerror(-ret));
	fwrite(text, 1, len, stdout);
	free(text);
	return 0;
}
