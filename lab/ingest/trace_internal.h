/* SPDX-License-Identifier: MIT */
/*
 * trace_internal.h - the parts of the trace reader, one job each:
 *
 *   trace_read.c      bytes to lines: the file, xz, gzip and zstd
 *                     decompression, lines of any length up to TRACE_LINE_MAX
 *   codec_libs.c      liblzma and libzstd, loaded by the first file that
 *                     needs them (lazy_lib.c: libraries loaded on first use)
 *   trace_line.c      one line to its header: CPU, timestamp, event name,
 *                     payload (perf and ftrace lines alike)
 *   trace_event.c     an event's name and payload to a struct trace_event
 *   trace_idlestat.c  idlestat's header (CPUs, state names)
 *   trace.c           the public API: open, format detection, the event loop
 *
 * Errors (trace_next() and trace_open() return them, negated):
 *   EINVAL   empty file, not a known format, a line naming one of our events
 *            that does not parse (the file's last line, if it has no '\n',
 *            is said to be truncated), a NUL byte, a line over
 *            TRACE_LINE_MAX, a line of the other format (perf in ftrace or
 *            the reverse), a malformed idlestat header
 *   ERANGE   a number out of range: a timestamp over INT64_MAX ns, a negative
 *            CPU or one >= TRACE_MAX_CPUS (a lost-events marker's too), a
 *            state >= TRACE_MAX_STATES, a field too large for its type
 *   EBADMSG  a corrupt or truncated xz or gzip stream
 *   ELIBACC  the library a file needs (liblzma, libzstd, libtracecmd)
 *            cannot be loaded
 *   ENOMEM   out of memory (or an xz stream that needs over XZ_MEMLIMIT)
 *   other    what open(2), fstat(2) or read(2) said (ENOENT, EISDIR, ...)
 */
#ifndef LAB_TRACE_INTERNAL_H
#define LAB_TRACE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "trace.h"

/* Longest line accepted, '\n' excluded: longer is an error, never a cut. */
#define TRACE_LINE_MAX		(64 * 1024)

/*
 * ---- scanning text, eight bytes at a time ----
 *
 * Lines are NUL-terminated and their end is known, so a word is read only
 * when it lies wholly before the end; the last bytes go one by one.  The
 * word tricks need a little-endian machine and GCC's builtins; elsewhere
 * the byte loops do all the work.
 */

#ifndef TRACE_SWAR
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRACE_SWAR	1
#else
#define TRACE_SWAR	0
#endif
#endif

#define W_ONES		0x0101010101010101ULL
#define W_HIGH		0x8080808080808080ULL

static inline bool trace_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool trace_is_space(char c)
{
	return c == ' ' || c == '\t';
}

static inline uint64_t trace_load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* 0x80 in each byte of @w equal to @c, exactly */
static inline uint64_t trace_bytes_eq(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (W_ONES * c);

	return ~(((x & ~W_HIGH) + ~W_HIGH) | x) & W_HIGH;
}

/* a bit set in each byte of @w that is not a decimal digit, none in digits */
static inline uint64_t trace_nondigits(uint64_t w)
{
	return ((w & 0xf0f0f0f0f0f0f0f0ULL) ^ 0x3030303030303030ULL) |
	       (((w & 0x0f0f0f0f0f0f0f0fULL) + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL);
}

/* the index of the first byte flagged in @m (not 0) */
static inline unsigned int trace_first_byte(uint64_t m)
{
	return (unsigned int)__builtin_ctzll(m) >> 3;
}

/* the value of the first @n (1 to 8) bytes of @w, all digits */
static inline uint64_t trace_digits8(uint64_t w, unsigned int n)
{
	w = (w - 0x3030303030303030ULL) << (8 * (8 - n));
	w = w * 10 + (w >> 8);
	return (((w & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32))) +
		(((w >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32)))) >> 32;
}

/**
 * trace_digits() - the run of decimal digits at @p, none past @end
 * @v: set to their value, modulo 2^64 (exact up to 19 digits)
 *
 * The first eight bytes are looked at as one word, the rest one by one:
 * numbers in traces are short, or a timestamp's 6 to 9 decimals.
 *
 * Return: where the digits end (@p if there is none).
 */
static inline const char *trace_digits(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0, w, m;
	unsigned int n;

	if (TRACE_SWAR && end - p >= 8) {
		w = trace_load8(p);
		m = trace_nondigits(w);
		if (m) {
			n = trace_first_byte(m);
			*v = n ? trace_digits8(w, n) : 0;
			return p + n;
		}
		x = trace_digits8(w, 8);
		p += 8;
	}
	for (; p < end && trace_is_digit(*p); p++)
		x = x * 10 + (unsigned int)(*p - '0');
	*v = x;
	return p;
}

/* the first space or tab at or after @p, or @end */
static inline const char *trace_token_end(const char *p, const char *end)
{
	uint64_t w, m;

	if (TRACE_SWAR) {
		for (; end - p >= 8; p += 8) {
			w = trace_load8(p);
			m = trace_bytes_eq(w, ' ') | trace_bytes_eq(w, '\t');
			if (m)
				return p + trace_first_byte(m);
		}
	}
	while (p < end && !trace_is_space(*p))
		p++;
	return p;
}

/* the first byte at or after @p that is neither space nor tab, or @end */
static inline const char *trace_skip_spaces(const char *p, const char *end)
{
	const char *stop = end - p > 3 ? p + 3 : end;
	uint64_t w, m;

	/* most runs are a space or two; perf pads event names with more */
	for (; p < stop; p++) {
		if (!trace_is_space(*p))
			return p;
	}
	if (TRACE_SWAR) {
		for (; end - p >= 8; p += 8) {
			w = trace_load8(p);
			m = ~(trace_bytes_eq(w, ' ') | trace_bytes_eq(w, '\t')) & W_HIGH;
			if (m)
				return p + trace_first_byte(m);
		}
	}
	while (p < end && trace_is_space(*p))
		p++;
	return p;
}

/* ---- trace_read.c: a file as lines ---- */

enum trace_src_kind {
	SRC_PLAIN,
	SRC_XZ,
	SRC_GZ,
	SRC_ZSTD,
};

/**
 * struct trace_fill - one fill of a buffer with decompressed bytes
 * @buf: the buffer
 * @len: bytes in it
 * @nul: the offset of its first NUL, or @len
 * @end: no more bytes will come after these
 * @consumed: file bytes consumed once these came out (for progress)
 * @msg: what went wrong, if the fill failed
 */
struct trace_fill {
	char *buf;
	size_t len;
	size_t nul;
	bool end;
	uint64_t consumed;
	char msg[160];
};

/**
 * struct trace_map - a plain file read through a window mapped on it
 * (trace_map.c): @len bytes of its @size at @base (0: none), from the
 * file's byte trace_src.out_base; read(2)'s buffer kept aside; @cut set
 * by the SIGBUS handler when the file shrank under the window
 */
struct trace_map {
	uint64_t size;
	char *base;
	size_t len;
	uintptr_t page;
	char *heap_out;
	volatile sig_atomic_t cut;
	struct trace_map *next;		/* the thread's other mapped sources */
};

/**
 * struct trace_src - a file read as lines, decompressed on the fly
 * @out: decompressed bytes; a line wholly inside is returned in place
 * @line: a line that straddles two @out fills, gathered here
 * @lineno: the number of the last line returned (1-based)
 * @msg: what went wrong, without file or line
 */
struct trace_src {
	int fd;
	bool close_fd;
	enum trace_src_kind kind;
	bool in_eof;		/* read(2) said end of file */
	bool src_end;		/* the decoder said end of stream */
	bool out_end;		/* no more decompressed bytes will come */
	bool xz_init;
	bool gz_init;
	lzma_stream xz;
	z_stream gz;
	ZSTD_DStream *zs;
	const struct xz_lib *xzl;	/* the libraries, once loaded (codec_libs.h) */
	const struct gz_lib *gzl;
	const struct zstd_lib *zsl;
	ZSTD_inBuffer zs_in;
	bool zs_frame_open;	/* inside a zstd frame: its end is still to come */
	unsigned char *in;
	char *out;
	size_t out_pos;
	size_t out_len;
	size_t out_nul;		/* offset of the first NUL in @out, or @out_len */
	uint64_t consumed;	/* file bytes consumed once @out was filled */
	uint64_t out_base;	/* offset in the decompressed file of out[0] */
	char *line;
	size_t line_len;
	size_t line_cap;
	uint64_t bytes_in;
	uint64_t lineno;
	bool unterminated;	/* line @lineno is the last, and has no '\n' */
	char msg[160];
	struct trace_fill fill;
	struct trace_map *map;	/* read through a mapped window (trace_src_map()) */
};

int trace_src_open(struct trace_src *s, const char *path);
int trace_src_line_slow(struct trace_src *s, char **line, size_t *len);

static inline void trace_src_done(struct trace_src *s, char *line, size_t len, char **out,
				  size_t *outlen)
{
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	s->lineno++;
	*out = line;
	*outlen = len;
}

/**
 * trace_src_line() - the next line, NUL-terminated, without its '\n'
 * @s: the source
 * @line: set to the line; valid until the next call
 * @len: set to its length
 *
 * Inline for the common case, a whole line in the buffer before any NUL;
 * the rest is trace_src_line_slow()'s.
 *
 * Return: 1 with a line, 0 at the end of the file, or a negative errno
 * with s->msg saying why (the line it concerns is s->lineno + 1).
 */
static inline int trace_src_line(struct trace_src *s, char **line, size_t *len)
{
	char *start = s->out + s->out_pos, *nl;
	size_t n;

	nl = memchr(start, '\n', s->out_len - s->out_pos);
	if (!nl)
		return trace_src_line_slow(s, line, len);
	n = (size_t)(nl - start);
	if (s->out_pos + n > s->out_nul || n > TRACE_LINE_MAX)
		return trace_src_line_slow(s, line, len);
	*nl = '\0';
	s->out_pos += n + 1;
	trace_src_done(s, start, n, line, len);
	return 1;
}

uint64_t trace_src_consumed(const struct trace_src *s);
void trace_src_close(struct trace_src *s);

/*
 * The same file as bytes, for the binary formats: the first bytes without
 * taking them, exactly @n bytes, @n bytes skipped, and a rewind (the file
 * read again from its start, decompressed again: a seekable file only).
 * Offsets are in the decompressed file.
 */
#define TRACE_PEEK_MAX	512	/* the bytes looked at to tell a binary file */
#define TRACE_MAGIC_MAX	16	/* the longest magic */

ssize_t trace_src_peek(struct trace_src *s, size_t n, const unsigned char **p);
ssize_t trace_src_bytes(struct trace_src *s, size_t n, const unsigned char **p);
int64_t trace_src_skip(struct trace_src *s, uint64_t n);
int trace_src_rewind(struct trace_src *s);
bool trace_src_seekable(const struct trace_src *s);

/* trace_map.c: a plain file's bytes through a mapped window, not read(2) */
void trace_src_map(struct trace_src *s);
int trace_map_next(struct trace_src *s);
int64_t trace_map_skip(struct trace_src *s, uint64_t n);
int trace_map_rewind(struct trace_src *s);
void trace_map_close(struct trace_src *s);
bool trace_map_shrank(const struct trace_src *s);

/* did the file shrink under its mapped window? (its reads past there gave zeros) */
static inline bool trace_src_cut(const struct trace_src *s)
{
	return s->map && s->map->cut;
}

static inline uint64_t trace_src_offset(const struct trace_src *s)
{
	return s->out_base + s->out_pos;
}

/* ---- trace_line.c: the header of one line ---- */

enum trace_line_style {
	LINE_NONE,	/* not an event line */
	LINE_PERF,	/* COMM PID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD (PID may be <0) */
	LINE_FTRACE,	/* COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: PAYLOAD */
	LINE_EITHER,	/* COMM-PID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD, no FLAGS */
};

/**
 * struct trace_head - the fixed fields of an event line
 * @cpu: the CPU number, an optional '-' and digits, @cpu_len long
 * @cpu_nr: its value, if @cpu_err is 0
 * @cpu_err: 0, or -ERANGE if negative or >= TRACE_MAX_CPUS
 * @flags: ftrace's FLAGS column, @flags_len long, or NULL
 * @ts: "SECS.FRAC", @ts_len long, with @sec_len digits before the '.'
 * @ts_ns: its value in ns, if @ts_err is 0
 * @ts_err: 0, or -ERANGE past INT64_MAX ns
 * @event: the event name ("group:name" or "name"), @event_len long
 * @id: trace_event_lookup() of it (trace_split_event() only)
 * @payload: the rest of the line, to @end
 * @end: the line's end, its NUL
 *
 * The numbers are read while the header is matched, so the line is
 * walked once; whether their errors matter depends on the event.
 */
struct trace_head {
	enum trace_line_style style;
	const char *cpu;
	size_t cpu_len;
	unsigned int cpu_nr;
	int cpu_err;
	const char *flags;
	size_t flags_len;
	const char *ts;
	size_t ts_len;
	size_t sec_len;
	int64_t ts_ns;
	int ts_err;
	const char *event;
	size_t event_len;
	int id;
	const char *payload;
	const char *end;
};

#define TMPL_MAX	64	/* the bytes a template covers at most */
#define SHAPE_EVENTS	8	/* event names remembered */
#define SHAPE_NAME_MAX	48	/* the longest remembered, its ':' included */

/**
 * struct trace_tmpl - the bytes a line must have to be split as another was
 * @base: the offset in the line of the first byte looked at
 * @span: how many are looked at, a multiple of 16 (some may be let be)
 * @lo, @width: each byte must be in [@lo, @lo + @width]: one value, a
 *       digit, a printable byte but a space (ftrace's FLAGS column, the
 *       payload's first byte), or any byte
 * @fix, @dig, @tok: the same for 8 bytes at a time, without SSE2: 0xff for
 *       the bytes that must equal those of @val, be digits, be printable
 * @br, @flags, @flags_off, @flags_len, @cpu_len, @sec_off, @sec_len,
 * @frac_len: where the '[', the FLAGS column (whose first byte must not be
 *       a digit either) and the numbers are, from the line's start
 */
struct trace_tmpl {
	unsigned char lo[TMPL_MAX];
	unsigned char width[TMPL_MAX];
	unsigned char val[TMPL_MAX];
	unsigned char fix[TMPL_MAX];
	unsigned char dig[TMPL_MAX];
	unsigned char tok[TMPL_MAX];
	size_t base;
	size_t span;
	size_t br;
	bool flags;
	unsigned char flags_off;
	unsigned char flags_len;
	unsigned char cpu_len;
	unsigned char sec_off;
	unsigned char sec_len;
	unsigned char frac_len;
};

/**
 * struct trace_shape - what the last event lines looked like (trace_line.c)
 * @whole: the whole header of one, from the line's start to the payload's
 *         first byte, if @whole_ok; its event name, id, payload and style
 * @misses: lines in a row that did not fit @whole
 * @rest: lines to go before @whole is made again, after many misses
 * @stamp: from the '[' to the space after the timestamp, if @stamp_ok
 * @rest_off: the offset of the byte after the timestamp's ": "
 * @prefix: what preceded the '[' (if @prefix_ok: 8 to 64 bytes, no '['):
 *          a line that starts the same has no '[' before its own
 * @sec_word, @sec_val: the seconds last read, as bytes and as a number
 * @cpu_word, @cpu_val: the same for the last two CPUs
 * @names: event name tokens (their ':' included) seen last, and their ids
 */
struct trace_shape {
	bool whole_ok;
	struct trace_tmpl whole;
	size_t event_off;
	size_t event_len;
	size_t payload_off;
	int id;
	enum trace_line_style style;
	unsigned int misses;
	unsigned int rest;

	bool stamp_ok;
	struct trace_tmpl stamp;
	size_t rest_off;
	bool prefix_ok;
	char prefix[64];

	uint64_t sec_word;
	uint64_t sec_val;
	uint64_t cpu_word[2];
	uint64_t cpu_val[2];
	unsigned int last;
	unsigned int next;
	struct {
		uint64_t head;		/* the first 8 bytes, for a first test */
		size_t len;		/* 0: an empty slot */
		int id;
		char name[SHAPE_NAME_MAX];
	} names[SHAPE_EVENTS];
};

enum trace_line_style trace_split_line(const char *line, size_t len, struct trace_head *h);
enum trace_line_style trace_split_event(const char *line, size_t len, struct trace_head *h,
					struct trace_shape *sh);
bool trace_is_comment(const char *line);
int trace_lost_marker(const char *line, const char *end, uint64_t *cpu, uint64_t *lost);

/* ---- trace_event.c: numbers, event names and payloads ---- */

/* Our events, as trace_event_lookup() names them */
enum ev_id {
	EV_CPU_IDLE,
	EV_CPU_IDLE_MISS,
	EV_HALT_POLL_NS,
	EV_QOS_ADD,
	EV_QOS_UPDATE,
	EV_QOS_REMOVE,
	EV_HRTIMER_START,
	EV_HRTIMER_CANCEL,
	EV_HRTIMER_EXPIRE,
	EV_TICK_STOP,
	EV_LOCAL_TIMER,
	EV_RESCHED,
	EV_CALL_FUNC,
	EV_CALL_FUNC_SINGLE,
	EV_IRQ,
	EV_WAKEUP,
	EV_LOST,		/* perf script --show-lost-events' lost record */
	EV_IPI_ENTRY,		/* arm, arm64: an IPI's handler, by its reason */
	EV_CPU_FREQ,		/* power:cpu_frequency */
	EV_NR,
};


int trace_parse_u64(const char **p, const char *end, uint64_t *v);
int trace_event_lookup(const char *name, size_t len);
bool trace_names_event(const char *line);
bool trace_event_is_lost(int id);
int trace_parse_payload(int id, const struct trace_head *h, struct trace_event *ev,
			bool *fn_addr, char *why, size_t whylen);
bool trace_irq_is_timer(const char *name);
int trace_ipi_type(const char *reason, size_t n);
const char *trace_event_name(int id);
int trace_event_bare_type(int id);

/* ---- trace_tep.c: tracepoint records, by the file's formats ---- */

struct tep_handle;
struct tep_event;

struct tp_field {
	bool present;
	bool is_signed;
	bool dynamic;		/* __data_loc: a u32 of length << 16 | offset */
	bool relative;		/* __rel_loc: the offset is from the field's end */
	int offset;
	int size;
};

struct tp_event {
	int id;			/* EV_* */
	size_t min_size;	/* a record shorter cannot hold all of @f */
	struct tp_field f[3];
	bool quick;		/* tp_decode_quick() reads it: see there */
	size_t quick_min;	/* a record shorter is not read there (SIZE_MAX: none is) */
	int bare_type;		/* an event without fields: its type (trace_event_bare_type()) */
};

#define TP_NAMED_MAX	16

struct tp_string {
	uint64_t addr;
	char *text;
};

/**
 * struct tp_decoder - our events in a file's formats
 * @slot: for each event id of the file, 1 + its index in @events, or 0
 * @tick_fn, @tick_fn_known: the tick's function, if the caller found it
 *	(tp_tick_vote); else names are looked up in the file's symbols
 * @tick_unasked: the caller reads nothing of the hrtimer events but their
 *	time and CPU (trace_want()), and did not look for the tick's function:
 *	their records may be left out all the same (tp_quick_makes()), as
 *	they decode without fail either way
 */
struct tp_decoder {
	struct tep_handle *tep;
	bool native;		/* the file's byte order is this machine's */
	int type_offset;
	int type_size;
	size_t quick_from;	/* tp_decode_quick() reads records of this size on */
	int nr;
	struct tp_event events[EV_NR];
	uint8_t slot[UINT16_MAX + 1];
	bool tick_fn_known;
	bool tick_unasked;
	uint64_t tick_fn;
	struct tp_string *strings;	/* printk strings by address (perf.data) */
	size_t nr_strings;
	unsigned int nr_named;
	struct {
		uint64_t addr;
		bool tick;
	} named[TP_NAMED_MAX];
};

int tp_decoder_init(struct tp_decoder *d, struct tep_handle *tep, const char *what, char *why,
		    size_t whylen);

/**
 * struct tp_format_text - an event's format as a file stores it
 * @system: its system ("power")
 * @text: the format's text, "name: ..." to its fields' end (need not end in NUL)
 * @len: its length
 */
struct tp_format_text {
	const char *system;
	const char *text;
	size_t len;
};

bool tp_event_wanted(const char *system, const char *name, size_t len);
int tp_decoder_init_formats(struct tp_decoder *d, const struct tp_format_text *formats, size_t nr,
			    bool big_endian, const char *what, char *why, size_t whylen);
bool tp_decoder_has(const struct tp_decoder *d, int id);
int tp_decode(struct tp_decoder *d, const unsigned char *raw, size_t size,
	      struct trace_event *ev, bool *fn_addr, char *why, size_t whylen);

#define TP_IDLE_EXIT_STATE	4294967295U	/* PWR_EVENT_EXIT, (u32)-1 */

/* a 4- or 8-byte field at @b, in this machine's order (an unaligned load) */
static inline uint32_t get32(const unsigned char *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

static inline uint64_t get64(const unsigned char *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return v;
}

/*
 * @n bytes from @src to @dst, by fixed-size moves where @n is under 32 (an
 * interrupt's name: gcc makes a memcpy() of a short, variable length a
 * rep movsb, whose start-up cost is paid per record)
 */
static inline void tp_copy_short(char *dst, const unsigned char *src, size_t n)
{
	if (n >= 32) {
		memcpy(dst, src, n);
	} else if (n >= 16) {
		memcpy(dst, src, 16);
		memcpy(dst + n - 16, src + n - 16, 16);
	} else if (n >= 8) {
		memcpy(dst, src, 8);
		memcpy(dst + n - 8, src + n - 8, 8);
	} else {
		for (size_t i = 0; i < n; i++)
			dst[i] = (char)src[i];
	}
}

/*
 * Where the string field @f of a record of @size bytes lies: @off and @len
 * set (@loc: a __data_loc or __rel_loc field's word, as read; a fixed
 * array is where the format puts it, inside any record tp_decode() reads).
 * The one rule tp_string() and tp_quick_makes() go by (inlined whatever
 * the compiler's heuristics say: gcc made it a call, one per interrupt,
 * 1-3% of plain stats' instructions on the shared recordings).  Return:
 * false if it lies outside the record.
 */
static inline __attribute__((always_inline))
bool tp_string_fits(size_t size, const struct tp_field *f, uint32_t loc, size_t *off, size_t *len)
{
	if (!f->dynamic) {
		*off = (size_t)f->offset;
		*len = (size_t)f->size;
		return true;
	}
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->relative)
		*off += (size_t)f->offset + 4;
	return *off <= size && *len <= size - *off;
}

/*
 * The string field @f of a record of @size bytes into @out (@outlen bytes,
 * cut to fit); @loc: a __data_loc or __rel_loc field's word, as read.
 * Return: 0, or -ERANGE if the string lies outside the record.
 */
static inline int tp_string(const unsigned char *raw, size_t size, const struct tp_field *f,
			    uint32_t loc, char *out, size_t outlen)
{
	const unsigned char *z;
	size_t off, len, n;

	if (!tp_string_fits(size, f, loc, &off, &len))
		return -ERANGE;
	z = memchr(raw + off, '\0', len);
	n = z ? (size_t)(z - (raw + off)) : len;
	if (n >= outlen)
		n = outlen - 1;
	tp_copy_short(out, raw + off, n);
	out[n] = '\0';
	return 0;
}

/*
 * The values tp_decode() refuses, as tp_decode_quick() and tp_quick_makes()
 * load them (the sizes tp_event.quick says): one rule each, for both.
 */

/* sched_wakeup's target_cpu (an int: a negative one is over the limit too) */
static inline bool tp_wakeup_fits(uint32_t target_cpu)
{
	return target_cpu < TRACE_MAX_CPUS;
}

/* an hrtimer start's expires or expiry's now, in ns: not negative */
static inline bool tp_hrtimer_fits(uint64_t when)
{
	return (int64_t)when >= 0;
}

/* irq_handler_entry's irq (an int) */
static inline bool tp_irq_fits(uint32_t irq)
{
	return (int32_t)irq >= 0;
}

/**
 * tp_decode_quick() - tp_decode(), its most frequent cases inline
 *
 * power:cpu_idle, sched:sched_wakeup, irq:irq_handler_entry, the hrtimer
 * events once the tick's function is known, and the events without fields
 * make up most of a
 * recording's: where the file's byte order is ours and their fields have
 * the sizes every 64-bit kernel writes (tp_event.quick) and their values
 * are in range, they are read here by direct loads; every other record,
 * and any value tp_decode() would refuse, goes to tp_decode(), which also
 * says why.  The events made are tp_decode()'s, field for field.
 */
static inline int tp_decode_quick(struct tp_decoder *d, const unsigned char *raw, size_t size,
				  struct trace_event *ev, bool *fn_addr, char *why, size_t whylen)
{
	const struct tp_event *te;
	uint64_t fn, w;
	uint32_t v, c;
	uint16_t type;

	if (size < d->quick_from)	/* (or no 2-byte type in our byte order) */
		return tp_decode(d, raw, size, ev, fn_addr, why, whylen);
	memcpy(&type, raw + d->type_offset, 2);
	if (!d->slot[type]) {
		*fn_addr = false;
		return 0;	/* none of ours, as tp_decode() says */
	}
	te = &d->events[d->slot[type] - 1];
	if (size < te->quick_min)	/* (or not one it reads) */
		return tp_decode(d, raw, size, ev, fn_addr, why, whylen);
	switch (te->id) {
	case EV_CPU_IDLE:
		v = get32(raw + te->f[0].offset);
		c = get32(raw + te->f[1].offset);
		if (c >= TRACE_MAX_CPUS || (v != TP_IDLE_EXIT_STATE && v >= TRACE_MAX_STATES))
			break;
		*fn_addr = false;
		ev->pid = -1;
		ev->cpu = c;
		if (v == TP_IDLE_EXIT_STATE) {
			ev->type = TEV_IDLE_EXIT;
		} else {
			ev->type = TEV_IDLE_ENTER;
			ev->state = (int)v;
		}
		return 1;
	case EV_WAKEUP:
		v = get32(raw + te->f[0].offset);
		if (!tp_wakeup_fits(v))
			break;
		*fn_addr = false;
		ev->pid = -1;
		ev->type = TEV_WAKEUP;
		ev->target_cpu = (int)v;
		return 1;
	case EV_HRTIMER_START:
	case EV_HRTIMER_EXPIRE:
		fn = get64(raw + te->f[1].offset);
		w = get64(raw + te->f[2].offset);
		if (!d->tick_fn_known || !tp_hrtimer_fits(w))
			break;
		*fn_addr = false;
		ev->pid = -1;
		ev->timer = get64(raw + te->f[0].offset);
		ev->function = fn;
		ev->tick = fn == d->tick_fn;
		if (te->id == EV_HRTIMER_START) {
			ev->type = TEV_HRTIMER_START;
			ev->expires_ns = (int64_t)w;
		} else {
			ev->type = TEV_HRTIMER_EXPIRE;
			ev->now_ns = (int64_t)w;
		}
		return 1;
	case EV_IRQ:
		v = get32(raw + te->f[0].offset);
		if (!tp_irq_fits(v) || tp_string(raw, size, &te->f[1], get32(raw + te->f[1].offset),
						 ev->name, sizeof(ev->name)))
			break;
		*fn_addr = false;
		ev->pid = -1;
		ev->irq = (int)v;
		ev->type = trace_irq_is_timer(ev->name) ? TEV_LOCAL_TIMER : TEV_IRQ;
		return 1;
	case EV_HRTIMER_CANCEL:
		*fn_addr = false;
		ev->pid = -1;
		ev->type = TEV_HRTIMER_CANCEL;
		ev->timer = get64(raw + te->f[0].offset);
		return 1;
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		*fn_addr = false;
		ev->pid = -1;
		ev->type = (enum trace_ev_type)te->bare_type;
		return 1;
	default:
		break;
	}
	return tp_decode(d, raw, size, ev, fn_addr, why, whylen);
}

/**
 * tp_quick_makes() - would tp_decode_quick() make an event of a record of
 * @te (a wake-up, an hrtimer event, an interrupt, an event without fields)
 * by itself, without tp_decode()?
 * @d: the decoder
 * @te: the record's event, one tp_decode_quick() reads (@size >= @te->quick_min)
 * @raw: the record
 * @size: its size
 *
 * The checks of tp_decode_quick(), by the same rules (tp_wakeup_fits() and
 * the others, tp_string_fits()), without its stores: where this says yes,
 * decoding the record cannot fail, and makes an event of @te's type (an
 * interrupt's: TEV_IRQ or TEV_LOCAL_TIMER) on the sample's CPU.  Other
 * events: false.  With the tick not asked (@d->tick_unasked) an hrtimer
 * record goes to tp_decode(), which names its function by the file's
 * symbols and refuses it alike (a negative time): it is said yes of.
 *
 * Return: true if it would.
 */
static inline __attribute__((always_inline))
bool tp_quick_makes(const struct tp_decoder *d, const struct tp_event *te, const unsigned char *raw,
		    size_t size)
{
	const struct tp_field *name;
	size_t off, len;

	switch (te->id) {
	case EV_WAKEUP:
		return tp_wakeup_fits(get32(raw + te->f[0].offset));
	case EV_HRTIMER_START:
	case EV_HRTIMER_EXPIRE:
		return (d->tick_fn_known || d->tick_unasked) &&
		       tp_hrtimer_fits(get64(raw + te->f[2].offset));
	case EV_IRQ:
		name = &te->f[1];
		return tp_irq_fits(get32(raw + te->f[0].offset)) &&
		       tp_string_fits(size, name, get32(raw + name->offset), &off, &len);
	case EV_HRTIMER_CANCEL:
	case EV_LOCAL_TIMER:
	case EV_RESCHED:
	case EV_CALL_FUNC:
	case EV_CALL_FUNC_SINGLE:
		return true;
	default:
		return false;
	}
}

int tp_decoder_event_id(const struct tp_decoder *d, const unsigned char *raw, size_t size);
int tp_decoder_strings(struct tp_decoder *d, const char *text);
void tp_decoder_free(struct tp_decoder *d);

#define TP_TICK_CANDIDATES	8

struct tp_tick_cpu {
	bool stopped;		/* tick_stop said so; its next start is the tick */
	bool expired;		/* an hrtimer expired, none started since */
	uint64_t timer;
	uint64_t function;
};

/** struct tp_tick_vote - which hrtimer function is the tick's (trace_tep.c) */
struct tp_tick_vote {
	uint64_t fn[TP_TICK_CANDIDATES];
	unsigned int n[TP_TICK_CANDIDATES];
	unsigned int nr_cpus;
	struct tp_tick_cpu *cpu;
};

void tp_tick_vote_feed(struct tp_tick_vote *v, const struct trace_event *ev);
bool tp_tick_vote_result(const struct tp_tick_vote *v, uint64_t *fn, bool *done);

/* ---- trace.c and trace_idlestat.c: the reader ---- */

struct trace_reader {
	struct trace_src src;
	char *path;		/* as named in messages */
	enum trace_format fmt;
	bool fmt_tentative;	/* only LINE_EITHER lines yet: @fmt may change */
	bool binary;		/* a binary file (perf.data): offsets, not lines */
	bool info_only;		/* trace_read_info()'s: a binary file's events not opened */
	struct trace_info info;
	char *pending;		/* a line read ahead, parsed by the next call */
	size_t pending_len;
	struct trace_shape shape;	/* what the last event line looked like */
	int64_t last_ts;	/* the last timestamp read, for a lost-events marker */
	/*
	 * The address of each CPU's tick hrtimer, as an hrtimer_start naming
	 * the tick's function armed it (0: not seen): an expiry that names
	 * its function by address only (trace-cmd report -R) is the tick's
	 * if its hrtimer= is this one.  The tick's hrtimer is per CPU and
	 * pinned: armed and expired on its own CPU.  (TRACE_MAX_CPUS of them,
	 * allocated at a text trace's first hrtimer event: the 32 KiB were two
	 * thirds of the reader, cleared at each open, for every format.)
	 */
	uint64_t *tick_timer;
	struct trace_event lent;	/* trace_next_ref()'s, where a reader has none */
	struct perf_reader *perf;	/* a perf.data file's reader (trace_perf.c) */
	struct tracecmd_reader *tracecmd;	/* a trace.dat's (trace_tracecmd.c) */
	struct ivf_feed *ivf;	/* an interval file's (trace_ivf.c) */
	int err;		/* sticky: once failed, always failed */
	char errmsg[512];
};

int trace_fail(struct trace_reader *r, int err, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int trace_src_fail(struct trace_reader *r, int err);
int trace_idlestat_header(struct trace_reader *r);

/* ---- trace_perf.c: perf.data ---- */

int trace_perf_open(struct trace_reader *r);
int trace_perf_next(struct trace_reader *r, struct trace_event *ev);
int trace_perf_next_ref(struct trace_reader *r, const struct trace_event **ev);
int trace_perf_next_batch(struct trace_reader *r, const struct trace_event **evs, size_t max);
void trace_perf_close(struct trace_reader *r);
void trace_perf_want(struct trace_reader *r, uint32_t types);
void trace_perf_skipped(const struct trace_reader *r, struct trace_skipped *out);
int64_t trace_perf_skipped_before(struct trace_reader *r, const struct trace_event *ev);

/* ---- trace_tracecmd.c: trace.dat ---- */

int trace_tracecmd_open(struct trace_reader *r);
int trace_tracecmd_next(struct trace_reader *r, struct trace_event *ev);
void trace_tracecmd_close(struct trace_reader *r);
void trace_tracecmd_want(struct trace_reader *r, uint32_t types);

/* ---- trace_ivf.c: an interval file's intervals as events ---- */

int trace_ivf_open(struct trace_reader *r, const char *path);
int trace_ivf_next(struct trace_reader *r, struct trace_event *ev);
void trace_ivf_close(struct trace_reader *r);

#endif /* LAB_TRACE_INTERNAL_H */
