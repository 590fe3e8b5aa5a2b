/*
 * schemas/ring-format.md agrees with the code: the header and slot tables
 * give the offsets and sizes of struct lw_ring_header and struct
 * lw_ring_slot, field by field and in order; the event table and the
 * vocabulary tables give the values and names of include/lastwords/vocab.h;
 * the check values quoted for CRC32C and the candidate digest are what the
 * code computes; and the rules R1..R12 are each defined once.
 *
 * usage: docs-format schemas/ring-format.md
 */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lastwords/ring.h>
#include <lastwords/vocab.h>

#include "helpers.h"
#include "../src/crc32c.h"
#include "../src/digest.h"

struct field {
	const char *name;
	size_t offset, size;
};

#define HF(m) { #m, offsetof(struct lw_ring_header, m), sizeof(((struct lw_ring_header *)0)->m) }
#define SF(m) { #m, offsetof(struct lw_ring_slot, m), sizeof(((struct lw_ring_slot *)0)->m) }

static const struct field header_fields[] = {
	HF(magic), HF(version), HF(min_version), HF(header_size), HF(slot_size),
	HF(slot_count), HF(byte_order), HF(pid), HF(writer_version), HF(run_id),
	HF(boot_id), HF(start_mono_ns), HF(start_boot_ns), HF(start_real_ns),
	HF(app_version), HF(stable_candidate), HF(memory_budget_kb), HF(open_flags),
	HF(process), HF(session_slots), HF(reserved0), HF(header_crc), HF(head), HF(reserved1), HF(state),
	HF(crash_signo), HF(candidate), HF(ok_candidate), HF(last_stage), HF(flags),
	HF(open_count), HF(lapped), HF(dropped), HF(syncs), HF(reserved2),
};

static const struct field slot_fields[] = {
	SF(seq), SF(t_mono_ns), SF(type), SF(stage), SF(code), SF(flags), SF(tid),
	SF(rss_kb), SF(rss_age_ms), SF(a), SF(b), SF(c), SF(d), SF(crc),
};

#define EF(m) { #m, offsetof(struct lw_ring_session, m), sizeof(((struct lw_ring_session *)0)->m) }

static const struct field session_fields[] = {
	EF(state), EF(last_stage), EF(candidate), EF(open_count), EF(opened_mono_ns),
	EF(result), EF(opens),
};

struct value {
	const char *name;
	int value;
};

#define VE(up, name, val) { #name, val },
static const struct value stages[] = { LW_STAGES(VE) };
static const struct value event_types[] = { LW_EVENT_TYPES(VE) };
static const struct value errors[] = { LW_ERRORS(VE) };
static const struct value marks[] = { LW_MARKS(VE) };
static const struct value delegates[] = { LW_DELEGATES(VE) };
static const struct value actions[] = { LW_ACTIONS(VE) };
static const struct value advices[] = { LW_ADVICES(VE) };
static const struct value payload_classes[] = { LW_PAYLOAD_CLASSES(VE) };
static const struct value cache_ops[] = { LW_CACHE_OPS(VE) };
static const struct value scenarios[] = { LW_SCENARIOS(VE) };
static const struct value memory_sources[] = { LW_MEMORY_SOURCES(VE) };
static const struct value graphics_sources[] = { LW_GRAPHICS_SOURCES(VE) };
static const struct value pressure_sources[] = { LW_PRESSURE_SOURCES(VE) };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One table of the document and what it must match. */
struct table {
	const char *heading;        /* the heading's start, e.g. "## 5." */
	const struct field *fields; /* a layout table, or */
	const struct value *values; /* a value table */
	size_t count;
	size_t seen;                /* rows matched so far */
	int found;
};

static struct table tables[] = {
	{ "## 5. ", header_fields, NULL, COUNT(header_fields), 0, 0 },
	{ "### 5.1 ", session_fields, NULL, COUNT(session_fields), 0, 0 },
	{ "## 7. ", slot_fields, NULL, COUNT(slot_fields), 0, 0 },
	{ "## 8. ", NULL, event_types, COUNT(event_types), 0, 0 },
	{ "### 14.1 ", NULL, stages, COUNT(stages), 0, 0 },
	{ "### 14.2 ", NULL, event_types, COUNT(event_types), 0, 0 },
	{ "### 14.3 ", NULL, errors, COUNT(errors), 0, 0 },
	{ "### 14.4 ", NULL, marks, COUNT(marks), 0, 0 },
	{ "### 14.5 ", NULL, delegates, COUNT(delegates), 0, 0 },
	{ "### 14.6 ", NULL, actions, COUNT(actions), 0, 0 },
	{ "### 14.7 ", NULL, advices, COUNT(advices), 0, 0 },
	{ "### 14.8 ", NULL, payload_classes, COUNT(payload_classes), 0, 0 },
	{ "### 14.9 ", NULL, cache_ops, COUNT(cache_ops), 0, 0 },
	{ "### 14.10 ", NULL, scenarios, COUNT(scenarios), 0, 0 },
	{ "### 14.11 ", NULL, memory_sources, COUNT(memory_sources), 0, 0 },
	{ "### 14.12 ", NULL, graphics_sources, COUNT(graphics_sources), 0, 0 },
	{ "### 14.13 ", NULL, pressure_sources, COUNT(pressure_sources), 0, 0 },
};

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "docs-format: ");                     \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			failures++;                                           \
		}                                                             \
	} while (0)

/* Split a table row "| a | b \| c | d |" into trimmed cells, in place. */
static int split_row(char *line, char **cells, int max)
{
	char *p = line, *start;
	int n = 0;

	if (*p != '|')
		return 0;
	p++;
	start = p;
	for (; *p && *p != '\n'; p++) {
		if (*p == '\\' && p[1] == '|') {
			p++;
			continue;
		}
		if (*p != '|')
			continue;
		*p = '\0';
		if (n < max) {
			char *s = start, *e = p;

			while (*s == ' ')
				s++;
			while (e > s && e[-1] == ' ')
				e--;
			*e = '\0';
			cells[n++] = s;
		}
		start = p + 1;
	}
	return n;
}

/* "`open_count[8]`" -> "open_count"; returns 0 when the cell holds no name. */
static int cell_name(const char *cell, char *out, size_t len)
{
	size_t i = 0;

	if (*cell == '`')
		cell++;
	while (*cell && *cell != '`' && *cell != '[' && i + 1 < len)
		out[i++] = *cell++;
	out[i] = '\0';
	return i > 0 && (isalpha((unsigned char)out[0]) || out[0] == '_');
}

static void check_layout_row(struct table *t, char **cells, int n, int lineno)
{
	char name[64];
	const struct field *f;
	long offset, size;
	char *end;

	offset = strtol(cells[0], &end, 10);
	if (n < 3 || *end != '\0')
		return; /* the heading row */
	if (!cell_name(cells[2], name, sizeof(name))) {
		/* The zero tail of the header page: "512 | header_size − 512 | —". */
		CHECK(t->fields == header_fields && (size_t)offset == sizeof(struct lw_ring_header),
		      "line %d: unnamed row at offset %ld", lineno, offset);
		return;
	}
	size = strtol(cells[1], &end, 10);
	CHECK(*end == '\0', "line %d: size of %s is not a number: '%s'", lineno, name, cells[1]);
	if (t->seen >= t->count) {
		CHECK(0, "line %d: field %s is not in the struct", lineno, name);
		return;
	}
	f = &t->fields[t->seen++];
	CHECK(strcmp(f->name, name) == 0, "line %d: field %s where the struct has %s", lineno,
	      name, f->name);
	CHECK((size_t)offset == f->offset, "line %d: %s at offset %ld, the struct has %zu",
	      lineno, name, offset, f->offset);
	CHECK((size_t)size == f->size, "line %d: %s is %ld bytes, the struct has %zu", lineno,
	      name, size, f->size);
}

static void check_value_row(struct table *t, char **cells, int n, int lineno)
{
	char name[64];
	const struct value *v;
	const char *cell_of_name;
	long value;
	char *end;

	if (n < 1)
		return;
	value = strtol(cells[0], &end, 10);
	if (end == cells[0])
		return; /* the heading row */
	/* "1 `open`" (the event table) or "1" then "`open`" (value tables). */
	while (*end == ' ')
		end++;
	cell_of_name = *end ? end : (n > 1 ? cells[1] : "");
	if (!cell_name(cell_of_name, name, sizeof(name))) {
		CHECK(0, "line %d: no name for value %ld", lineno, value);
		return;
	}
	if (t->seen >= t->count) {
		CHECK(0, "line %d: %s = %ld is not in vocab.h", lineno, name, value);
		return;
	}
	v = &t->values[t->seen++];
	CHECK(strcmp(v->name, name) == 0 && v->value == value,
	      "line %d: %ld %s where vocab.h has %d %s", lineno, value, name, v->value, v->name);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static int count_occurrences(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

int main(int argc, char **argv)
{
	static const unsigned char zeros[LW_SLOT_PAYLOAD_SIZE];
	struct table *cur = NULL;
	char *doc, *line, *next, *cells[8];
	char rule[16], magic_hex[64];
	size_t i;
	int lineno = 0, n;

	if (argc != 2) {
		fprintf(stderr, "usage: docs-format ring-format.md\n");
		return T_FAIL;
	}
	doc = slurp(argv[1]);
	if (!doc) {
		fprintf(stderr, "docs-format: cannot read '%s'\n", argv[1]);
		return T_FAIL;
	}

	/* Text checks first, on the whole document. */
	for (i = 1; i <= 12; i++) {
		snprintf(rule, sizeof(rule), "**R%zu (", i);
		CHECK(count_occurrences(doc, rule) == 1, "rule R%zu is defined %d times", i,
		      count_occurrences(doc, rule));
	}
	n = 0;
	for (i = 0; i < LW_RING_MAGIC_LEN; i++)
		n += snprintf(magic_hex + n, sizeof(magic_hex) - (size_t)n, "%s%02X", i ? " " : "",
			      (unsigned char)LW_RING_MAGIC[i]);
	CHECK(strstr(doc, magic_hex) != NULL, "the magic bytes '%s' are not quoted", magic_hex);
	CHECK(crc32c(0, "123456789", 9) == 0xE3069283u && strstr(doc, "0xE3069283"),
	      "CRC32C check value");
	CHECK(crc32c_slot(0, zeros) == 0x5A0B0531u && strstr(doc, "0x5A0B0531"),
	      "slot crc example");
	CHECK(crc32c(0, zeros, sizeof(zeros)) != 0 &&
		      crc32c_slot(0, zeros) == crc32c(crc32c(0, zeros, 8), zeros, 52),
	      "slot crc is the CRC32C of the ticket bytes, then the payload");
	CHECK(digest_name("") == 0xcbf29ce484222325u && strstr(doc, "`\"\"` → `cbf29ce484222325`"),
	      "digest of the empty name");
	CHECK(digest_name("a") == 0xaf63dc4c8601ec8cu && strstr(doc, "`\"a\"` → `af63dc4c8601ec8c`"),
	      "digest of \"a\"");
	CHECK(digest_name("mobilenet-v3-int8") == 0xbc581f6ce2f84816u &&
		      strstr(doc, "`\"mobilenet-v3-int8\"` → `bc581f6ce2f84816`"),
	      "digest of \"mobilenet-v3-int8\"");
	CHECK(strstr(doc, "bytes `[0, 252)`") && LW_RING_HEADER_CRC_SPAN == 252,
	      "header crc span");

	/* Then the tables, line by line. */
	for (line = doc; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#') {
			cur = NULL;
			for (i = 0; i < COUNT(tables); i++) {
				if (strncmp(line, tables[i].heading, strlen(tables[i].heading)) == 0) {
					cur = &tables[i];
					cur->found = 1;
				}
			}
			continue;
		}
		if (!cur || line[0] != '|')
			continue;
		n = split_row(line, cells, (int)COUNT(cells));
		if (cur->fields)
			check_layout_row(cur, cells, n, lineno);
		else
			check_value_row(cur, cells, n, lineno);
	}
	for (i = 0; i < COUNT(tables); i++) {
		CHECK(tables[i].found, "no section '%s'", tables[i].heading);
		CHECK(tables[i].seen == tables[i].count, "section '%s' has %zu rows, the code %zu",
		      tables[i].heading, tables[i].seen, tables[i].count);
	}
	free(doc);
	if (failures) {
		fprintf(stderr, "docs-format: %d mismatches between %s and the code\n", failures,
			argv[1]);
		return T_FAIL;
	}
	printf("docs-format: %s matches ring.h and vocab.h\n", argv[1]);
	return T_PASS;
}
