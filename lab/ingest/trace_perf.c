// SPDX-License-Identifier: MIT
/*
 * trace_perf.c - perf.data, read natively: the file perf record writes, in
 * file mode (a header with sections) or pipe mode (perf record -o -), plain
 * or compressed (trace_read.c), its records zstd-compressed or not (perf
 * record -z).  The layout is the one tools/perf/Documentation/
 * perf.data-file-format.txt documents; nothing of perf's code is used.
 *
 * File mode: the header locates the attributes, the data and, after the
 * data, the feature sections, the first of which (HEADER_TRACING_DATA) holds
 * the event formats the kernel wrote.  They are needed before the first
 * sample can be read, so the data is read after them: a plain file seeks, a
 * compressed one is decompressed twice (trace_src_rewind()), a pipe cannot
 * be read so and is refused with the way out.  Pipe mode carries the same
 * things as records before the samples (HEADER_ATTR, HEADER_TRACING_DATA).
 *
 * Attributes are read at the size the file declares for them, larger or
 * smaller than this file knows: only their first fields (type, config,
 * sample_type, read_format, flags) are used.  A sample is matched to its
 * attribute by PERF_SAMPLE_IDENTIFIER, else by PERF_SAMPLE_ID at the
 * position every attribute must then share, else (one attribute) by that
 * one; its fields are walked in the documented order up to the raw data.
 * Other record types are skipped by their size, AUXTRACE with the data
 * after it.
 *
 * Order.  Each CPU's ring buffer is in time order, but perf writes them one
 * after another: a sample may come after later samples of other CPUs.  The
 * events of the records read since the last FINISHED_ROUND wait in a queue;
 * at a FINISHED_ROUND those not after the previous round's newest time
 * stamp come out in time order (ties in file order).  perf guarantees that
 * nothing later in the file goes before them; perf script orders the same
 * way, so its text and this reader give the same events in the same order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace_internal.h"

/* Record types (include/uapi/linux/perf_event.h, tools/perf/util/event.h) */
enum {
	REC_LOST = 2,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* perf_event_attr.sample_type bits */
enum {
	S_IP = 1 << 0,
	S_TID = 1 << 1,
	S_TIME = 1 << 2,
	S_ADDR = 1 << 3,
	S_READ = 1 << 4,
	S_CALLCHAIN = 1 << 5,
	S_ID = 1 << 6,
	S_CPU = 1 << 7,
	S_PERIOD = 1 << 8,
	S_STREAM_ID = 1 << 9,
	S_RAW = 1 << 10,
	S_IDENTIFIER = 1 << 16,
};

/* perf_event_attr.read_format bits */
enum {
	RF_ENABLED = 1 << 0,
	RF_RUNNING = 1 << 1,
	RF_ID = 1 << 2,
	RF_GROUP = 1 << 3,
	RF_LOST = 1 << 4,
};

#define PERF_TYPE_TRACEPOINT	2
#define ATTR_SAMPLE_ID_ALL	(1ULL << 18)	/* the flags word's bit */
#define ATTR_MIN_SIZE		48	/* type, size, config, period, sample_type,
					 * read_format, flags: all that is read */
#define ATTR_VER0_SIZE		64	/* PERF_ATTR_SIZE_VER0, the smallest written */
#define ATTR_MAX_SIZE		4096	/* far beyond any kernel's (136 in 6.18) */
#define ATTRS_MAX		4096
#define IDS_MAX			(1 << 20)
#define ID_DENSE_SPAN		65536	/* ids spanning less: looked up in a table */
#define FILE_HEADER_SIZE	104
#define PIPE_HEADER_SIZE	16
#define FEAT_TRACING_DATA	1
#define FEAT_COMPRESSED		27
#define FEAT_BITS		256
#define TRACING_DATA_MAX	(64u << 20)
/* zstd: what one compressed record may decompress to; perf's are one mmap
 * chunk (mmap_len, 512 KiB by default); more is a corrupt file or a bomb */
#define DECOMP_MAX		(64u << 20)

static const unsigned char magic_le[8] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' };
static const unsigned char magic_be[8] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P' };

struct perf_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint64_t read_format;
	bool sample_id_all;
};

struct perf_id {
	uint64_t id;
	unsigned int attr;
};

struct queued {
	struct trace_event ev;
	uint64_t seq;
};

/*
 * One CPU's events in the queue, in time order (ties: file order): a ring.
 * A CPU's ring buffer is in time order, so an event nearly always goes at
 * the end; one that does not is moved back into place.
 */
struct lane {
	struct queued *q;
	size_t head, len, cap;	/* cap: a power of two */
};

struct perf_reader {
	struct trace_reader *r;
	struct trace_src *src;
	bool pipe;
	uint64_t data_off;
	uint64_t data_end;	/* file mode: where the data ends; pipe: UINT64_MAX */
	uint64_t feat_bits[FEAT_BITS / 64];

	struct perf_attr *attrs;
	unsigned int nr_attrs;
	struct perf_id *ids;	/* sorted by id */
	size_t nr_ids;
	/* ids as perf gives them, consecutive: 1 + the attribute of id_base + i */
	uint16_t *id_dense;
	uint64_t id_base, id_span;
	int id_pos;		/* the u64 index of PERF_SAMPLE_ID in a sample; -1 */
	bool identifier;	/* samples start with PERF_SAMPLE_IDENTIFIER */

	struct tep_handle *tep;
	char *printk;		/* the tracing data's printk strings, checked lines */
	struct tp_decoder *dec;
	struct tp_tick_vote vote;
	bool voting;		/* pipe mode: the vote runs as events are read */
	bool prescan;		/* file mode: the vote is still to run, first */
	bool in_prescan;	/* it runs: only the events it reads are decoded */

	/* zstd-compressed records: their records, decompressed */
	ZSTD_DStream *zd;
	unsigned char *dz;
	size_t dz_len, dz_pos, dz_cap;
	uint64_t dz_offset;	/* the compressed record's offset, for messages */

	/*
	 * The queue: events waiting for their round to end, by CPU (@lanes,
	 * @nr_lanes of them; @active lists those that ever held one).  Those
	 * up to @out_limit may come out, merged by time.
	 */
	struct lane *lanes;
	struct lane *run;	/* merge_scan(): the lane that comes out next */
	bool run_bounded;
	int64_t run_bound_ts;	/* ... while its head comes before this */
	uint64_t run_bound_seq;
	struct queued *heap;	/* events far out of place in their lane */
	size_t heap_len, heap_cap;
	unsigned int nr_lanes;
	unsigned int *active;
	unsigned int nr_active;
	size_t queued;
	bool queued_over;	/* over QUEUE_MAX: down to half before reading on */
	uint64_t seq;
	int64_t round_max;	/* the newest time stamp read so far */
	int64_t flush_limit;	/* at the next round's end, events up to this go */
	int64_t out_limit;	/* events up to this one may come out now */
	int64_t floor_ts;	/* no queued event comes before this (a lower bound) */
	bool out_all;		/* the file ended: all may */
	bool eof;
};

static int pfail(struct perf_reader *p, int err, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* an error at byte @off of the (decompressed) file */
static int pfail(struct perf_reader *p, int err, uint64_t off, const char *fmt, ...)
{
	char msg[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return trace_fail(p->r, err, 0, "byte %llu: %s", (unsigned long long)off, msg);
}

static inline uint64_t get64(const unsigned char *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

static inline uint32_t get32(const unsigned char *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

static inline uint16_t get16(const unsigned char *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return v;
}

/* exactly @n bytes at the source's position, or the error (truncated: @what) */
static int need(struct perf_reader *p, size_t n, const unsigned char **b, const char *what)
{
	uint64_t off = trace_src_offset(p->src);
	ssize_t got = trace_src_bytes(p->src, n, b);

	if (got < 0)
		return trace_src_fail(p->r, (int)got);
	if ((size_t)got < n)
		return pfail(p, -EINVAL, off, "the file ends in %s (truncated: %zd of %zu bytes)",
			     what, got, n);
	return 0;
}

static int skip_to(struct perf_reader *p, uint64_t off, const char *what)
{
	uint64_t here = trace_src_offset(p->src);
	int64_t got;

	if (off < here)
		return pfail(p, -EINVAL, here, "%s lies before this point", what);
	got = trace_src_skip(p->src, off - here);
	if (got < 0)
		return trace_src_fail(p->r, (int)got);
	if ((uint64_t)got < off - here)
		return pfail(p, -EINVAL, here + (uint64_t)got, "the file ends before %s at byte "
			     "%llu (truncated)", what, (unsigned long long)off);
	return 0;
}

/* back to the file's first byte (file mode reads its sections out of order) */
static int rewind_src(struct perf_reader *p)
{
	int err = trace_src_rewind(p->src);

	if (err == -ESPIPE)
		return trace_fail(p->r, -EINVAL, 0, "a perf.data file on a pipe: its event "
				  "formats come after its data, so it must be read from a file "
				  "(give its name), or recorded in pipe mode (perf record -o -)");
	return err ? trace_src_fail(p->r, err) : 0;
}

/* ---- the event formats (HEADER_TRACING_DATA) ---- */

struct td {
	const unsigned char *b;
	size_t len, pos;
	bool big;
};

static bool td_has(struct td *t, size_t n)
{
	return n <= t->len - t->pos;
}

static uint64_t td_num(struct td *t, size_t n);

/* a size of @width bytes and that many bytes after it: @p, @size */
static bool td_blob(struct td *t, size_t width, const unsigned char **p, uint64_t *size)
{
	if (!td_has(t, width))
		return false;
	*size = td_num(t, width);
	if (!td_has(t, *size))
		return false;
	*p = t->b + t->pos;
	t->pos += *size;
	return true;
}

static uint64_t td_num(struct td *t, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int byte = t->b[t->pos + (t->big ? i : n - 1 - i)];

		v = v << 8 | byte;
	}
	t->pos += n;
	return v;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "ADDR : \"TEXT\"" (the kernel's printk_formats), @n bytes, no newline */
static bool printk_line(const char *l, size_t n)
{
	size_t i = 0;

	if (n > 1 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'))
		i = 2;
	if (i >= n || !is_hex(l[i]))
		return false;
	while (i < n && is_hex(l[i]))
		i++;
	return n - i >= 5 && !memcmp(l + i, " : \"", 4) && l[n - 1] == '"';
}

/* "ADDR T NAME" with an optional " [MODULE]" (/proc/kallsyms) */
static bool kallsyms_line(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && is_hex(l[i]))
		i++;
	if (!i || i + 4 > n || l[i] != ' ' || l[i + 1] == ' ' || l[i + 2] != ' ' ||
	    l[i + 3] == ' ' || l[i + 3] == '\t')
		return false;
	for (i += 3; i < n; i++)
		if (l[i] == '\0')
			return false;
	return true;
}

/* the lines of @text (@size bytes) @ok accepts, NUL-terminated, into @out (size + 2) */
static void keep_lines(char *out, const unsigned char *text, size_t size,
		       bool (*ok)(const char *, size_t))
{
	const char *l = (const char *)text, *end = l + size, *nl;
	size_t n, o = 0;

	for (; l < end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		n = (size_t)(nl - l);
		if (!memchr(l, '\0', n) && ok(l, n)) {
			memcpy(out + o, l, n);
			o += n;
			out[o++] = '\n';
		}
		if (nl == end)
			break;
	}
	out[o] = '\0';
}

/* a run of decimal digits at @l[*i], @n long: true, *i past them */
static bool digits(const char *l, size_t n, size_t *i)
{
	size_t s = *i;

	while (*i < n && l[*i] >= '0' && l[*i] <= '9')
		(*i)++;
	return *i > s && *i - s <= 9;
}

/* does @l (@n bytes) start with @w, at *@i? then *@i moves past it */
static bool word(const char *l, size_t n, size_t *i, const char *w)
{
	size_t k = strlen(w);

	if (n - *i < k || memcmp(l + *i, w, k))
		return false;
	*i += k;
	return true;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * A field's declaration, "TYPE NAME" as the kernel writes it: words of
 * identifier characters, '*' and spaces, brackets that hold a number or
 * nothing ("char comm[16]", "__data_loc char[] name"), a name last.
 * libtraceevent 1.7.1 dereferences NULL on some others (an unclosed '['
 * followed by bytes above 0x7f: found by fuzz_trace_perfdata).
 */
static bool field_decl(const char *d, size_t n)
{
	size_t i, last = 0;
	bool words = false;

	if (!n || d[0] == ' ' || d[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++) {
		if (d[i] == '[') {
			for (i++; i < n && d[i] >= '0' && d[i] <= '9'; i++)
				;
			if (i == n || d[i] != ']')
				return false;
		} else if (d[i] == ' ') {
			last = i + 1;
			words = true;
		} else if (!ident_char(d[i]) && d[i] != '*') {
			return false;
		}
	}
	/* the name: an identifier (its array brackets after it) */
	return words && last < n && ident_char(d[last]) && !(d[last] >= '0' && d[last] <= '9');
}

/*
 * "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (signed: since
 * 2.6.33), a line of an event's format
 */
static bool field_line(const char *l, size_t n)
{
	size_t i = 0, semi;

	if (!word(l, n, &i, "\tfield:"))
		return false;
	for (semi = i; semi < n && l[semi] != ';'; semi++)
		;
	if (semi == n || !field_decl(l + i, semi - i))
		return false;
	i = semi + 1;
	if (!word(l, n, &i, "\toffset:") || !digits(l, n, &i) || !word(l, n, &i, ";\tsize:") ||
	    !digits(l, n, &i) || !word(l, n, &i, ";"))
		return false;
	if (i < n && (!word(l, n, &i, "\tsigned:") || !digits(l, n, &i) || !word(l, n, &i, ";")))
		return false;
	return i == n;
}

/*
 * An event's format, checked line by line and given to libtraceevent with
 * its print format emptied: libtraceevent 1.7.1 crashes on some malformed
 * ones (fuzz_trace_perfdata found a NULL dereference in tep_parse_event()),
 * and the lab reads fields, never prints (an IPI's reason, the one string
 * it needs, is looked up in the printk strings: ipi_reason_text()).
 * Return: the length written to @out (at least @size + 32 bytes), or 0
 * for a format that is not well formed (its event is then unknown).
 */
static size_t clean_format(char *out, const unsigned char *text, size_t size)
{
	static const char print[] = "print fmt: \"\"\n";
	const char *l = (const char *)text, *end = l + size, *nl;
	size_t n, o = 0, i;
	int stage = 0;	/* 0 name, 1 ID, 2 "format:", 3 fields */

	for (; l < end && stage < 4; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		n = (size_t)(nl - l);
		i = 0;
		switch (stage) {
		case 0:
			if (!word(l, n, &i, "name: ") || i == n || memchr(l, '\0', n))
				return 0;
			for (; i < n; i++)
				if (!(l[i] == '_' || (l[i] >= 'a' && l[i] <= 'z') ||
				      (l[i] >= 'A' && l[i] <= 'Z') || (l[i] >= '0' && l[i] <= '9')))
					return 0;
			break;
		case 1:
			if (!word(l, n, &i, "ID: ") || !digits(l, n, &i) || i != n)
				return 0;
			break;
		case 2:
			if (n != 7 || memcmp(l, "format:", 7))
				return 0;
			break;
		default:
			if (n >= 10 && !memcmp(l, "print fmt:", 10)) {
				stage = 4;
				continue;
			}
			if (!n) {
				/* a blank line between common and own fields, and after */
				out[o++] = '\n';
				continue;
			}
			if (!field_line(l, n))
				return 0;
			break;
		}
		if (stage < 3)
			stage++;
		memcpy(out + o, l, n);
		o += n;
		out[o++] = '\n';
		if (nl == end)
			break;
	}
	if (stage < 3)
		return 0;
	memcpy(out + o, print, sizeof(print) - 1);
	return o + sizeof(print) - 1;
}

/*
 * The tracing data perf (and trace-cmd) write: a magic, a version, the byte
 * order and long size, the ring buffer's header formats, the formats of
 * ftrace's own events and of the traced events by system, the kernel's
 * symbols and printk strings, and (0.6) saved command lines.
 */
static int parse_tracing_data(struct perf_reader *p, const unsigned char *b, size_t len,
			      uint64_t off)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct td t = { .b = b, .len = len };
	const unsigned char *text;
	const char *sys;
	size_t clean;
	uint64_t n, size, i, j, nr_sys;
	unsigned int long_size;
	const unsigned char *z;
	char *copy;

	if (len < sizeof(magic) || memcmp(b, magic, sizeof(magic)))
		return pfail(p, -EINVAL, off, "the tracing data does not start with its magic");
	t.pos = sizeof(magic);
	z = memchr(b + t.pos, '\0', len - t.pos);
	if (!z || (size_t)(z - (b + t.pos)) > 8)
		return pfail(p, -EINVAL, off, "the tracing data has no version");
	t.pos = (size_t)(z - b) + 1;
	if (!td_has(&t, 6))
		goto short_data;
	t.big = b[t.pos] != 0;
	long_size = b[t.pos + 1];
	t.pos += 2;
	if (long_size != 4 && long_size != 8)
		return pfail(p, -EINVAL, off, "the tracing data says longs are %u bytes", long_size);
	tep_set_file_bigendian(p->tep, t.big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(p->tep, (int)long_size);
	tep_set_page_size(p->tep, (int)td_num(&t, 4));

	/* "header_page" and "header_event", each a size and a text */
	for (i = 0; i < 2; i++) {
		const char *want = i ? "header_event" : "header_page";
		size_t wl = strlen(want) + 1;

		if (!td_has(&t, wl) || memcmp(b + t.pos, want, wl))
			return pfail(p, -EINVAL, off, "the tracing data has no %s", want);
		t.pos += wl;
		if (!td_blob(&t, 8, &text, &size))
			goto short_data;
		if (!i)
			tep_parse_header_page(p->tep, (char *)text, size, (int)long_size);
	}
	/* ftrace's own events: not ours */
	if (!td_has(&t, 4))
		goto short_data;
	n = td_num(&t, 4);
	for (i = 0; i < n; i++)
		if (!td_blob(&t, 8, &text, &size))
			goto short_data;
	/* the traced events, by system */
	if (!td_has(&t, 4))
		goto short_data;
	nr_sys = td_num(&t, 4);
	for (i = 0; i < nr_sys; i++) {
		z = memchr(b + t.pos, '\0', len - t.pos);
		if (!z)
			goto short_data;
		sys = (const char *)b + t.pos;
		t.pos = (size_t)(z - b) + 1;
		if (!td_has(&t, 4))
			goto short_data;
		n = td_num(&t, 4);
		for (j = 0; j < n; j++) {
			if (!td_blob(&t, 8, &text, &size))
				goto short_data;
			/* a format that is not well formed is one we do not need, or
			 * one of ours tp_decoder_init() then finds missing */
			copy = malloc(size + 32);
			if (!copy)
				return pfail(p, -ENOMEM, off, "out of memory");
			clean = clean_format(copy, text, size);
			if (clean)
				tep_parse_event(p->tep, copy, clean, sys);
			free(copy);
		}
	}
	/* the kernel's symbols (perf writes none), printk strings: optional */
	for (i = 0; i < 2 && td_has(&t, 4); i++) {
		if (!td_blob(&t, 4, &text, &size))
			goto short_data;
		if (!size)
			continue;
		copy = malloc(size + 2);	/* a last line gets its newline */
		if (!copy)
			return pfail(p, -ENOMEM, off, "out of memory");
		/* only well-formed lines: libtraceevent reads past the end of others */
		keep_lines(copy, text, size, i ? printk_line : kallsyms_line);
		if (i) {
			/* kept for the decoder (IPI reasons), not given to libtraceevent */
			free(p->printk);
			p->printk = copy;
			continue;
		}
		tep_parse_kallsyms(p->tep, copy);
		free(copy);
	}
	return 0;
short_data:
	return pfail(p, -EINVAL, off, "the tracing data is cut short (%zu bytes, or a size in it "
		     "is wrong)", len);
}

/* read @size bytes of tracing data at the source's position and parse them */
static int read_tracing_data(struct perf_reader *p, uint64_t size)
{
	uint64_t off = trace_src_offset(p->src);
	const unsigned char *b;
	int err;

	if (size > TRACING_DATA_MAX)
		return pfail(p, -EINVAL, off, "the tracing data claims %llu bytes (over %u MiB: "
			     "corrupt)", (unsigned long long)size, TRACING_DATA_MAX >> 20);
	if (p->tep)
		return pfail(p, -EINVAL, off, "a second tracing data section");
	p->tep = tep_alloc();
	if (!p->tep)
		return pfail(p, -ENOMEM, off, "out of memory");
	err = need(p, (size_t)size, &b, "the tracing data");
	if (!err)
		err = parse_tracing_data(p, b, (size_t)size, off);
	return err;
}

/* ---- attributes and ids ---- */

static int add_attr(struct perf_reader *p, const unsigned char *a, size_t size, uint64_t off)
{
	struct perf_attr *na, *at;

	if (size < ATTR_MIN_SIZE)
		return pfail(p, -EINVAL, off, "an event attribute of %zu bytes (at least %d)",
			     size, ATTR_MIN_SIZE);
	if (p->nr_attrs == ATTRS_MAX)
		return pfail(p, -EINVAL, off, "over %d event attributes", ATTRS_MAX);
	na = realloc(p->attrs, (p->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return pfail(p, -ENOMEM, off, "out of memory");
	p->attrs = na;
	at = &p->attrs[p->nr_attrs++];
	at->type = get32(a);
	at->config = get64(a + 8);
	at->sample_type = get64(a + 24);
	at->read_format = get64(a + 32);
	at->sample_id_all = get64(a + 40) & ATTR_SAMPLE_ID_ALL;
	return 0;
}

static int add_ids(struct perf_reader *p, const unsigned char *b, size_t n, uint64_t off)
{
	struct perf_id *ni;
	size_t i;

	if (p->nr_ids + n > IDS_MAX)
		return pfail(p, -EINVAL, off, "over %d event ids", IDS_MAX);
	ni = realloc(p->ids, (p->nr_ids + n + 1) * sizeof(*ni));
	if (!ni)
		return pfail(p, -ENOMEM, off, "out of memory");
	p->ids = ni;
	for (i = 0; i < n; i++) {
		p->ids[p->nr_ids].id = get64(b + 8 * i);
		p->ids[p->nr_ids++].attr = p->nr_attrs - 1;
	}
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct perf_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* where a sample's id is, now that all attributes are known */
static int settle_attrs(struct perf_reader *p, uint64_t off)
{
	uint64_t st, mask = S_IP | S_TID | S_TIME | S_ADDR;
	unsigned int i;
	bool all_identifier = true, all_id = true;
	int pos = -1, here;

	if (!p->nr_attrs)
		return pfail(p, -EINVAL, off, "no event attributes");
	if (p->nr_ids)		/* (qsort() wants a pointer even for nothing) */
		qsort(p->ids, p->nr_ids, sizeof(*p->ids), cmp_id);
	for (i = 0; i < p->nr_attrs; i++) {
		st = p->attrs[i].sample_type;
		all_identifier = all_identifier && (st & S_IDENTIFIER);
		all_id = all_id && (st & S_ID);
		here = __builtin_popcountll(st & mask);
		if (st & S_ID) {
			if (pos >= 0 && here != pos)
				return pfail(p, -EINVAL, off, "events disagree on where a sample's "
					     "id is: samples cannot be told apart");
			pos = here;
		}
	}
	p->identifier = all_identifier;
	p->id_pos = all_id ? pos : -1;
	/* perf numbers ids in a run: a table beats a search when they span little */
	if (p->nr_ids && p->ids[p->nr_ids - 1].id - p->ids[0].id < ID_DENSE_SPAN &&
	    p->nr_attrs < UINT16_MAX) {
		p->id_base = p->ids[0].id;
		p->id_span = p->ids[p->nr_ids - 1].id - p->id_base + 1;
		p->id_dense = calloc(p->id_span, sizeof(*p->id_dense));
		for (size_t k = 0; p->id_dense && k < p->nr_ids; k++)
			p->id_dense[p->ids[k].id - p->id_base] = (uint16_t)(p->ids[k].attr + 1);
	}
	if (p->nr_attrs > 1 && !p->identifier && p->id_pos < 0)
		return pfail(p, -EINVAL, off, "%u events but samples carry no id "
			     "(PERF_SAMPLE_ID or _IDENTIFIER)", p->nr_attrs);
	return 0;
}

static const struct perf_attr *attr_of(const struct perf_reader *p, uint64_t id)
{
	struct perf_id key = { 0 };
	const struct perf_id *found;

	if (p->id_dense) {
		uint64_t i = id - p->id_base;

		return i < p->id_span && p->id_dense[i] ? &p->attrs[p->id_dense[i] - 1] : NULL;
	}

	key.id = id;
	found = p->nr_ids ? bsearch(&key, p->ids, p->nr_ids, sizeof(*p->ids), cmp_id) : NULL;
	return found ? &p->attrs[found->attr] : NULL;
}

/* ---- the queue ---- */

/*
 * An event that would go back past more than LANE_MAX_STEPS of its CPU's
 * queued events goes to a heap instead, so that a file out of order costs
 * a logarithm per event, never a walk over the queue.  A file that never
 * ends a round (perf record does, each time it empties its buffers) would
 * queue all its events: past QUEUE_MAX, the oldest half comes out, as perf
 * script's own queue does when it is full.
 */
#define LANE_MAX_STEPS	64
#define QUEUE_MAX	(1 << 20)

static inline bool before(const struct queued *x, const struct queued *y)
{
	return x->ev.ts_ns < y->ev.ts_ns || (x->ev.ts_ns == y->ev.ts_ns && x->seq < y->seq);
}

/* the lane of CPU @cpu, made if it is new */
static struct lane *lane_of(struct perf_reader *p, unsigned int cpu)
{
	unsigned int n;
	struct lane *nl;
	unsigned int *na;

	if (cpu >= p->nr_lanes) {
		n = p->nr_lanes ? p->nr_lanes : 8;
		while (n <= cpu)
			n *= 2;
		nl = realloc(p->lanes, n * sizeof(*nl));
		if (!nl)
			return NULL;
		memset(nl + p->nr_lanes, 0, (n - p->nr_lanes) * sizeof(*nl));
		p->lanes = nl;
		p->run = NULL;		/* it pointed into the old array */
		na = realloc(p->active, n * sizeof(*na));
		if (!na)
			return NULL;
		p->active = na;
		p->nr_lanes = n;
	}
	if (!p->lanes[cpu].cap) {
		p->lanes[cpu].q = malloc(64 * sizeof(struct queued));
		if (!p->lanes[cpu].q)
			return NULL;
		p->lanes[cpu].cap = 64;
		p->active[p->nr_active++] = cpu;
	}
	return &p->lanes[cpu];
}

static int lane_grow(struct lane *l)
{
	struct queued *nq = malloc(2 * l->cap * sizeof(*nq));
	size_t i;

	if (!nq)
		return -ENOMEM;
	for (i = 0; i < l->len; i++)
		nq[i] = l->q[(l->head + i) & (l->cap - 1)];
	free(l->q);
	l->q = nq;
	l->head = 0;
	l->cap *= 2;
	return 0;
}

static int heap_push(struct perf_reader *p, const struct queued *e)
{
	struct queued *nh, t;
	size_t i, up;

	if (p->heap_len == p->heap_cap) {
		size_t cap = p->heap_cap ? 2 * p->heap_cap : 256;

		nh = realloc(p->heap, cap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		p->heap = nh;
		p->heap_cap = cap;
	}
	i = p->heap_len++;
	p->heap[i] = *e;
	while (i && before(&p->heap[i], &p->heap[up = (i - 1) / 2])) {
		t = p->heap[up];
		p->heap[up] = p->heap[i];
		p->heap[i] = t;
		i = up;
	}
	return 0;
}

static void heap_pop(struct perf_reader *p)
{
	struct queued t;
	size_t i = 0, c;

	p->heap[0] = p->heap[--p->heap_len];
	for (;;) {
		c = 2 * i + 1;
		if (c >= p->heap_len)
			break;
		if (c + 1 < p->heap_len && before(&p->heap[c + 1], &p->heap[c]))
			c++;
		if (!before(&p->heap[c], &p->heap[i]))
			break;
		t = p->heap[c];
		p->heap[c] = p->heap[i];
		p->heap[i] = t;
		i = c;
	}
}

/*
 * The slot after the last event of CPU @cpu's lane (the ring buffer its
 * events came from), for an event to be decoded into in place; @lp: the
 * lane, for lane_commit().  NULL if out of memory.
 */
static struct queued *lane_reserve(struct perf_reader *p, unsigned int cpu, struct lane **lp)
{
	struct lane *l = lane_of(p, cpu);

	if (!l || (l->len == l->cap && lane_grow(l)))
		return NULL;
	*lp = l;
	return &l->q[(l->head + l->len) & (l->cap - 1)];
}

/* the event in the slot lane_reserve() gave joins the queue, in time order */
static int lane_commit(struct perf_reader *p, struct lane *l)
{
	size_t mask = l->cap - 1, end = (l->head + l->len) & mask, i, steps, at, prev;
	struct queued *e = &l->q[end], moved;
	int64_t ts = e->ev.ts_ns;

	e->seq = p->seq++;
	p->run = NULL;		/* the merge looks again */
	/* a CPU's events come in time order: where it goes is nearly always the end */
	for (i = l->len, steps = 0; i > 0 && steps <= LANE_MAX_STEPS; i--, steps++)
		if (!before(e, &l->q[(l->head + i - 1) & mask]))
			break;
	if (steps > LANE_MAX_STEPS) {
		if (heap_push(p, e))
			return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	} else {
		if (i < l->len) {
			/* the events after its place move up one */
			moved = *e;
			at = end;
			for (size_t k = l->len; k > i; k--) {
				prev = (l->head + k - 1) & mask;
				l->q[at] = l->q[prev];
				at = prev;
			}
			l->q[(l->head + i) & mask] = moved;
		}
		l->len++;
	}
	p->queued++;
	if (p->queued > QUEUE_MAX)
		p->queued_over = true;
	if (ts > p->round_max)
		p->round_max = ts;
	if (ts < p->floor_ts)
		p->floor_ts = ts;
	return 0;
}

/* queue a copy of @ev in the lane of CPU @cpu */
static int queue_event(struct perf_reader *p, const struct trace_event *ev, unsigned int cpu)
{
	struct lane *l;
	struct queued *slot = lane_reserve(p, cpu, &l);

	if (!slot)
		return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	slot->ev = *ev;
	return lane_commit(p, l);
}

/*
 * A round ended: what was read before the last round's end may come out
 * (perf record writes nothing after a round's end that goes before it).
 */
static void flush_round(struct perf_reader *p)
{
	p->out_limit = p->flush_limit;
	p->flush_limit = p->round_max;
}

/*
 * Where the merge stands: the lane whose head comes first and the key every
 * other head (and the heap's top) comes after, so that a run of events
 * from one lane comes out without looking at the others each time.  Valid
 * until an event is queued (lane_commit(), heap_push() clear it).
 */
static void merge_scan(struct perf_reader *p)
{
	struct lane *best = NULL, *l;
	const struct queued *second = NULL, *h;
	unsigned int i;

	for (i = 0; i < p->nr_active; i++) {
		l = &p->lanes[p->active[i]];
		if (!l->len)
			continue;
		h = &l->q[l->head];
		if (!best || before(h, &best->q[best->head])) {
			if (best)
				second = &best->q[best->head];
			best = l;
		} else if (!second || before(h, second)) {
			second = h;
		}
	}
	if (p->heap_len && (!second || before(&p->heap[0], second)))
		second = &p->heap[0];
	p->run = best;
	p->run_bounded = second != NULL;
	if (second) {
		p->run_bound_ts = second->ev.ts_ns;
		p->run_bound_seq = second->seq;
	}
}

/* the next event that may come out, merged across CPUs, into @ev: 1 or 0 */
static int dequeue(struct perf_reader *p, struct trace_event *ev)
{
	const struct queued *head;
	struct lane *l;

	if (!p->queued)
		return 0;
	/* while a round is read, nothing may come out: say so without a merge */
	if (!p->queued_over && !p->out_all && p->floor_ts > p->out_limit)
		return 0;
	l = p->run;
	if (!l || !l->len ||
	    (p->run_bounded && (l->q[l->head].ev.ts_ns > p->run_bound_ts ||
				(l->q[l->head].ev.ts_ns == p->run_bound_ts &&
				 l->q[l->head].seq > p->run_bound_seq)))) {
		merge_scan(p);
		l = p->run;
	}
	head = l ? &l->q[l->head] : NULL;
	if (p->heap_len && (!head || before(&p->heap[0], head)))
		head = &p->heap[0];
	/* a queue that went over QUEUE_MAX lets its oldest half out */
	if (p->queued_over && p->queued <= QUEUE_MAX / 2)
		p->queued_over = false;
	p->floor_ts = head->ev.ts_ns;	/* the earliest: the rest come at or after it */
	if (!p->queued_over && !p->out_all && head->ev.ts_ns > p->out_limit)
		return 0;
	*ev = head->ev;
	if (p->heap_len && head == &p->heap[0]) {
		heap_pop(p);
		p->run = NULL;		/* the heap's next top is unknown */
	} else {
		l->head = (l->head + 1) & (l->cap - 1);
		l->len--;
	}
	p->queued--;
	return 1;
}

/* ---- samples and other records ---- */

struct sample {
	const struct perf_attr *attr;
	uint32_t pid;
	int64_t time;
	uint32_t cpu;
	bool has_cpu;
	const unsigned char *raw;
	uint32_t raw_size;
};

/* walk a sample's fields up to its raw data (-EINVAL if it is too short) */
static int parse_sample(const struct perf_reader *p, const unsigned char *b, size_t len,
			struct sample *s)
{
	const unsigned char *q = b, *end = b + len;
	const struct perf_attr *a;
	uint64_t st, rf, nr, id;

#define TAKE(n)	do { if ((size_t)(end - q) < (size_t)(n)) return -EINVAL; q += (n); } while (0)
	if (p->identifier) {
		if (len < 8)
			return -EINVAL;
		a = attr_of(p, get64(b));
	} else if (p->id_pos >= 0) {
		if (len < 8 * (size_t)(p->id_pos + 1))
			return -EINVAL;
		id = get64(b + 8 * p->id_pos);
		a = attr_of(p, id);
	} else {
		a = &p->attrs[0];
	}
	if (!a)
		return -ENOENT;
	s->attr = a;
	st = a->sample_type;
	if (st & S_IDENTIFIER)
		TAKE(8);
	if (st & S_IP)
		TAKE(8);
	if (st & S_TID) {
		TAKE(8);
		s->pid = get32(q - 8);
	}
	if (st & S_TIME) {
		TAKE(8);
		s->time = (int64_t)get64(q - 8);
	}
	if (st & S_ADDR)
		TAKE(8);
	if (st & S_ID)
		TAKE(8);
	if (st & S_STREAM_ID)
		TAKE(8);
	if (st & S_CPU) {
		TAKE(8);
		s->cpu = get32(q - 8);
		s->has_cpu = true;
	}
	if (st & S_PERIOD)
		TAKE(8);
	if (st & S_READ) {
		rf = a->read_format;
		if (rf & RF_GROUP) {
			TAKE(8);
			nr = get64(q - 8);
			TAKE(8 * (!!(rf & RF_ENABLED) + !!(rf & RF_RUNNING)));
			if (nr > (uint64_t)(end - q) / 8)
				return -EINVAL;
			TAKE(nr * 8 * (1 + !!(rf & RF_ID) + !!(rf & RF_LOST)));
		} else {
			TAKE(8 * (1 + !!(rf & RF_ENABLED) + !!(rf & RF_RUNNING) + !!(rf & RF_ID) +
				  !!(rf & RF_LOST)));
		}
	}
	if (st & S_CALLCHAIN) {
		TAKE(8);
		nr = get64(q - 8);
		if (nr > (uint64_t)(end - q) / 8)
			return -EINVAL;
		TAKE(nr * 8);
	}
	if (st & S_RAW) {
		TAKE(4);
		s->raw_size = get32(q - 4);
		s->raw = q;
		TAKE(s->raw_size);
	}
#undef TAKE
	return 0;
}

/*
 * The time and CPU a record other than a sample carries at its end, if its
 * attribute says sample_id_all: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER.
 */
static bool sample_id_trailer(const struct perf_reader *p, const unsigned char *b, size_t len,
			      int64_t *time, uint32_t *cpu)
{
	const struct perf_attr *a;
	const unsigned char *q = b + len;
	uint64_t st;

	if (!p->nr_attrs)
		return false;	/* pipe mode, before the attributes */
	a = &p->attrs[0];
	if (p->identifier) {
		if (len < 8)
			return false;
		a = attr_of(p, get64(b + len - 8));
		if (!a)
			return false;
	}
	if (!a->sample_id_all)
		return false;
	st = a->sample_type;
	if ((size_t)(__builtin_popcountll(st & (S_TID | S_TIME | S_ID | S_STREAM_ID | S_CPU |
						 S_IDENTIFIER))) * 8 > len)
		return false;
	if (st & S_IDENTIFIER)
		q -= 8;
	if (!(st & S_CPU) || !(st & S_TIME))
		return false;
	q -= 8;
	*cpu = get32(q);
	if (st & S_STREAM_ID)
		q -= 8;
	if (st & S_ID)
		q -= 8;
	q -= 8;
	*time = (int64_t)get64(q);
	return true;
}

static int on_sample(struct perf_reader *p, const unsigned char *b, size_t len, uint64_t off)
{
	static const struct trace_event none = { .pid = -1 };
	struct sample s = { 0 };
	struct trace_event *ev;
	struct queued *slot;
	struct lane *lane;
	char why[200];
	bool fn_addr;
	int ret;

	ret = parse_sample(p, b, len, &s);
	if (ret == -ENOENT)
		return pfail(p, -EINVAL, off, "a sample of an id no event attribute has");
	if (ret)
		return pfail(p, -EINVAL, off, "a sample too short for the fields its event "
			     "says it has (%zu bytes)", len);
	if (s.attr->type != PERF_TYPE_TRACEPOINT || !s.raw)
		return 0;
	if (!(s.attr->sample_type & S_TIME) || !s.has_cpu || s.time < 0 ||
	    s.cpu >= TRACE_MAX_CPUS) {
		if (tp_decoder_event_id(p->dec, s.raw, s.raw_size) < 0)
			return 0;	/* not ours: its time and CPU need not be there */
		if (!(s.attr->sample_type & S_TIME))
			return pfail(p, -EINVAL, off, "samples have no time stamp (perf record "
				     "-T, or any recording with more than one event, has them)");
		if (!s.has_cpu)
			return pfail(p, -EINVAL, off, "samples do not say their CPU (record "
				     "with -a, or --sample-cpu)");
		if (s.time < 0)
			return pfail(p, -ERANGE, off, "time stamp %llu out of range",
				     (unsigned long long)s.time);
		return pfail(p, -ERANGE, off, "CPU %u out of range", s.cpu);
	}
	if (p->in_prescan) {
		/* the tick's vote reads hrtimer and tick_stop events only */
		int id = tp_decoder_event_id(p->dec, s.raw, s.raw_size);

		if (id != EV_HRTIMER_START && id != EV_HRTIMER_EXPIRE &&
		    id != EV_HRTIMER_CANCEL && id != EV_TICK_STOP)
			return 0;
	}
	/* decoded in place, at the end of its CPU's lane */
	slot = lane_reserve(p, s.cpu, &lane);
	if (!slot)
		return trace_fail(p->r, -ENOMEM, 0, "out of memory");
	ev = &slot->ev;
	*ev = none;
	ev->ts_ns = s.time;
	ev->cpu = s.cpu;
	ev->line = off;
	ev->pid = (int32_t)s.pid < 0 ? -1 : (int)s.pid;
	ret = tp_decode(p->dec, s.raw, s.raw_size, ev, &fn_addr, why, sizeof(why));
	if (ret < 0)
		return pfail(p, ret, off, "%s", why);
	if (!ret)
		return 0;
	return lane_commit(p, lane);
}

static int on_lost(struct perf_reader *p, const unsigned char *b, size_t len, uint64_t off,
		   uint64_t lost)
{
	static const struct trace_event none = { .pid = -1 };
	struct trace_event ev = none;
	int64_t time;
	uint32_t cpu;

	if (!sample_id_trailer(p, b, len, &time, &cpu) || cpu >= TRACE_MAX_CPUS || time < 0)
		return 0;	/* lost events of no known CPU: nothing to say */
	ev.type = TEV_LOST;
	ev.cpu = cpu;
	ev.ts_ns = time;
	ev.line = off;
	ev.value = lost > INT64_MAX ? INT64_MAX : (int64_t)lost;
	return queue_event(p, &ev, cpu);
}

static int on_record(struct perf_reader *p, uint32_t type, const unsigned char *b, size_t len,
		     uint64_t off, bool nested);

/*
 * A compressed record: its zstd data, decompressed, is more records, the
 * last of which may go on in the next compressed record.
 */
static int on_compressed(struct perf_reader *p, const unsigned char *data, size_t len,
			 uint64_t off)
{
	ZSTD_inBuffer in = { .src = data, .size = len, .pos = 0 };
	ZSTD_outBuffer out;
	unsigned char *nb;
	size_t ret, rl, before;
	uint16_t size;
	int err;

	if (!p->zd) {
		p->zd = ZSTD_createDStream();
		if (!p->zd || ZSTD_isError(ZSTD_initDStream(p->zd)))
			return pfail(p, -ENOMEM, off, "cannot start the zstd decoder");
	}
	/* keep what is left of the last one's records at the front */
	if (p->dz_pos) {
		memmove(p->dz, p->dz + p->dz_pos, p->dz_len - p->dz_pos);
		p->dz_len -= p->dz_pos;
		p->dz_pos = 0;
	}
	while (in.pos < in.size) {
		if (p->dz_len == p->dz_cap) {
			if (p->dz_cap >= DECOMP_MAX)
				return pfail(p, -EINVAL, off, "a compressed record decompresses to "
					     "over %u MiB (corrupt, or a zstd bomb)", DECOMP_MAX >> 20);
			nb = realloc(p->dz, p->dz_cap ? 2 * p->dz_cap : 1 << 20);
			if (!nb)
				return pfail(p, -ENOMEM, off, "out of memory");
			p->dz = nb;
			p->dz_cap = p->dz_cap ? 2 * p->dz_cap : 1 << 20;
		}
		out.dst = p->dz;
		out.size = p->dz_cap;
		out.pos = p->dz_len;
		before = in.pos;
		ret = ZSTD_decompressStream(p->zd, &out, &in);
		if (ZSTD_isError(ret))
			return pfail(p, -EINVAL, off, "corrupt compressed record (zstd: %s)",
				     ZSTD_getErrorName(ret));
		if (out.pos == p->dz_len && in.pos == before)
			break;	/* no progress: the rest is in the next record */
		p->dz_len = out.pos;
	}
	p->dz_offset = off;
	/* the whole records it holds */
	while (p->dz_len - p->dz_pos >= 8) {
		size = get16(p->dz + p->dz_pos + 6);
		if (size < 8)
			return pfail(p, -EINVAL, off, "a record of %u bytes in a compressed record "
				     "(corrupt)", size);
		rl = size;
		if (p->dz_len - p->dz_pos < rl)
			break;
		err = on_record(p, get32(p->dz + p->dz_pos), p->dz + p->dz_pos + 8, rl - 8, off,
				true);
		if (err)
			return err;
		p->dz_pos += rl;
	}
	return 0;
}

/*
 * One record of type @type, its body (what follows its 8-byte header)
 * @len bytes at @b, at @off.  @nested: it came out of a compressed record.
 */
static int on_record(struct perf_reader *p, uint32_t type, const unsigned char *b, size_t len,
		     uint64_t off, bool nested)
{
	switch (type) {
	case REC_SAMPLE:
		return p->dec ? on_sample(p, b, len, off) : 0;
	case REC_LOST:
		if (len < 16)
			return 0;
		return on_lost(p, b + 16, len - 16, off, get64(b + 8));
	case REC_LOST_SAMPLES:
		if (len < 8)
			return 0;
		return on_lost(p, b + 8, len - 8, off, get64(b));
	case REC_FINISHED_ROUND:
		flush_round(p);
		return 0;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (nested)
			return pfail(p, -EINVAL, off, "a compressed record inside another");
		if (type == REC_COMPRESSED2) {
			uint64_t n = len >= 8 ? get64(b) : UINT64_MAX;

			if (n > len - 8)
				return pfail(p, -EINVAL, off, "a compressed record's data size is "
					     "beyond the record");
			return on_compressed(p, b + 8, (size_t)n, off);
		}
		return on_compressed(p, b, len, off);
	default:
		return 0;
	}
}

/* ---- reading the data ---- */

/*
 * The next record of the data section (or the pipe): its type, its body
 * (@len bytes at @b, after its 8-byte header) and its offset.  Records of
 * pipe mode's header (attributes, tracing data) are taken here.  Return:
 * 1, 0 at the data's end, or the error.
 */
static int next_record(struct perf_reader *p, uint32_t *type, const unsigned char **b,
		       size_t *len, uint64_t *off)
{
	const unsigned char *h;
	uint64_t here;
	uint16_t size;
	ssize_t got;
	int err;

	for (;;) {
		here = trace_src_offset(p->src);
		if (here >= p->data_end)
			return 0;
		/* the usual case: a whole sample or round in the buffer, taken in place */
		if (!p->pipe && p->src->out_len - p->src->out_pos >= 8) {
			const unsigned char *q = (const unsigned char *)p->src->out + p->src->out_pos;

			*type = get32(q);
			size = get16(q + 6);
			if ((*type == REC_SAMPLE || *type == REC_FINISHED_ROUND) && size >= 8 &&
			    p->src->out_len - p->src->out_pos >= size &&
			    p->data_end - here >= size) {
				p->src->out_pos += size;
				*b = q + 8;
				*len = size - 8u;
				*off = here;
				return 1;
			}
		}
		if (p->data_end - here < 8)
			return pfail(p, -EINVAL, here, "the data section ends inside a record "
				     "header (its size in the file header is wrong)");
		got = trace_src_bytes(p->src, 8, &h);
		if (got < 0)
			return trace_src_fail(p->r, (int)got);
		if (!got && p->pipe)
			return 0;
		if (got < 8)
			return pfail(p, -EINVAL, here, "the file ends inside a record header "
				     "(truncated)");
		*type = get32(h);
		size = get16(h + 6);
		if (size < 8)
			return pfail(p, -EINVAL, here, "a record of %u bytes, less than its own "
				     "header (corrupt)", size);
		if (p->data_end - here < size)
			return pfail(p, -EINVAL, here, "a record of %u bytes goes past the data "
				     "section's end", size);
		err = need(p, size - 8u, b, "a record");
		if (err)
			return err;
		*len = size - 8u;
		*off = here;
		if (*type == REC_AUXTRACE) {
			/* its trace data follows it, outside its size */
			uint64_t extra = *len >= 8 ? get64(*b) : 0;

			if (extra > UINT64_MAX - here - size)
				return pfail(p, -EINVAL, here, "an AUXTRACE record of %llu bytes",
					     (unsigned long long)extra);
			err = skip_to(p, here + size + extra, "the end of an AUXTRACE record's data");
			if (err)
				return err;
			continue;
		}
		if (!p->pipe)
			return 1;
		if (*type == REC_HEADER_ATTR) {
			uint32_t asize;

			if (*len < 8)
				return pfail(p, -EINVAL, here, "an attribute record of %u bytes", size);
			asize = get32(*b + 4);
			if (!asize)
				asize = ATTR_VER0_SIZE;
			if (asize > *len)
				return pfail(p, -EINVAL, here, "an attribute of %u bytes in a record "
					     "of %u", asize, size);
			err = add_attr(p, *b, asize, here);
			if (!err)
				err = add_ids(p, *b + asize, (*len - asize) / 8, here);
			if (err)
				return err;
			continue;
		}
		if (*type == REC_HEADER_TRACING_DATA) {
			if (*len < 4)
				return pfail(p, -EINVAL, here, "a tracing data record of %u bytes",
					     size);
			err = read_tracing_data(p, get32(*b));
			if (err)
				return err;
			continue;
		}
		return 1;
	}
}

/* the events are known: the decoder, once the attributes and formats are in */
static int start_decoding(struct perf_reader *p, uint64_t off)
{
	char why[300];
	int err;

	if (p->dec)
		return 0;
	err = settle_attrs(p, off);
	if (err)
		return err;
	if (!p->tep)
		return pfail(p, -EINVAL, off, "no tracing data: the file holds no tracepoint "
			     "formats (was it recorded with -e power:cpu_idle?)");
	p->dec = calloc(1, sizeof(*p->dec));
	if (!p->dec)
		return pfail(p, -ENOMEM, off, "out of memory");
	err = tp_decoder_init(p->dec, p->tep, "the tracing data", why, sizeof(why));
	if (err)
		return pfail(p, err, off, "%s", why);
	if (tp_decoder_strings(p->dec, p->printk ? p->printk : ""))
		return pfail(p, -ENOMEM, off, "out of memory");
	if (!p->dec->nr)
		return pfail(p, -EINVAL, off, "none of the events the lab reads was recorded "
			     "(power:cpu_idle and the others: see cpuidle-record(1))");
	return 0;
}

static int next_event(struct perf_reader *p, struct trace_event *ev);

/* the queue and the compressed records' state, as at the data's start */
static void reset_data(struct perf_reader *p)
{
	for (unsigned int i = 0; i < p->nr_active; i++)
		p->lanes[p->active[i]].len = 0;
	p->heap_len = 0;
	p->run = NULL;
	p->queued = 0;
	p->queued_over = false;
	p->seq = 0;
	p->round_max = p->flush_limit = p->out_limit = p->floor_ts = INT64_MIN;
	p->out_all = p->eof = false;
	p->dz_len = p->dz_pos = 0;
	if (p->zd)
		ZSTD_initDStream(p->zd);
}

/*
 * File mode, before the data: the tick's function, by a vote over the
 * events in time order, read until it cannot change (usually within the
 * first second of the recording) or to the end.
 */
static int prescan_tick(struct perf_reader *p)
{
	struct trace_event ev;
	uint64_t fn = 0;
	bool done = false;
	int ret;

	p->in_prescan = true;
	while (!done && (ret = next_event(p, &ev)) > 0) {
		tp_tick_vote_feed(&p->vote, &ev);
		tp_tick_vote_result(&p->vote, &fn, &done);
	}
	p->in_prescan = false;
	if (ret < 0)
		return ret;
	p->dec->tick_fn_known = tp_tick_vote_result(&p->vote, &fn, &done);
	p->dec->tick_fn = fn;
	reset_data(p);
	return 0;
}

/* do the hrtimer events' functions need naming by a vote? */
static bool needs_vote(const struct perf_reader *p)
{
	int i;

	for (i = 0; i < p->dec->nr; i++) {
		if (p->dec->events[i].id == EV_HRTIMER_START ||
		    p->dec->events[i].id == EV_HRTIMER_EXPIRE)
			return true;
	}
	return false;
}

/* file mode: header, attributes, features, then to the data */
static int open_file_mode(struct perf_reader *p, const unsigned char *hdr)
{
	uint64_t attr_size, attrs_off, attrs_size, feat_off, n, i, bit, sec_off, sec_size;
	uint64_t tracing_off = 0, tracing_size = 0;
	const unsigned char *b;
	unsigned int nfeat = 0;
	int err;

	attr_size = get64(hdr + 16);
	attrs_off = get64(hdr + 24);
	attrs_size = get64(hdr + 32);
	p->data_off = get64(hdr + 40);
	p->data_end = p->data_off + get64(hdr + 48);
	memcpy(p->feat_bits, hdr + 72, sizeof(p->feat_bits));
	if (p->data_end < p->data_off)
		return pfail(p, -EINVAL, 40, "the data section's size overflows");
	if (p->data_end == p->data_off)
		return pfail(p, -EINVAL, 48, "the header says the data section is empty "
			     "(perf record did not finish writing the file?)");
	if (attr_size < ATTR_MIN_SIZE + 16 || attr_size > ATTR_MAX_SIZE + 16)
		return pfail(p, -EINVAL, 16, "event attributes of %llu bytes (a perf.data "
			     "file's are %d to %d)", (unsigned long long)attr_size,
			     ATTR_MIN_SIZE + 16, ATTR_MAX_SIZE + 16);
	n = attrs_size / attr_size;
	if (attrs_size % attr_size || !n || n > ATTRS_MAX)
		return pfail(p, -EINVAL, 32, "an attribute section of %llu bytes for attributes "
			     "of %llu", (unsigned long long)attrs_size,
			     (unsigned long long)attr_size);

	/* the attributes, then each one's ids (usually between header and attrs) */
	err = skip_to(p, attrs_off, "the event attributes");
	if (err)
		return err;
	{
		uint64_t (*ids)[2] = calloc(n, sizeof(*ids));

		if (!ids)
			return pfail(p, -ENOMEM, 0, "out of memory");
		for (i = 0; i < n && !err; i++) {
			uint64_t at = trace_src_offset(p->src);

			err = need(p, (size_t)attr_size, &b, "the event attributes");
			if (!err)
				err = add_attr(p, b, (size_t)attr_size - 16, at);
			if (!err) {
				ids[i][0] = get64(b + attr_size - 16);
				ids[i][1] = get64(b + attr_size - 8);
			}
		}
		/* ids: read where they are, in file order if they follow the attrs */
		for (i = 0; i < n && !err; i++) {
			if (ids[i][1] % 8 || ids[i][1] / 8 > IDS_MAX) {
				err = pfail(p, -EINVAL, attrs_off + i * attr_size, "an id section "
					    "of %llu bytes", (unsigned long long)ids[i][1]);
				break;
			}
			if (!ids[i][1])
				continue;
			if (ids[i][0] < trace_src_offset(p->src))
				err = rewind_src(p);
			if (!err)
				err = skip_to(p, ids[i][0], "an event's ids");
			if (!err)
				err = need(p, (size_t)ids[i][1], &b, "an event's ids");
			if (!err) {
				p->nr_attrs = (unsigned int)i + 1;	/* ids go to attr i */
				err = add_ids(p, b, ids[i][1] / 8, ids[i][0]);
				p->nr_attrs = (unsigned int)n;
			}
		}
		free(ids);
		if (err)
			return err;
	}

	/* the features: one section each, after the data, in bit order */
	for (bit = 0; bit < FEAT_BITS; bit++)
		nfeat += (p->feat_bits[bit / 64] >> (bit % 64)) & 1;
	feat_off = p->data_end;
	if (!((p->feat_bits[0] >> FEAT_TRACING_DATA) & 1))
		return pfail(p, -EINVAL, 72, "no tracing data: the file holds no tracepoint "
			     "formats (was it recorded with -e power:cpu_idle?)");
	if (trace_src_offset(p->src) > feat_off) {
		err = rewind_src(p);
		if (err)
			return err;
	}
	err = skip_to(p, feat_off, "the feature sections");
	if (err)
		return err;
	err = need(p, (size_t)nfeat * 16, &b, "the feature sections' index");
	if (err)
		return err;
	/* HEADER_TRACING_DATA is bit 1, the first one there can be */
	tracing_off = get64(b + 16 * ((p->feat_bits[0] & 1) ? 1 : 0));
	tracing_size = get64(b + 16 * ((p->feat_bits[0] & 1) ? 1 : 0) + 8);
	sec_off = tracing_off;
	sec_size = tracing_size;
	if (sec_off < trace_src_offset(p->src)) {
		err = rewind_src(p);
		if (err)
			return err;
	}
	err = skip_to(p, sec_off, "the tracing data");
	if (!err)
		err = read_tracing_data(p, sec_size);
	if (!err)
		err = start_decoding(p, sec_off);
	if (err)
		return err;

	/* back to the data */
	err = rewind_src(p);
	if (!err)
		err = skip_to(p, p->data_off, "the data");
	if (err)
		return err;
	/* the vote, over the first events, when they are first asked for */
	p->prescan = needs_vote(p);
	return 0;
}

/**
 * trace_perf_open() - read a perf.data file's header (the magic is checked)
 * @r: the reader, its source at the file's first byte
 *
 * Return: 0, or a negative errno with the reader's message set.
 */
int trace_perf_open(struct trace_reader *r)
{
	struct perf_reader *p;
	const unsigned char *hdr;
	uint64_t size;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return trace_fail(r, -ENOMEM, 0, "out of memory");
	r->perf = p;
	p->r = r;
	p->src = &r->src;
	p->id_pos = -1;
	p->round_max = INT64_MIN;
	p->flush_limit = INT64_MIN;
	p->out_limit = INT64_MIN;
	p->floor_ts = INT64_MIN;
	p->vote.nr_cpus = TRACE_MAX_CPUS;
	p->vote.cpu = calloc(TRACE_MAX_CPUS, sizeof(*p->vote.cpu));
	if (!p->vote.cpu)
		return trace_fail(r, -ENOMEM, 0, "out of memory");

	err = need(p, PIPE_HEADER_SIZE, &hdr, "the file header");
	if (err)
		return err;
	if (!memcmp(hdr, magic_be, sizeof(magic_be)))
		return trace_fail(r, -EINVAL, 0, "a perf.data file written on a big-endian "
				  "machine: not read here yet (convert it there with perf script "
				  "-F comm,pid,cpu,time,event,trace --ns)");
	if (memcmp(hdr, magic_le, sizeof(magic_le)))
		return trace_fail(r, -EINVAL, 0, "not a perf.data file");
	size = get64(hdr + 8);
	if (size == PIPE_HEADER_SIZE) {
		p->pipe = true;
		p->data_end = UINT64_MAX;
		return 0;	/* attributes and formats come as records */
	}
	if (size < FILE_HEADER_SIZE)
		return pfail(p, -EINVAL, 8, "a file header of %llu bytes (a perf.data file's is "
			     "%d, or %d in pipe mode)", (unsigned long long)size, FILE_HEADER_SIZE,
			     PIPE_HEADER_SIZE);
	{
		unsigned char full[FILE_HEADER_SIZE];

		memcpy(full, hdr, PIPE_HEADER_SIZE);
		err = need(p, FILE_HEADER_SIZE - PIPE_HEADER_SIZE, &hdr, "the file header");
		if (err)
			return err;
		memcpy(full + PIPE_HEADER_SIZE, hdr, FILE_HEADER_SIZE - PIPE_HEADER_SIZE);
		return open_file_mode(p, full);
	}
}

/* the next event in time order (the tick's flag as decoded): 1, 0 or the error */
static int next_event(struct perf_reader *p, struct trace_event *ev)
{
	const unsigned char *b = NULL;
	uint32_t type = 0;
	uint64_t off = 0;
	size_t len = 0;
	int ret;

	for (;;) {
		if (dequeue(p, ev))
			return 1;
		if (p->eof)
			return 0;
		ret = next_record(p, &type, &b, &len, &off);
		if (ret < 0)
			return ret;
		if (!ret) {
			if (p->dz_len > p->dz_pos)
				return pfail(p, -EINVAL, p->dz_offset, "the compressed records end "
					     "inside a record (truncated)");
			p->eof = true;
			p->out_all = true;
			continue;
		}
		if (!p->dec && (type == REC_SAMPLE || type == REC_COMPRESSED ||
				type == REC_COMPRESSED2)) {
			/* pipe mode: attributes and formats came before the first sample */
			ret = start_decoding(p, off);
			if (ret)
				return ret;
			p->voting = needs_vote(p);
		}
		ret = on_record(p, type, b, len, off, false);
		if (ret)
			return ret;
	}
}

/**
 * trace_perf_next() - trace_next() for a perf.data file
 *
 * An hrtimer event is the tick's if its function is the one the vote
 * found: over the data first in file mode (prescan_tick()), as the events
 * come in pipe mode, where those before the vote is settled are not
 * known to be the tick's.
 */
int trace_perf_next(struct trace_reader *r, struct trace_event *ev)
{
	struct perf_reader *p = r->perf;
	uint64_t fn;
	bool done;
	int ret;

	if (p->prescan) {
		/* file mode: the tick's vote first, then the data from its start */
		p->prescan = false;
		ret = prescan_tick(p);
		if (!ret)
			ret = rewind_src(p);
		if (!ret)
			ret = skip_to(p, p->data_off, "the data");
		if (ret)
			return ret;
	}
	ret = next_event(p, ev);
	if (ret <= 0)
		return ret;
	if (p->voting) {
		tp_tick_vote_feed(&p->vote, ev);
		if (tp_tick_vote_result(&p->vote, &fn, &done)) {
			p->dec->tick_fn = fn;
			p->dec->tick_fn_known = true;
			p->voting = false;
		}
	}
	if ((ev->type == TEV_HRTIMER_START || ev->type == TEV_HRTIMER_EXPIRE) &&
	    p->dec->tick_fn_known)
		ev->tick = ev->function == p->dec->tick_fn;
	return 1;
}

void trace_perf_close(struct trace_reader *r)
{
	struct perf_reader *p = r->perf;

	if (!p)
		return;
	if (p->tep)
		tep_free(p->tep);
	ZSTD_freeDStream(p->zd);
	if (p->dec)
		tp_decoder_free(p->dec);
	free(p->dec);
	free(p->printk);
	free(p->vote.cpu);
	free(p->attrs);
	free(p->ids);
	free(p->id_dense);
	free(p->dz);
	for (unsigned int i = 0; i < p->nr_active; i++)
		free(p->lanes[p->active[i]].q);
	free(p->lanes);
	free(p->active);
	free(p->heap);
	free(p);
	r->perf = NULL;
}
