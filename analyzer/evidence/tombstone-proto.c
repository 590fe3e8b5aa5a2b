/*
 * Native crash reports (tombstones) in debuggerd's protobuf, the
 * tombstone.proto of AOSP's system/core/debuggerd (the subset read is
 * schemas/tombstone.proto): /data/tombstones/tombstone_NN.pb, a bug
 * report's FS/data/tombstones/ *.pb, and the trace that
 * ApplicationExitInfo.getTraceInputStream() gives of a native crash.
 *
 * The file is read whole (one message, no framing) and field by field
 * with pb_read_field() (src/protobuf.h), each message by a table of the
 * fields it knows: their number, name and wire type. A field of a known
 * number with another wire type, bytes that are no field, or a map entry
 * holding other than its key and value refuse the whole file, with an
 * error that names the byte offset and the field's path, as in
 * "threads[3].current_backtrace[12].build_id: wire type 0, expected 2 at
 * byte 4711". Unknown fields are skipped unread, so a message nested
 * deeper than the schema is never walked.
 *
 * What is kept is what the text tombstone gives (tombstone.c), in the
 * same form: the crashing thread (the threads map's entry whose key is
 * the tid) gives the frames, the others t->threads; a frame's symbol is
 * "function+offset"; a frame without a build id takes the one of the
 * memory mapping of its file's name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/protobuf.h"
#include "parsers.h"
#include "runtime-libs.h"

/* Read whole: a tombstone with memory dumps of every thread stays far below. */
#define TOMB_PB_MAX ((size_t)64 << 20)
#define TOMB_PB_LIMIT "the limit for a tombstone in protobuf, which is read whole"

/* A field a message knows. */
struct pb_desc {
	uint32_t number;
	const char *name;
	enum pb_wire wire;
	int repeated; /* its path carries an index, name[i] */
};

struct pb_msg {
	const struct pb_desc *fields;
	size_t n; /* at most PB_FIELDS_MAX */
};

/* The most fields a table below has (Tombstone's fourteen). */
#define PB_FIELDS_MAX 16

#define MSG(tab) { tab, sizeof(tab) / sizeof(tab[0]) }
#define FITS(tab) _Static_assert(sizeof(tab) / sizeof(tab[0]) <= PB_FIELDS_MAX, #tab)

enum { T_ARCH = 1, T_FINGERPRINT, T_REVISION, T_TIMESTAMP, T_PID, T_TID, T_UID,
       T_CMDLINE = 9, T_SIGNAL = 10, T_ABORT = 14, T_CAUSES, T_THREADS, T_MAPPINGS, T_LOGS };

static const struct pb_desc tombstone_fields[] = {
	{ T_ARCH, "arch", PB_VARINT, 0 },
	{ T_FINGERPRINT, "build_fingerprint", PB_LEN, 0 },
	{ T_REVISION, "revision", PB_LEN, 0 },
	{ T_TIMESTAMP, "timestamp", PB_LEN, 0 },
	{ T_PID, "pid", PB_VARINT, 0 },
	{ T_TID, "tid", PB_VARINT, 0 },
	{ T_UID, "uid", PB_VARINT, 0 },
	{ T_CMDLINE, "command_line", PB_LEN, 1 },
	{ T_SIGNAL, "signal_info", PB_LEN, 0 },
	{ T_ABORT, "abort_message", PB_LEN, 0 },
	{ T_CAUSES, "causes", PB_LEN, 1 },
	{ T_THREADS, "threads", PB_LEN, 1 },
	{ T_MAPPINGS, "memory_mappings", PB_LEN, 1 },
	{ T_LOGS, "log_buffers", PB_LEN, 1 },
};

static const struct pb_desc signal_fields[] = {
	{ 1, "number", PB_VARINT, 0 },
	{ 2, "name", PB_LEN, 0 },
	{ 3, "code", PB_VARINT, 0 },
	{ 4, "code_name", PB_LEN, 0 },
	{ 8, "has_fault_address", PB_VARINT, 0 },
	{ 9, "fault_address", PB_VARINT, 0 },
};

static const struct pb_desc cause_fields[] = {
	{ 1, "human_readable", PB_LEN, 0 },
};

/* map<uint32, Thread>: each entry a message {key = 1, value = 2} */
static const struct pb_desc entry_fields[] = {
	{ 1, "key", PB_VARINT, 0 },
	{ 2, "value", PB_LEN, 0 },
};

static const struct pb_desc thread_fields[] = {
	{ 1, "id", PB_VARINT, 0 },
	{ 2, "name", PB_LEN, 0 },
	{ 4, "current_backtrace", PB_LEN, 1 },
};

enum { F_REL_PC = 1, F_PC, F_SP, F_FUNCTION, F_FUNCTION_OFFSET, F_FILE, F_FILE_OFFSET, F_BUILD_ID };

static const struct pb_desc frame_fields[] = {
	{ F_REL_PC, "rel_pc", PB_VARINT, 0 },
	{ F_PC, "pc", PB_VARINT, 0 },
	{ F_SP, "sp", PB_VARINT, 0 },
	{ F_FUNCTION, "function_name", PB_LEN, 0 },
	{ F_FUNCTION_OFFSET, "function_offset", PB_VARINT, 0 },
	{ F_FILE, "file_name", PB_LEN, 0 },
	{ F_FILE_OFFSET, "file_map_offset", PB_VARINT, 0 },
	{ F_BUILD_ID, "build_id", PB_LEN, 0 },
};

static const struct pb_desc mapping_fields[] = {
	{ 1, "begin_address", PB_VARINT, 0 },
	{ 2, "end_address", PB_VARINT, 0 },
	{ 3, "offset", PB_VARINT, 0 },
	{ 4, "read", PB_VARINT, 0 },
	{ 5, "write", PB_VARINT, 0 },
	{ 6, "execute", PB_VARINT, 0 },
	{ 7, "mapping_name", PB_LEN, 0 },
	{ 8, "build_id", PB_LEN, 0 },
	{ 9, "load_bias", PB_VARINT, 0 },
};

static const struct pb_desc logbuffer_fields[] = {
	{ 1, "name", PB_LEN, 0 },
	{ 2, "logs", PB_LEN, 1 },
};

static const struct pb_desc logmessage_fields[] = {
	{ 1, "timestamp", PB_LEN, 0 },
	{ 2, "pid", PB_VARINT, 0 },
	{ 3, "tid", PB_VARINT, 0 },
	{ 4, "priority", PB_VARINT, 0 },
	{ 5, "tag", PB_LEN, 0 },
	{ 6, "message", PB_LEN, 0 },
};

FITS(tombstone_fields);
FITS(mapping_fields);

static const struct pb_msg tombstone_msg = MSG(tombstone_fields);
static const struct pb_msg signal_msg = MSG(signal_fields);
static const struct pb_msg cause_msg = MSG(cause_fields);
static const struct pb_msg entry_msg = MSG(entry_fields);
static const struct pb_msg thread_msg = MSG(thread_fields);
static const struct pb_msg frame_msg = MSG(frame_fields);
static const struct pb_msg mapping_msg = MSG(mapping_fields);
static const struct pb_msg logbuffer_msg = MSG(logbuffer_fields);
static const struct pb_msg logmessage_msg = MSG(logmessage_fields);

/* A mapping with a build id, its name and build id inside the buffer. */
struct pb_mapping {
	const uint8_t *name, *build_id;
	size_t name_n, build_id_n;
	size_t order;
};

/* The read: the file's bytes, where the path stands, what is filled. */
struct pb_read {
	const uint8_t *base;
	struct ev_file *out;
	struct tombstone *t;
	struct ev_error *err;
	char path[104];
	size_t path_n;
	int failed;   /* err is set */
	int have_tid; /* t->tid was read */
	struct pb_mapping *maps;    /* the mappings with a build id, sorted at the end */
	size_t nmaps;
};

/* What a message's reader does with one of its known fields (d), of the
 * wire type d says; 0, or -1 with r->err set. */
typedef int (*pb_handler)(struct pb_read *r, void *ctx, const struct pb_desc *d,
			  const struct pb_field *f);

__attribute__((format(printf, 3, 4))) static int fail(struct pb_read *r, size_t at,
							  const char *fmt, ...)
{
	char why[100];
	va_list ap;

	if (r->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	r->err->line = 0;
	snprintf(r->err->reason, sizeof(r->err->reason), "%s%s%s at byte %zu",
		 r->path_n ? r->path : "", r->path_n ? ": " : "", why, at);
	r->failed = 1;
	return -1;
}

static int oom(struct pb_read *r)
{
	if (!r->failed) {
		r->err->line = 0;
		snprintf(r->err->reason, sizeof(r->err->reason), "out of memory");
		r->failed = 1;
	}
	return -1;
}

/* Append ".name" or "name[i]" to the path; returns the length to go back to. */
static size_t path_push(struct pb_read *r, const char *name, int indexed, size_t i)
{
	size_t was = r->path_n;
	int k;

	if (indexed)
		k = snprintf(r->path + was, sizeof(r->path) - was, "%s%s[%zu]", was ? "." : "", name,
			     i);
	else
		k = snprintf(r->path + was, sizeof(r->path) - was, "%s%s", was ? "." : "", name);
	if (k > 0)
		r->path_n = was + (size_t)k < sizeof(r->path) ? was + (size_t)k : sizeof(r->path) - 1;
	return was;
}

static void path_pop(struct pb_read *r, size_t was)
{
	r->path_n = was;
	r->path[was] = '\0';
}

/* Why the bytes at p are no field: a cut key or value, or a length past the end. */
static int bad_field(struct pb_read *r, const struct pb_msg *m, const size_t *counts,
		     const uint8_t *p, const uint8_t *end)
{
	struct pb_reader k = { p, end };
	unsigned long long number;
	uint64_t key, len;
	size_t at = (size_t)(p - r->base), i;
	char field[32] = "";

	if (pb_read_varint(&k, &key) != 0)
		return fail(r, at, "a field key cut short or longer than ten bytes");
	number = (unsigned long long)(key >> 3);
	if (number == 0 || number > (1u << 29) - 1)
		return fail(r, at, "field number %llu, not one protobuf allows", number);
	/* the path names a field the message knows; "field N: " another */
	for (i = 0; i < m->n && m->fields[i].number != number; i++)
		;
	if (i < m->n)
		path_push(r, m->fields[i].name, m->fields[i].repeated, counts[i]);
	else
		snprintf(field, sizeof(field), "field %llu: ", number);
	switch (key & 7) {
	case PB_VARINT:
		return fail(r, at, "%sa varint cut short or longer than ten bytes", field);
	case PB_LEN:
		if (pb_read_varint(&k, &len) != 0)
			return fail(r, at, "%sa length cut short", field);
		return fail(r, at, "%sa length of %llu bytes past the end (%zu left)", field,
			    (unsigned long long)len, (size_t)(end - k.p));
	case PB_I64:
	case PB_I32:
		return fail(r, at, "%sa fixed-size value cut short", field);
	default:
		return fail(r, at, "%swire type %d, which is none of 0, 1, 2 and 5", field,
			    (int)(key & 7));
	}
}

/*
 * Read the message in [p, p + n) by its table m: each known field of its
 * wire type goes to h (the path naming it, an index for repeated ones);
 * unknown fields are skipped. strict: a field that m does not know is an
 * error (a map entry).
 */
static int read_msg(struct pb_read *r, const struct pb_msg *m, const uint8_t *p, size_t n,
		    int strict, pb_handler h, void *ctx)
{
	struct pb_reader rd = { p, p + n };
	size_t counts[PB_FIELDS_MAX] = { 0 }; /* repeats of each field of m */
	struct pb_field f;
	int rc;

	for (;;) {
		const uint8_t *at = rd.p;
		const struct pb_desc *d = NULL;
		size_t i, was;

		rc = pb_read_field(&rd, &f);
		if (rc == 0)
			return 0;
		if (rc < 0)
			return bad_field(r, m, counts, at, rd.end);
		for (i = 0; i < m->n && !d; i++)
			if (m->fields[i].number == f.number)
				d = &m->fields[i];
		if (!d) {
			if (strict)
				return fail(r, (size_t)(at - r->base),
					    "field %llu in a map entry, which holds only its key "
					    "(1) and value (2)",
					    (unsigned long long)f.number);
			continue;
		}
		i = (size_t)(d - m->fields);
		was = path_push(r, d->name, d->repeated, counts[i]);
		if (f.wire != d->wire) {
			fail(r, (size_t)(at - r->base), "wire type %d, expected %d", (int)f.wire,
			     (int)d->wire);
			return -1;
		}
		rc = h(r, ctx, d, &f);
		path_pop(r, was);
		if (rc != 0)
			return -1;
		counts[i]++;
	}
}

/* A copy of a string field; NUL bytes kept visible (ev_strndup()). */
static int set_str(struct pb_read *r, char **dst, const struct pb_field *f)
{
	char *s = ev_strndup((const char *)f->data, (size_t)f->v);

	if (!s)
		return oom(r);
	free(*dst);
	*dst = s;
	return 0;
}

/* --- BacktraceFrame -------------------------------------------------- */

struct frame_read {
	struct frame *fr;
	const uint8_t *function;
	size_t function_n;
	uint64_t function_offset;
};

static int on_frame(struct pb_read *r, void *ctx, const struct pb_desc *d, const struct pb_field *f)
{
	struct frame_read *fd = ctx;
	struct frame *fr = fd->fr;
	size_t i;

	switch (d->number) {
	case F_REL_PC:
		fr->pc = f->v;
		break;
	case F_FUNCTION:
		fd->function = f->data;
		fd->function_n = (size_t)f->v;
		break;
	case F_FUNCTION_OFFSET:
		fd->function_offset = f->v;
		break;
	case F_FILE:
		return f->v ? set_str(r, &fr->library, f) : 0;
	case F_FILE_OFFSET:
		fr->file_offset = f->v;
		fr->has_file_offset = f->v != 0;
		break;
	case F_BUILD_ID:
		if (!f->v)
			break;
		if (set_str(r, &fr->build_id, f) != 0)
			return -1;
		for (i = 0; fr->build_id[i]; i++)
			if (fr->build_id[i] >= 'A' && fr->build_id[i] <= 'Z')
				fr->build_id[i] = (char)(fr->build_id[i] - 'A' + 'a');
		break;
	}
	return 0;
}

/* One frame of current_backtrace into fr (index: its place). */
static int read_frame(struct pb_read *r, struct frame *fr, size_t index, const struct pb_field *f)
{
	struct frame_read fd = { fr, NULL, 0, 0 };

	fr->index = (int64_t)index;
	if (read_msg(r, &frame_msg, f->data, (size_t)f->v, 0, on_frame, &fd) != 0)
		return -1;
	if (fd.function_n) {
		/* "name+off", as the text writes "(name+off)" */
		char *name = ev_strndup((const char *)fd.function, fd.function_n);
		size_t n = name ? strlen(name) + 24 : 0;
		char *s = name ? malloc(n) : NULL;

		if (!s || !name) {
			free(s);
			free(name);
			return oom(r);
		}
		if (fd.function_offset)
			snprintf(s, n, "%s+%llu", name, (unsigned long long)fd.function_offset);
		else
			snprintf(s, n, "%s", name);
		free(name);
		fr->symbol = s;
	}
	return 0;
}

/* --- Thread ---------------------------------------------------------- */

/* Where a thread's frames go: the tombstone's own, or another thread's. */
struct thread_read {
	struct tombstone *t;      /* the crashing thread: its frames, its name */
	struct tomb_thread *th;   /* another thread */
	size_t nframes;           /* current_backtrace entries seen */
};

static int on_thread(struct pb_read *r, void *ctx, const struct pb_desc *d,
		     const struct pb_field *f)
{
	struct thread_read *tr = ctx;
	struct frame *fr;

	switch (d->number) {
	case 1:
		if (tr->th && tr->th->tid == EV_NONE)
			tr->th->tid = (int64_t)(int32_t)f->v;
		return 0;
	case 2:
		if (!f->v)
			return 0;
		return set_str(r, tr->t ? &tr->t->thread : &tr->th->name, f);
	}
	/* current_backtrace */
	if (tr->nframes++ >= EV_FRAMES_MAX) {
		r->out->stats.cut_frames++;
		return 0;
	}
	fr = tr->t ? ev_add_frame(tr->t) : ev_add_thread_frame(tr->th);
	if (!fr)
		return oom(r);
	return read_frame(r, fr, tr->nframes - 1, f);
}

/* An entry of the threads map: {key = tid, value = Thread}. */
struct entry_read {
	int have_key;
	uint64_t key;
	const struct pb_field *value; /* &value_copy once read, else NULL */
	struct pb_field value_copy;
};

static int on_entry(struct pb_read *r, void *ctx, const struct pb_desc *d, const struct pb_field *f)
{
	struct entry_read *e = ctx;

	(void)r;
	if (d->number == 1) {
		e->have_key = 1;
		e->key = f->v;
	} else {
		e->value_copy = *f;
		e->value = &e->value_copy;
	}
	return 0;
}

static int read_thread_entry(struct pb_read *r, const struct pb_field *f)
{
	struct entry_read e;
	struct thread_read tr = { NULL, NULL, 0 };
	struct tombstone *t = r->t;

	memset(&e, 0, sizeof(e));
	if (read_msg(r, &entry_msg, f->data, (size_t)f->v, 1, on_entry, &e) != 0)
		return -1;
	/* The crashing thread: its key is the tid (written before the
	 * threads, as protobuf orders fields); else the first entry whose
	 * key is the tid read later takes it (take_crashing_thread()). */
	if (r->have_tid && e.key == (uint64_t)t->tid && !t->nframes && !t->thread) {
		tr.t = t;
	} else {
		if (t->nthreads >= EV_THREADS_MAX) {
			r->out->stats.cut_threads++;
			return 0;
		}
		if (!(tr.th = ev_add_thread(t)))
			return oom(r);
		tr.th->tid = (int64_t)(uint32_t)e.key;
	}
	if (!e.value)
		return 0;
	return read_msg(r, &thread_msg, e.value->data, (size_t)e.value->v, 0, on_thread, &tr);
}

/* --- the rest: signal, causes, mappings, log buffers ------------------- */

static int on_signal(struct pb_read *r, void *ctx, const struct pb_desc *d,
		     const struct pb_field *f)
{
	struct tombstone *t = ctx;

	switch (d->number) {
	case 1:
		t->signo = (int64_t)(int32_t)f->v;
		break;
	case 3:
		t->code = (int64_t)(int32_t)f->v;
		break;
	case 4:
		return f->v ? set_str(r, &t->code_name, f) : 0;
	case 8:
		t->has_fault_addr = f->v != 0;
		break;
	case 9:
		t->fault_addr = f->v;
		break;
	}
	return 0;
}

static int on_cause(struct pb_read *r, void *ctx, const struct pb_desc *d, const struct pb_field *f)
{
	struct tombstone *t = ctx;

	(void)d;
	return t->cause || !f->v ? 0 : set_str(r, &t->cause, f);
}

static int on_mapping(struct pb_read *r, void *ctx, const struct pb_desc *d,
		      const struct pb_field *f)
{
	struct pb_mapping *m = ctx;

	(void)r;
	if (d->number == 7) {
		m->name = f->data;
		m->name_n = (size_t)f->v;
	} else if (d->number == 8) {
		m->build_id = f->data;
		m->build_id_n = (size_t)f->v;
	}
	return 0;
}

static int read_mapping(struct pb_read *r, const struct pb_field *f)
{
	struct pb_mapping m;

	memset(&m, 0, sizeof(m));
	if (read_msg(r, &mapping_msg, f->data, (size_t)f->v, 0, on_mapping, &m) != 0)
		return -1;
	r->t->nmappings++;
	if (m.name_n && m.build_id_n) {
		struct pb_mapping *nv = realloc(r->maps, (r->nmaps + 1) * sizeof(*nv));

		if (!nv)
			return oom(r);
		r->maps = nv;
		m.order = r->nmaps;
		r->maps[r->nmaps++] = m;
	}
	return 0;
}

static int on_logmessage(struct pb_read *r, void *ctx, const struct pb_desc *d,
			 const struct pb_field *f)
{
	(void)r;
	(void)ctx;
	(void)d;
	(void)f;
	return 0;
}

static int on_logbuffer(struct pb_read *r, void *ctx, const struct pb_desc *d,
			const struct pb_field *f)
{
	struct tombstone *t = ctx;

	if (d->number != 2)
		return 0;
	if (read_msg(r, &logmessage_msg, f->data, (size_t)f->v, 0, on_logmessage, NULL) != 0)
		return -1;
	t->nlog_lines++;
	return 0;
}

/* --- detection ------------------------------------------------------ */

/* Whether s looks like a build fingerprint: printable, with its '/' and
 * ':' (brand/product/device:release/id/incremental:type/tags). */
static int pb_fingerprint(const unsigned char *s, uint64_t n)
{
	uint64_t i, slashes = 0, colons = 0;

	if (n < 8 || n > 256)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
		slashes += s[i] == '/';
		colons += s[i] == ':';
	}
	return slashes >= 3 && colons >= 2;
}

/*
 * Whether the head of a file is a tombstone in debuggerd's protobuf
 * (tombstone.proto: arch = 1, build_fingerprint = 2, revision = 3,
 * timestamp = 4, pid = 5, ...), as /data/tombstones/tombstone_NN.pb and
 * ApplicationExitInfo.getTraceInputStream() of a native crash (API 31)
 * give it: top-level fields in ascending order, as protobuf writes them,
 * with a build fingerprint as field 2 and the pid as a varint field 5.
 */
int tombstone_proto_sniff(const char *buf, size_t len)
{
	struct pb_reader r = { (const uint8_t *)buf, (const uint8_t *)buf + len };
	struct pb_field f;
	uint32_t last = 0;
	int fingerprint = 0, rc;

	while ((rc = pb_read_field(&r, &f)) > 0) {
		if (f.number <= last || f.number > 64)
			return 0;
		last = f.number;
		if (f.wire == PB_VARINT && last == 5)
			return fingerprint;
		if (f.wire == PB_LEN && last == 2)
			fingerprint = pb_fingerprint(f.data, f.v);
		else if (f.wire != PB_VARINT && f.wire != PB_LEN)
			return 0;
	}
	return 0;
}

/* --- Tombstone ------------------------------------------------------- */

static const char *arch_abi(uint64_t arch)
{
	static const char *const abi[] = { "arm", "arm64", "x86", "x86_64", "riscv64" };

	return arch < sizeof(abi) / sizeof(abi[0]) ? abi[arch] : NULL;
}

/* Append s (n bytes) to *dst, a space between. */
static int append_arg(struct pb_read *r, char **dst, const struct pb_field *f)
{
	size_t had = *dst ? strlen(*dst) : 0;
	char *arg = ev_strndup((const char *)f->data, (size_t)f->v);
	char *s;

	if (!arg)
		return oom(r);
	s = realloc(*dst, had + (had ? 1 : 0) + strlen(arg) + 1);
	if (!s) {
		free(arg);
		return oom(r);
	}
	if (had)
		s[had++] = ' ';
	strcpy(s + had, arg);
	free(arg);
	*dst = s;
	return 0;
}

static int on_tombstone(struct pb_read *r, void *ctx, const struct pb_desc *d,
			const struct pb_field *f)
{
	struct tombstone *t = r->t;

	(void)ctx;
	switch (d->number) {
	case T_ARCH:
		free(t->abi);
		{
			const char *abi = arch_abi(f->v);

			t->abi = abi ? ev_strndup(abi, strlen(abi)) : NULL;
			if (abi && !t->abi)
				return oom(r);
		}
		return 0;
	case T_FINGERPRINT:
		return set_str(r, &t->fingerprint, f);
	case T_TIMESTAMP:
		return set_str(r, &t->timestamp_text, f);
	case T_PID:
		t->pid = (int64_t)(uint32_t)f->v;
		return 0;
	case T_TID:
		t->tid = (int64_t)(uint32_t)f->v;
		r->have_tid = 1;
		return 0;
	case T_UID:
		t->uid = (int64_t)(uint32_t)f->v;
		return 0;
	case T_CMDLINE:
		if (!t->process && set_str(r, &t->process, f) != 0)
			return -1;
		return append_arg(r, &t->cmdline, f);
	case T_SIGNAL:
		t->has_code = 1;
		t->signo = t->code = 0;
		return read_msg(r, &signal_msg, f->data, (size_t)f->v, 0, on_signal, t);
	case T_ABORT:
		return f->v ? set_str(r, &t->abort_message, f) : 0;
	case T_CAUSES:
		return read_msg(r, &cause_msg, f->data, (size_t)f->v, 0, on_cause, t);
	case T_THREADS:
		return read_thread_entry(r, f);
	case T_MAPPINGS:
		return read_mapping(r, f);
	case T_LOGS:
		return read_msg(r, &logbuffer_msg, f->data, (size_t)f->v, 0, on_logbuffer, t);
	}
	return 0; /* revision: read, not kept */
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct pb_mapping *x = a, *y = b;
	size_t n = x->name_n < y->name_n ? x->name_n : y->name_n;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	if (x->name_n != y->name_n)
		return x->name_n < y->name_n ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The build id of the first mapping named name, or NULL. */
static const struct pb_mapping *mapping_named(const struct pb_read *r, const char *name)
{
	size_t lo = 0, hi = r->nmaps, n = strlen(name);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pb_mapping *m = &r->maps[mid];
		size_t k = m->name_n < n ? m->name_n : n;
		int c = memcmp(m->name, name, k);

		if (!c)
			c = m->name_n < n ? -1 : m->name_n > n;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nmaps && r->maps[lo].name_n == n && memcmp(r->maps[lo].name, name, n) == 0)
		return &r->maps[lo];
	return NULL;
}

static int fill_build_ids(struct pb_read *r, struct frame *v, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const struct pb_mapping *m;

		if (v[i].build_id || !v[i].library || !(m = mapping_named(r, v[i].library)))
			continue;
		v[i].build_id = ev_strndup((const char *)m->build_id, m->build_id_n);
		if (!v[i].build_id)
			return oom(r);
		for (k = 0; v[i].build_id[k]; k++)
			if (v[i].build_id[k] >= 'A' && v[i].build_id[k] <= 'Z')
				v[i].build_id[k] = (char)(v[i].build_id[k] - 'A' + 'a');
	}
	return 0;
}

/* The crashing thread, when its entry came before the tid (fields out of
 * protobuf's order): moved from the other threads into t. */
static void take_crashing_thread(struct tombstone *t)
{
	size_t i;

	if (t->nframes || t->thread || t->tid == EV_NONE)
		return;
	for (i = 0; i < t->nthreads; i++) {
		struct tomb_thread th = t->threads[i];

		if (th.tid != t->tid)
			continue;
		t->frames = th.frames;
		t->nframes = th.nframes;
		t->thread = th.name;
		memmove(&t->threads[i], &t->threads[i + 1], (t->nthreads - i - 1) * sizeof(th));
		t->nthreads--;
		return;
	}
}

/* Read the whole protobuf in [buf, buf + len) into one tombstone of out. */
static int tombstone_proto_read(const char *buf, size_t len, struct ev_file *out,
				struct ev_error *err)
{
	struct pb_read r;
	struct tombstone *t;
	size_t i;
	int rc;

	memset(&r, 0, sizeof(r));
	r.base = (const uint8_t *)buf;
	r.out = out;
	r.err = err;
	if (!(t = ev_add_tombstone(out)))
		return oom(&r);
	r.t = t;
	t->protobuf = 1;
	t->line = 0;
	/* proto3 leaves out what is 0: ARM32, pid 0, uid 0 (root) */
	t->pid = t->tid = t->uid = 0;
	t->abi = ev_strndup("arm", 3);
	rc = t->abi ? read_msg(&r, &tombstone_msg, r.base, len, 0, on_tombstone, NULL) : oom(&r);
	if (rc == 0) {
		take_crashing_thread(t);
		if (r.nmaps)
			qsort(r.maps, r.nmaps, sizeof(*r.maps), cmp_mapping);
		rc = fill_build_ids(&r, t->frames, t->nframes);
		for (i = 0; rc == 0 && i < t->nthreads; i++)
			rc = fill_build_ids(&r, t->threads[i].frames, t->threads[i].nframes);
	}
	free(r.maps);
	if (rc != 0) {
		/* refused whole: nothing of it is kept */
		ev_file_release(out);
		return -1;
	}
	rtlib_mark(t);
	return 0;
}

int tombstone_proto_parse(const char *buf, size_t len, struct ev_file *out, struct ev_error *err)
{
	return tombstone_proto_read(buf, len, out, err);
}

int tombstone_proto_parse_input(struct input *in, struct ev_file *out, struct ev_error *err)
{
	size_t len;
	char *buf = input_whole(in, TOMB_PB_MAX, TOMB_PB_LIMIT, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = tombstone_proto_read(buf, len, out, err);
	free(buf);
	return rc;
}
