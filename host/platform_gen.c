// SPDX-License-Identifier: MIT
/*
 * platform_gen.c - the host's state table as a platform file
 * (host_platform.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "host_cpulist.h"
#include "host_kconfig.h"
#include "host_platform.h"

#define POLL_DESC	"CPUIDLE CORE POLL IDLE"	/* drivers/cpuidle/poll_state.c */

/* "CONFIG_HZ=N": N into @ctx (an unsigned int) */
static bool hz_line(const char *line, void *ctx)
{
	if (strncmp(line, "CONFIG_HZ=", 10))
		return false;
	*(unsigned int *)ctx = (unsigned int)strtoul(line + 10, NULL, 10);
	return true;
}

unsigned int host_tick_hz(void)
{
	unsigned int hz = 0;

	if (host_kconfig_find(hz_line, &hz) <= 0)
		return 0;
	return hz <= 10000 ? hz : 0;
}

/* @s as a quoted string of the format: \" and \\ escaped, control bytes as '?' */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static bool same_table(const struct host_cpu *a, const struct host_cpu *b)
{
	int k;

	if (a->state_count != b->state_count)
		return false;
	for (k = 0; k < a->state_count; k++) {
		const struct host_state *x = &a->states[k], *y = &b->states[k];

		if (strcmp(x->name, y->name) || strcmp(x->desc, y->desc) ||
		    x->latency_us != y->latency_us || x->residency_us != y->residency_us ||
		    x->power != y->power || strcmp(x->default_status, y->default_status) ||
		    (x->present & ~y->present & ((1u << HOST_F_RESIDENCY) | (1u << HOST_F_POWER))))
			return false;
	}
	return true;
}

static bool is_poll_state(const struct host_state *s)
{
	return !strcmp(s->desc, POLL_DESC) || (s->index == 0 && !strcmp(s->name, "POLL"));
}

/* the table's state lines; -EINVAL (err set) if it cannot be one */
static int write_states(FILE *f, const struct host_cpu *c, char *err, size_t errlen)
{
	int k;

	for (k = 0; k < c->state_count; k++) {
		const struct host_state *s = &c->states[k], *prev = k ? &c->states[k - 1] : NULL;
		uint64_t residency = host_state_has(s, HOST_F_RESIDENCY) ? s->residency_us :
								       s->latency_us;
		uint64_t prev_res = !prev ? 0 : host_state_has(prev, HOST_F_RESIDENCY) ?
					       prev->residency_us : prev->latency_us;

		if (!host_state_has(s, HOST_F_NAME) || !s->name[0] || strlen(s->name) >= CPUIDLE_NAME_LEN) {
			snprintf(err, errlen, "cpu%u state%d: %s", c->cpu, k,
				 host_state_has(s, HOST_F_NAME) && s->name[0] ?
				 "name longer than 15 bytes" : "no name");
			return -EINVAL;
		}
		if (!host_state_has(s, HOST_F_LATENCY)) {
			snprintf(err, errlen, "cpu%u state%d (%s): no latency file", c->cpu, k, s->name);
			return -EINVAL;
		}
		if (s->latency_us > UINT32_MAX || residency > UINT32_MAX) {
			snprintf(err, errlen, "cpu%u state%d (%s): latency or residency over 4294967295 us",
				 c->cpu, k, s->name);
			return -EINVAL;
		}
		if (prev && (s->latency_us < prev->latency_us || residency < prev_res)) {
			snprintf(err, errlen,
				 "cpu%u state%d (%s): its latency or residency is below the state before's; "
				 "a platform file lists states shallowest first", c->cpu, k, s->name);
			return -EINVAL;
		}
		fprintf(f, "state ");
		quoted(f, s->name);
		if (s->desc[0]) {
			char desc[CPUIDLE_DESC_LEN];

			snprintf(desc, sizeof(desc), "%s", s->desc);	/* the format's limit */
			fprintf(f, " desc=");
			quoted(f, desc);
		}
		fprintf(f, " latency_us=%llu residency_us=%llu", (unsigned long long)s->latency_us,
			(unsigned long long)residency);
		if (!host_state_has(s, HOST_F_POWER) || s->power == HOST_POWER_UNKNOWN ||
		    s->power > INT32_MAX)
			fprintf(f, " power_mw=unknown");
		else if (!s->power)
			fprintf(f, " power_mw=0 model_power_mw=unknown");
		else
			fprintf(f, " power_mw=%llu", (unsigned long long)s->power);
		fprintf(f, " flags=%stime-valid%s", is_poll_state(s) ? "polling," : "",
			!strcmp(s->default_status, "disabled") ? ",off" : "");
		if (!host_state_has(s, HOST_F_RESIDENCY))
			fprintf(f, "  # no residency file: the exit latency taken");
		fputc('\n', f);
	}
	return 0;
}

static void header(FILE *f, const struct host_cpuidle *h, const char *name, unsigned int *tick)
{
	char host[256] = "";
	struct utsname u;
	char date[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	*tick = 0;
	fprintf(f, "# The host's cpuidle state table, read from sysfs by cpuidle platform --from-host.\n"
		   "# Format: libcpuidle-platform(5).  Latency and residency are sysfs's (us);\n"
		   "# power_mw is sysfs's \"power\": 4294967295 (power_usage -1) is unknown, and 0\n"
		   "# (no figure from the driver) is unknown to the energy model.\n");
	if (host_sysfs_is_real()) {
		gethostname(host, sizeof(host) - 1);
		if (!uname(&u)) {
			if (gmtime_r(&now, &tm))
				strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
			fprintf(f, "# Linux %s %s on %s, %s; governor %s.\n", u.release, u.machine,
				host, date, host_current_governor(h));
		}
		*tick = host_tick_hz();
	} else {
		fprintf(f, "# sysfs root: %s\n", host_sysfs_root());
	}
	fprintf(f, "\nplatform ");
	quoted(f, name);
	fprintf(f, "\ndesc ");
	{
		char desc[200];

		snprintf(desc, sizeof(desc), "cpuidle driver %s%s%s",
			 host_has(h, HOST_G_DRIVER) ? h->driver : "unknown", host[0] ? " on " : "",
			 host);
		quoted(f, desc);
	}
	fputc('\n', f);
	if (*tick)
		fprintf(f, "tick_hz %u\n", *tick);
}

int host_platform_text(const struct host_cpuidle *h, const char *name, char **out, size_t *len,
		       char *err, size_t errlen)
{
	/* group[i]: the index of the first CPU with CPU i's table */
	unsigned int *group, i, j, nr_groups = 0, tick, max_cpu = 0;
	struct cpuidle_platform *check;
	char perr[512];
	FILE *f;
	int ret = 0;

	*out = NULL;
	*len = 0;
	err[0] = '\0';
	for (i = 0; i < h->nr_cpus; i++)
		if (h->cpus[i].state_count)
			break;
	if (i == h->nr_cpus) {
		snprintf(err, errlen, "no CPU has an idle state (driver %s)",
			 host_has(h, HOST_G_DRIVER) ? h->driver : "unknown");
		return -ENODEV;
	}
	group = calloc(h->nr_cpus, sizeof(*group));
	if (!group)
		return -ENOMEM;
	for (i = 0; i < h->nr_cpus; i++) {
		for (j = 0; j < i && !same_table(&h->cpus[j], &h->cpus[i]); j++)
			;
		group[i] = j;
		nr_groups += j == i;
		if (h->cpus[i].cpu > max_cpu)
			max_cpu = h->cpus[i].cpu;
	}
	f = open_memstream(out, len);
	if (!f) {
		free(group);
		return -ENOMEM;
	}
	header(f, h, name, &tick);
	fprintf(f, "cpus %u\n", max_cpu + 1);
	if (nr_groups == 1 && h->nr_cpus == max_cpu + 1) {
		fputc('\n', f);
		ret = write_states(f, &h->cpus[0], err, errlen);
	} else {
		for (i = 0; !ret && i < h->nr_cpus; i++) {
			struct host_cpuset set;
			char list[1024];

			if (group[i] != i)
				continue;
			memset(&set, 0, sizeof(set));
			for (j = 0; j < h->nr_cpus; j++)
				if (group[j] == i)
					host_cpuset_add(&set, h->cpus[j].cpu);
			/* CPUs without a cpuidle directory (offline) join the first table */
			if (i == 0)
				for (j = 0; j <= max_cpu; j++)
					if (!host_find_cpu(h, j))
						host_cpuset_add(&set, j);
			if (host_cpulist_format(&set, list, sizeof(list))) {
				snprintf(err, errlen, "too many CPUs for one cluster line");
				ret = -EINVAL;
				break;
			}
			fprintf(f, "\ncluster table%u cpus=%s\n", h->cpus[i].cpu, list);
			ret = write_states(f, &h->cpus[i], err, errlen);
		}
	}
	free(group);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	check = malloc(sizeof(*check));
	if (!check) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	ret = cpuidle_platform_parse(*out, *len, "host.platform", check, perr, sizeof(perr));
	free(check);
	if (ret) {
		snprintf(err, errlen, "the host's table does not make a platform file: %s", perr);
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}
