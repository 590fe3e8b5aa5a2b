/* Loading a bundle: walk the inputs, detect each file, load runs and evidence. */
#include "bundle.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lastwords/ring.h>

#include "../src/vocab.h"
#include "correlate.h"
#include "evidence/bugreport.h"
#include "evidence/input.h"
#include "evidence/json.h"
#include "evidence/parsers.h"
#include "evidence/zipfile.h"
#include "format.h"

/* A file read so far: the hash and length of its bytes, to tell a copy. */
struct seen {
	uint64_t hash;
	uint64_t len;
	size_t input; /* into b->inputs */
};

/* One bundle_load(). */
struct loader {
	struct bundle *b;
	struct seen *seen;
	size_t nseen;
	char *real_root; /* the directory being walked, resolved; NULL for a file */
	size_t root_len; /* of that input as given */
	/* the bug report being read (into b->bugreports), -1 when none;
	 * when it is unzipped, its directory and its main text's name (NULL
	 * when main_entry.txt names none) */
	long br;
	const char *br_dir;
	size_t br_len;
	char *br_main;
};

static struct bundle_input *add_input(struct bundle *b, const char *path)
{
	struct bundle_input *nv = ev_grow((void **)&b->inputs, b->ninputs, sizeof(*nv));

	if (!nv)
		return NULL;
	memset(nv, 0, sizeof(*nv));
	nv->path = strdup(path);
	if (!nv->path)
		return NULL;
	b->ninputs++;
	return nv;
}

static int add_run(struct bundle *b, struct run *r)
{
	struct run *nv = ev_grow((void **)&b->runs, b->nruns, sizeof(*nv));

	if (!nv)
		return -1;
	*nv = *r;
	b->nruns++;
	return 0;
}

/* An input left out, and why. Returns 0, or -1 on ENOMEM. */
static int skip_input(struct bundle *b, const char *path, const char *why)
{
	struct bundle_input *in = add_input(b, path);

	if (!in)
		return -1;
	snprintf(in->skipped, sizeof(in->skipped), "%s", why);
	return 0;
}

/* The main text of a bug report at path is not a file that can be read
 * (why): the bug report's error, as when its zip entry cannot be read, not
 * a file left out. 0, or -1 on ENOMEM. */
static int main_unreadable(struct bundle *b, const char *path, const char *why)
{
	struct bundle_input *in = add_input(b, path);

	if (!in)
		return -1;
	snprintf(in->error, sizeof(in->error), "the bug report's main text cannot be read: %s",
		 why);
	return 0;
}

/* The input that holds a run read from path: the one read, not a copy. */
static struct bundle_input *input_of(struct bundle *b, const char *path)
{
	size_t i;

	for (i = 0; i < b->ninputs; i++)
		if (!b->inputs[i].skipped[0] && strcmp(b->inputs[i].path, path) == 0)
			return &b->inputs[i];
	return NULL;
}

/* in repeats the input read from path: left out, with why. 0, or -1 on
 * ENOMEM. */
static int mark_duplicate(struct bundle_input *in, const char *path, const char *why)
{
	free(in->duplicate_of);
	in->duplicate_of = strdup(path);
	if (!in->duplicate_of)
		return -1;
	snprintf(in->skipped, sizeof(in->skipped), "%s", why);
	return 0;
}

static int same_run(const struct run *x, const struct run *y)
{
	static const uint8_t zero[16];

	return memcmp(x->hdr.run_id, zero, sizeof(zero)) != 0 &&
	       memcmp(x->hdr.run_id, y->hdr.run_id, sizeof(zero)) == 0;
}

/* Whether x holds more of its run than y: more records, or as many and a
 * newer last one. */
static int more_records(const struct run *x, const struct run *y)
{
	if (x->nevents != y->nevents)
		return x->nevents > y->nevents;
	return x->nevents && run_event_ticket(&x->events[x->nevents - 1]) >
				      run_event_ticket(&y->events[y->nevents - 1]);
}

/* Add a run, once: of two rings of the same run (the same ring under two
 * names, two pulls of a live ring), the one with more records stays, the
 * first on a tie, and the other's input says so. -1 on ENOMEM (r is then
 * released). */
static int add_run_once(struct bundle *b, struct bundle_input *in, struct run *r)
{
	struct bundle_input *other;
	struct run *kept;
	char why[160], id[40];
	size_t i;
	int rc;

	for (i = 0; i < b->nruns && !same_run(&b->runs[i], r); i++)
		;
	if (i == b->nruns) {
		if (add_run(b, r) == 0)
			return 0;
		run_release(r);
		return -1;
	}
	kept = &b->runs[i];
	fmt_id128(id, sizeof(id), r->hdr.run_id);
	snprintf(why, sizeof(why), "the same run as another input (run id %s): counted once", id);
	if (more_records(r, kept)) {
		other = input_of(b, kept->path);
		rc = other ? mark_duplicate(other, r->path, why) : 0;
		run_release(kept);
		*kept = *r;
		return rc;
	}
	rc = mark_duplicate(in, kept->path, why);
	run_release(r);
	return rc;
}

static int add_file(struct bundle *b, struct ev_file *f)
{
	struct ev_file *nv = ev_grow((void **)&b->files, b->nfiles, sizeof(*nv));

	if (!nv)
		return -1;
	*nv = *f;
	b->nfiles++;
	return 0;
}

/* 64-bit digest of bytes, eight at a time (little-endian words), then
 * finished by mix64 in bundle_load. Not cryptographic: it tells the same
 * bundle ingested twice, not an attacker's collision. */
static uint64_t mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	h ^= h >> 33;
	return h;
}

/* The digest of bytes that come in pieces: hasher_add() them in order,
 * then hasher_end() gives what hash_bytes() gives of them all at once. */
struct hasher {
	uint64_t h;
	unsigned char tail[8]; /* the bytes of a word not complete yet */
	size_t ntail;
};

static void hasher_word(struct hasher *x, const unsigned char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	x->h ^= w * 0x9e3779b97f4a7c15u;
	x->h = ((x->h << 27) | (x->h >> 37)) * 0x87c37b91114253d5u;
}

static void hasher_add(struct hasher *x, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n && x->ntail) {
		x->tail[x->ntail++] = *s++;
		n--;
		if (x->ntail == 8) {
			hasher_word(x, x->tail);
			x->ntail = 0;
		}
	}
	for (; n >= 8; s += 8, n -= 8)
		hasher_word(x, s);
	memcpy(x->tail + x->ntail, s, n);
	x->ntail += n;
}

static uint64_t hasher_end(const struct hasher *x)
{
	uint64_t w = 0, h = x->h;

	memcpy(&w, x->tail, x->ntail);
	h ^= (w + x->ntail) * 0x9e3779b97f4a7c15u;
	return ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fu;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	struct hasher x = { h, { 0 }, 0 };

	hasher_add(&x, p, n);
	return hasher_end(&x);
}

/* A file's own bytes, to tell a copy within one load (never kept): four
 * lanes of hasher_word, 32 bytes at a time, so that their chains overlap. */
struct lanes {
	struct hasher lane[4];
	unsigned char tail[32]; /* the bytes of a block not complete yet */
	size_t ntail;
};

static void lanes_block(struct lanes *x, const unsigned char *s)
{
	hasher_word(&x->lane[0], s);
	hasher_word(&x->lane[1], s + 8);
	hasher_word(&x->lane[2], s + 16);
	hasher_word(&x->lane[3], s + 24);
}

static void lanes_add(struct lanes *x, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t k;

	if (x->ntail) {
		k = 32 - x->ntail < n ? 32 - x->ntail : n;
		memcpy(x->tail + x->ntail, s, k);
		x->ntail += k;
		s += k;
		n -= k;
		if (x->ntail < 32)
			return;
		lanes_block(x, x->tail);
		x->ntail = 0;
	}
	for (; n >= 32; s += 32, n -= 32)
		lanes_block(x, s);
	memcpy(x->tail, s, n);
	x->ntail = n;
}

static uint64_t lanes_end(const struct lanes *x)
{
	struct hasher h = { x->lane[0].h, { 0 }, 0 };
	uint64_t w[3] = { x->lane[1].h, x->lane[2].h, x->lane[3].h };

	hasher_add(&h, w, sizeof(w));
	hasher_add(&h, x->tail, x->ntail);
	return hasher_end(&h);
}

static void copy_string(const cJSON *o, const char *key, char *out, size_t size)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	if (cJSON_IsString(v))
		snprintf(out, size, "%s", v->valuestring);
}

static char *dup_string(const cJSON *o, const char *key)
{
	const char *v = json_get_string(o, key);

	return strdup(v ? v : "");
}

/* Whether the manifest's entry x is one already in b->missing (two pulls
 * that lack the same thing). */
static int missing_known(const struct bundle *b, const cJSON *x)
{
	const char *what = json_get_string(x, "what"), *reason = json_get_string(x, "reason");
	size_t i;

	for (i = 0; i < b->nmissing; i++)
		if (strcmp(b->missing[i].what, what ? what : "") == 0 &&
		    strcmp(b->missing[i].reason, reason ? reason : "") == 0 &&
		    b->missing[i].required == cJSON_IsTrue(cJSON_GetObjectItem(x, "required")))
			return 1;
	return 0;
}

/* The manifest's "missing" list, after those of manifests read before,
 * each entry once. -1 on ENOMEM. */
static int add_missing(struct bundle *b, const cJSON *list)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, list) {
		struct bundle_missing *nv;

		if (missing_known(b, x))
			continue;
		nv = ev_grow((void **)&b->missing, b->nmissing, sizeof(*nv));
		if (!nv)
			return -1;
		nv->what = dup_string(x, "what");
		nv->reason = dup_string(x, "reason");
		nv->required = cJSON_IsTrue(cJSON_GetObjectItem(x, "required"));
		b->nmissing++;
		if (!nv->what || !nv->reason)
			return -1;
	}
	return 0;
}

/* z, from a zone's name (NULL or empty when none) and the offset its
 * source saw (have_offset): the name gives each date its offset; the
 * offset stands in for a name that this system does not know. */
static void zone_set(struct bundle_zone *z, const char *name, int have_offset, int64_t offset_ms)
{
	int rc;

	memset(z, 0, sizeof(*z));
	rc = name && *name ? tz_parse(name, &z->tz, z->why, sizeof(z->why)) : TZ_UNKNOWN;
	if (rc == 0) {
		z->known = 1;
		return;
	}
	if (rc == TZ_UNKNOWN)
		z->why[0] = '\0';
	if (name && *name)
		snprintf(z->unknown, sizeof(z->unknown), "%s", name);
	z->tz.offset_ms = offset_ms;
	z->known = have_offset;
}

/* The zone and the device of manifest m, for the bundle. */
static void manifest_identity(struct bundle *b, const cJSON *m)
{
	const cJSON *dev = cJSON_GetObjectItem(m, "device");
	const char *offset = json_get_string(m, "tz_offset");
	int64_t off = 0;
	int have_offset = offset && tz_parse_offset(offset, &off) == 0;
	char sdk[24] = "", *end = NULL;

	zone_set(&b->zone, json_get_string(m, "timezone"), have_offset, off);
	b->device_model[0] = b->manufacturer[0] = b->android_version[0] = b->fingerprint[0] = '\0';
	copy_string(dev, "model", b->device_model, sizeof(b->device_model));
	copy_string(dev, "manufacturer", b->manufacturer, sizeof(b->manufacturer));
	copy_string(dev, "android_version", b->android_version, sizeof(b->android_version));
	copy_string(dev, "fingerprint", b->fingerprint, sizeof(b->fingerprint));
	b->sdk = 0;
	copy_string(dev, "sdk", sdk, sizeof(sdk));
	if (sdk[0] && strtoll(sdk, &end, 10) > 0 && *end == '\0')
		b->sdk = strtoll(sdk, NULL, 10);
	b->scenario_name[0] = '\0';
	copy_string(m, "scenario", b->scenario_name, sizeof(b->scenario_name));
	b->scenario = b->scenario_name[0] ? vocab_value(&vocab_scenarios, b->scenario_name) : 0;
}

/* The manifest of a pull describes the bundle; it is not evidence. Keep its
 * path and what it says is missing; the time-zone offset and device of the
 * first one nearest the top of its input (rel, the path below it). Returns
 * 1 for a manifest, or for an object that JSON refuses (json_read(): a
 * \u0000, bad UTF-8, too deep), kept as an input with that error; 0 for
 * any other file (one named manifest.json that cannot be read as one is
 * read as evidence, and gets its error there); -1 on ENOMEM. */
static int is_manifest(struct bundle *b, const char *path, const char *rel)
{
	const char *base = strrchr(path, '/');
	struct ev_error err;
	struct input src;
	char **nv, *text;
	size_t len, depth;
	cJSON *m;
	int rc = 1;

	if (strcmp(base ? base + 1 : path, "manifest.json") != 0)
		return 0;
	if (input_init_file(&src, path, &err) != 0)
		return 0;
	text = input_whole(&src, INPUT_JSON_MAX, INPUT_JSON_LIMIT, &len, &err);
	input_release(&src);
	m = text ? json_read(text, len, 0, &err) : NULL;
	if (!m && text && err.line && text[strspn(text, " \t\r\n")] == '{') {
		/* an object that JSON refuses: the manifest's own error,
		 * not "unknown kind" */
		struct bundle_input *in = add_input(b, path);

		free(text);
		if (!in)
			return -1;
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		in->error_line = err.line;
		return 1;
	}
	free(text);
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return 0;
	}
	nv = ev_grow((void **)&b->manifests, b->nmanifests, sizeof(*nv));
	if (!nv || !(*nv = strdup(path))) {
		cJSON_Delete(m);
		return -1;
	}
	for (depth = 0; *rel; rel++)
		depth += *rel == '/';
	if (b->nmanifests++ == 0 || depth < b->manifest_depth) {
		char *first = b->manifests[b->nmanifests - 1];

		memmove(b->manifests + 1, b->manifests, (b->nmanifests - 1) * sizeof(*b->manifests));
		b->manifests[0] = first;
		b->manifest_depth = depth;
		manifest_identity(b, m);
	}
	if (cJSON_IsFalse(cJSON_GetObjectItem(m, "complete")))
		b->complete = 0;
	if (add_missing(b, cJSON_GetObjectItem(m, "missing")) != 0)
		rc = -1;
	cJSON_Delete(m);
	return rc;
}

/* What a file holds, read before it is known whether it repeats a file
 * read before: a run (a ring, or the seed's events), evidence, a blank
 * ring, or the error that stopped it. */
struct content {
	struct run run;
	int have_run;
	struct ev_file file;
	int have_file;
	int blank;
	uint32_t blank_slots; /* of a blank ring: the slots its file has room for */
	char error[240];
	size_t error_line;
};

/* A ring, binary or as dump --json lines. Returns -1 on ENOMEM only. */
static int read_run(struct content *c, const char *path, struct input *src, int binary)
{
	struct ev_error err = { 0, "" };
	struct ring_error rerr;

	if (binary) {
		if (run_load_ring(path, &c->run, &rerr) != 0) {
			snprintf(c->error, sizeof(c->error), "%s", rerr.reason);
			return 0;
		}
	} else if (run_load_json(path, src, &c->run, &err) != 0) {
		snprintf(c->error, sizeof(c->error), "%s", err.reason);
		c->error_line = err.line;
		return 0;
	}
	if (c->run.outcome == RING_OUTCOME_BLANK) {
		c->blank = 1;
		c->blank_slots = c->run.scan.slot_count;
		run_release(&c->run);
		return 0;
	}
	c->have_run = 1;
	return 0;
}

/* Evidence: parse it; the seed's events also become a ring-less run.
 * Returns -1 on ENOMEM only: a parse failure is the input's error. */
static int read_evidence(struct content *c, enum ev_kind kind, const char *path,
			 struct input *src)
{
	struct ev_error err = { 0, "" };

	if (ev_parse(kind, src, &c->file, &err) != 0 ||
	    (kind == EV_KIND_SEED_EVENTS && run_from_seed(path, &c->file, &c->run, &err) != 0)) {
		snprintf(c->error, sizeof(c->error), "%s", err.reason);
		c->error_line = err.line;
		ev_file_release(&c->file);
		return 0;
	}
	c->have_run = kind == EV_KIND_SEED_EVENTS;
	c->file.path = strdup(path);
	c->file.gzipped = src->gzipped;
	c->have_file = 1;
	return c->file.path ? 0 : -1;
}

static void content_release(struct content *c)
{
	if (c->have_run)
		run_release(&c->run);
	if (c->have_file)
		ev_file_release(&c->file);
	memset(c, 0, sizeof(*c));
}

/* What in's file holds joins the bundle. -1 on ENOMEM (c is released). */
static int add_content(struct bundle *b, struct bundle_input *in, struct content *c)
{
	snprintf(in->error, sizeof(in->error), "%s", c->error);
	in->error_line = c->error_line;
	if (c->blank)
		in->note = ring_blank_text(c->blank_slots);
	if (c->have_file && add_file(b, &c->file) != 0)
		goto fail;
	c->have_file = 0;
	if (c->have_run && (in->kind == EV_KIND_SEED_EVENTS ? add_run(b, &c->run)
							    : add_run_once(b, in, &c->run)) != 0) {
		c->have_run = in->kind == EV_KIND_SEED_EVENTS; /* add_run_once released it */
		goto fail;
	}
	c->have_run = 0;
	return 0;
fail:
	content_release(c);
	return -1;
}

/* A file's bytes, as they are read: what the bundle's digest and the copy
 * check see. */
struct file_hash {
	struct hasher digest;  /* the bundle's, from the files before */
	struct lanes content;  /* the file's own */
	uint64_t len;
};

/* A piece of a bug report (new with them, so free to be cheaper): its
 * bytes' own hash, which the bundle's digest then takes in (piece_digest). */
static void content_tap(void *arg, const char *p, size_t n)
{
	struct file_hash *fh = arg;

	lanes_add(&fh->content, p, n);
	fh->len += n;
}

static uint64_t piece_digest(const struct file_hash *fh)
{
	uint64_t words[2] = { lanes_end(&fh->content), fh->len };

	return hash_bytes(hasher_end(&fh->digest), words, sizeof(words));
}

static void hash_tap(void *arg, const char *p, size_t n)
{
	struct file_hash *fh = arg;

	hasher_add(&fh->digest, p, n);
	lanes_add(&fh->content, p, n);
	fh->len += n;
}

/* Whether what fh saw repeats a file read before (two pulls of one device
 * given together: one witness, not two): then inputs[i] is left out as a
 * copy (1); else it is noted (0). -1 on ENOMEM. */
static int copy_of_seen(struct loader *ld, size_t i, const struct file_hash *fh)
{
	uint64_t hash = mix64(lanes_end(&fh->content));
	struct bundle *b = ld->b;
	struct seen *nv;
	size_t k;

	for (k = 0; k < ld->nseen; k++)
		if (ld->seen[k].hash == hash && ld->seen[k].len == fh->len)
			return mark_duplicate(&b->inputs[i], b->inputs[ld->seen[k].input].path,
					      "the same bytes as another input: read once") == 0
				       ? 1
				       : -1;
	nv = ev_grow((void **)&ld->seen, ld->nseen, sizeof(*nv));
	if (!nv)
		return -1;
	*nv = (struct seen){ hash, fh->len, i };
	ld->nseen++;
	return 0;
}

/* How a stream is loaded (load_stream). */
enum load_as {
	LOAD_FILE,    /* a file of the inputs, outside any bug report */
	LOAD_MAIN,    /* a bug report's main text */
	LOAD_ENTRY,   /* a file of a bug report's FS/data/tombstones or FS/data/anr */
	LOAD_SECTION, /* a section of a main text, of a kind it names */
};

static int load_stream(struct loader *ld, size_t i, struct input *src, const char *rel,
		       enum load_as as, enum ev_kind kind);

/* --- bug reports (DESIGN.md, "Inputs"; evidence/bugreport.h) --- */

/* "A" SEP "B" (free it): "DIR/NAME", or "PREFIX:NAME", the name of a
 * piece of a bug report (a zip's entry, a section of its text). NULL on
 * ENOMEM. */
static char *join(const char *a, char sep, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%c%s", a, sep, b);
	return p;
}

/* Add an input named prefix:name; its index, or -1 on ENOMEM. */
static long add_piece_input(struct bundle *b, const char *prefix, const char *name)
{
	char *path = join(prefix, ':', name);
	struct bundle_input *in = path ? add_input(b, path) : NULL;

	free(path);
	return in ? (long)(b->ninputs - 1) : -1;
}

/* A new bug report read from path: its index, or -1 on ENOMEM. */
static long add_bugreport(struct bundle *b, const char *path)
{
	struct bundle_bugreport *nv =
		ev_grow((void **)&b->bugreports, b->nbugreports, sizeof(*nv));

	if (!nv)
		return -1;
	memset(nv, 0, sizeof(*nv));
	nv->path = strdup(path);
	if (!nv->path)
		return -1;
	return (long)b->nbugreports++;
}

/* An entry of bug report br that holds no evidence, listed. -1 on ENOMEM. */
static int add_unread(struct bundle *b, long br, const char *name)
{
	struct bundle_bugreport *r = &b->bugreports[br];
	char **nv = ev_grow((void **)&r->unread, r->nunread, sizeof(*nv));

	if (!nv || !(*nv = strdup(name)))
		return -1;
	r->nunread++;
	return 0;
}

/* Where a load stood, to go back to when what came after it must not be
 * kept (a bug report's text that could not be read to its end). */
struct mark {
	size_t ninputs, nfiles, nruns, nseen;
	uint64_t digest;
};

static struct mark mark_of(const struct loader *ld)
{
	struct mark m = { ld->b->ninputs, ld->b->nfiles, ld->b->nruns, ld->nseen, ld->b->digest };

	return m;
}

static void back_to(struct loader *ld, const struct mark *m)
{
	struct bundle *b = ld->b;

	while (b->nfiles > m->nfiles)
		ev_file_release(&b->files[--b->nfiles]);
	while (b->nruns > m->nruns)
		run_release(&b->runs[--b->nruns]);
	while (b->ninputs > m->ninputs) {
		b->ninputs--;
		free(b->inputs[b->ninputs].path);
		free(b->inputs[b->ninputs].duplicate_of);
	}
	ld->nseen = m->nseen;
	b->digest = m->digest;
}

/*
 * A bug report's main text at inputs[i], whose bytes src gives: each piece
 * of evidence becomes an input of its own, "TEXT:SECTION", read by its
 * parser as the text is read; the text itself is a file with no records,
 * for its counts. A text given alone is a bug report of its own. When the
 * text cannot be read to its end (a damaged zip entry), none of its pieces
 * is kept. -1 on ENOMEM only.
 */
static int load_text(struct loader *ld, size_t i, struct input *src, const char *rel,
		     const struct file_hash *fh)
{
	struct bundle *b = ld->b;
	struct mark m = mark_of(ld);
	struct bugreport_reader r;
	struct bugreport_piece p;
	struct bugreport_info info;
	struct ev_file f = { 0 };
	long outer = ld->br, k;
	int rc = 0;
	char *prel;

	if (outer < 0 && (ld->br = add_bugreport(b, b->inputs[i].path)) < 0) {
		ld->br = outer;
		return -1;
	}
	bugreport_init(&r, src);
	while (rc == 0 && bugreport_next(&r, &p) > 0) {
		size_t nfiles = b->nfiles;

		k = add_piece_input(b, b->inputs[i].path, p.title);
		prel = k < 0 ? NULL : join(rel, ':', p.title);
		rc = prel ? load_stream(ld, (size_t)k, p.in, prel, LOAD_SECTION, p.kind) : -1;
		free(prel);
		if (rc == 0 && b->nfiles > nfiles)
			bugreport_date_logs(&r, &b->files[b->nfiles - 1]);
	}
	if (rc == 0)
		input_drain(src); /* to the end, whose check (a zip entry's CRC) may fail */
	if (rc == 0 && src->failed) {
		back_to(ld, &m);
		snprintf(b->inputs[i].error, sizeof(b->inputs[i].error), "%s", src->err.reason);
		b->inputs[i].error_line = src->lineno; /* where the reading stopped */
		b->inputs[i].kind = EV_KIND_UNKNOWN;
	} else if (rc == 0 && (rc = copy_of_seen(ld, i, fh)) == 1) {
		/* the same text read before: none of its pieces is kept */
		back_to(ld, &m);
		rc = 0;
	} else if (rc == 0) {
		b->digest = piece_digest(fh);
		bugreport_take_info(&r, &info);
		f.path = strdup(b->inputs[i].path);
		f.kind = EV_KIND_BUGREPORT;
		f.stats = info.stats;
		b->bugreports[ld->br].text = strdup(b->inputs[i].path);
		b->bugreports[ld->br].info = info;
		rc = f.path && b->bugreports[ld->br].text && add_file(b, &f) == 0 ? 0 : -1;
		if (rc != 0)
			free(f.path);
	}
	bugreport_release(&r);
	ld->br = outer;
	return rc;
}

/* The name main_entry.txt gives, read from in, into *name (free it): 0;
 * -1 with why set when it names none. */
static int read_main_entry(struct input *in, char **name, char *why, size_t len)
{
	struct ev_error err = { 0, "" };
	size_t n;
	char *text = input_whole(in, BUGREPORT_MAIN_ENTRY_MAX,
				 "the most that is read of main_entry.txt (a zip entry's name has at "
				 "most 65535 bytes)",
				 &n, &err);
	int rc;

	if (!text) {
		snprintf(why, len, "main_entry.txt cannot be read: %.200s", err.reason);
		return -1;
	}
	rc = bugreport_main_name(text, n, name, why, len);
	free(text);
	return rc;
}

/* The zip's main text: main_entry.txt's name, else the only
 * "bugreport*.txt" at the top (the zips of Android M). -1, with why set,
 * if none. */
static int64_t zip_main_entry(struct zipfile *z, char *why, size_t len)
{
	struct zipfile_entry e;
	struct ev_error err;
	struct input in;
	int64_t i = zipfile_find(z, BUGREPORT_MAIN_ENTRY), found = -1;
	char *name;
	size_t k;
	int rc;

	if (i >= 0) {
		if (zipfile_entry_open(z, (size_t)i, &e, &in, &err) != 0) {
			snprintf(why, len, "main_entry.txt cannot be read: %.200s", err.reason);
			return -1;
		}
		rc = read_main_entry(&in, &name, why, len);
		input_release(&in);
		zipfile_entry_close(&e);
		if (rc != 0)
			return -1;
		i = zipfile_find(z, name);
		if (i < 0)
			snprintf(why, len, "main_entry.txt names '%.160s', which the zip does not hold",
				 name);
		free(name);
		return i;
	}
	for (k = 0; k < zipfile_count(z); k++) {
		if (!bugreport_main_candidate(zipfile_name(z, k)))
			continue;
		if (found >= 0) {
			snprintf(why, len, "a zip archive with no main_entry.txt and more than one "
					   "bugreport*.txt: which is the bug report is not known");
			return -1;
		}
		found = (int64_t)k;
	}
	if (found < 0)
		snprintf(why, len, "a zip archive that holds no bug report: no main_entry.txt, no "
				   "bugreport*.txt");
	return found;
}

/* An entry of a zip, by name. */
struct zip_pick {
	const char *name;
	size_t index;
};

static int cmp_pick(const void *a, const void *b)
{
	return strcmp(((const struct zip_pick *)a)->name, ((const struct zip_pick *)b)->name);
}

/* One entry of a bug report zip, as inputs[i]. -1 on ENOMEM. */
static int load_entry(struct loader *ld, size_t i, struct zipfile *z, size_t entry,
		      const char *rel, enum load_as as)
{
	struct bundle_input *in = &ld->b->inputs[i];
	struct zipfile_entry e;
	struct ev_error err;
	struct input src;
	char *erel;
	int rc;

	if (zipfile_entry_open(z, entry, &e, &src, &err) != 0) {
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		return 0;
	}
	erel = join(rel, ':', zipfile_name(z, entry));
	rc = erel ? load_stream(ld, i, &src, erel, as, EV_KIND_UNKNOWN) : -1;
	free(erel);
	input_release(&src);
	zipfile_entry_close(&e);
	return rc;
}

/*
 * A zip archive at inputs[i] (rel: its path below its input): a bug
 * report, whose main text and FS/data/tombstones and FS/data/anr files are
 * read, in name order, as inputs "ZIP:ENTRY", each in memory as it is
 * inflated. An entry whose name could not be a path inside the archive is
 * named and never read; the other entries hold no evidence, and are
 * listed, not read. An archive that cannot be read at all, or is no bug
 * report, is the input's error. -1 on ENOMEM only.
 */
static int load_zip(struct loader *ld, size_t i, const char *rel)
{
	struct bundle *b = ld->b;
	struct ev_error err = { 0, "" };
	struct zipfile *z;
	struct zip_pick *pick;
	const char *main_name;
	size_t n, k;
	int64_t main_entry;
	char why[240];
	long j;
	int rc = 0;

	if (zipfile_open(b->inputs[i].path, &z, &err) != 0) {
		snprintf(b->inputs[i].error, sizeof(b->inputs[i].error), "%s", err.reason);
		return 0;
	}
	main_entry = zip_main_entry(z, why, sizeof(why));
	if (main_entry < 0) {
		snprintf(b->inputs[i].error, sizeof(b->inputs[i].error), "%s", why);
		zipfile_close(z);
		return 0;
	}
	main_name = zipfile_name(z, (size_t)main_entry);
	n = zipfile_count(z);
	pick = malloc((n + 1) * sizeof(*pick));
	ld->br = pick ? add_bugreport(b, b->inputs[i].path) : -1;
	if (ld->br < 0) {
		free(pick);
		zipfile_close(z);
		return -1;
	}
	for (k = 0; k < n; k++)
		pick[k] = (struct zip_pick){ zipfile_name(z, k), k };
	qsort(pick, n, sizeof(*pick), cmp_pick);
	for (k = 0; k < n && rc == 0; k++) {
		const char *problem = zipfile_name_problem(pick[k].name);
		enum bugreport_entry_role role = bugreport_entry(pick[k].name, main_name);

		if (problem) {
			j = add_piece_input(b, b->inputs[i].path, pick[k].name);
			if (j < 0)
				rc = -1;
			else
				snprintf(b->inputs[j].skipped, sizeof(b->inputs[j].skipped),
					 "an entry with %s: never read", problem);
		} else if (role == BUGREPORT_ENTRY_MAIN || role == BUGREPORT_ENTRY_EVIDENCE ||
			   role == BUGREPORT_ENTRY_PROTOBUF) {
			j = add_piece_input(b, b->inputs[i].path, pick[k].name);
			rc = j < 0 ? -1
				   : load_entry(ld, (size_t)j, z, pick[k].index, rel,
						role == BUGREPORT_ENTRY_MAIN ? LOAD_MAIN : LOAD_ENTRY);
		} else if (role != BUGREPORT_ENTRY_INDEX) {
			rc = add_unread(b, ld->br, pick[k].name);
		}
	}
	ld->br = -1;
	free(pick);
	zipfile_close(z);
	return rc;
}

/* The kinds a bug report's FS/ entry is not read as, and why. */
static const char *entry_problem(enum ev_kind kind)
{
	switch (kind) {
	case EV_KIND_UNKNOWN:
		return "holds nothing lastwords reads (unknown kind): not read";
	case EV_KIND_RING:
		return "a ring inside a bug report: not read";
	case EV_KIND_ZIP:
	case EV_KIND_BUGREPORT:
		return "a bug report inside a bug report: not read";
	default:
		return NULL;
	}
}

/* The bytes of inputs[i] as src gives them (a file, or a piece of a bug
 * report), read once, as a stream: detected from its first bytes (a
 * section's kind is the one its title names; a main text is one),
 * loaded, and hashed as it goes (rel: its name below the input it was
 * found under); a copy of what was read before is then left out. A piece
 * that fails to be read is an error of its own, as a file is: nothing of
 * it is kept. -1 on ENOMEM only. */
static int load_stream(struct loader *ld, size_t i, struct input *src, const char *rel,
		       enum load_as as, enum ev_kind kind)
{
	struct bundle *b = ld->b;
	struct bundle_input *in = &b->inputs[i];
	struct file_hash fh;
	struct content c;
	struct span head;
	const char *problem;
	size_t k;
	int rc, binary;

	memset(&fh, 0, sizeof(fh));
	memset(&c, 0, sizeof(c));
	fh.digest.h = hash_bytes(b->digest, rel, strlen(rel) + 1);
	for (k = 0; k < 4; k++)
		fh.content.lane[k].h = 0x6c61737477726473u + k;
	if (as != LOAD_SECTION)
		input_tap(src, as == LOAD_FILE ? hash_tap : content_tap, &fh);
	rc = input_head(src, &head);
	/* before detection reads on; an empty file that is a ring is a
	 * binary one (ev_detect_named()) */
	binary = rc == 0 && (run_is_binary(head) || head.n == 0);
	in->kind = rc != 0             ? EV_KIND_UNKNOWN
		   : as == LOAD_SECTION ? kind
		   : as == LOAD_MAIN    ? EV_KIND_BUGREPORT
		   : as == LOAD_FILE    ? ev_detect_named(src, in->path)
					: ev_detect(src);
	problem = as == LOAD_ENTRY && !src->failed ? entry_problem(in->kind) : NULL;
	if (problem) {
		snprintf(in->skipped, sizeof(in->skipped), "%s", problem);
		in->kind = EV_KIND_UNKNOWN;
		return 0;
	}
	if (!src->failed && in->kind == EV_KIND_ZIP) {
		/* its entries are inputs of their own, each hashed as it is read */
		input_tap(src, NULL, NULL);
		b->digest = hasher_end(&fh.digest);
		return load_zip(ld, i, rel);
	}
	if (!src->failed && in->kind == EV_KIND_BUGREPORT) {
		/* its sections are inputs of their own; its bytes are hashed as
		 * they come, in bulk */
		input_tap(src, content_tap, &fh);
		return load_text(ld, i, src, rel, &fh);
	}
	if (in->kind == EV_KIND_RING)
		rc = read_run(&c, in->path, src, binary);
	else if (in->kind != EV_KIND_UNKNOWN)
		rc = read_evidence(&c, in->kind, in->path, src);
	if (rc == 0)
		input_drain(src);
	if (as == LOAD_SECTION && c.have_file)
		c.file.stats.lines = input_lines(src); /* the text's are numbered from its own */
	if (src->failed) {
		/* Not read whole: nothing of it is kept. */
		snprintf(in->error, sizeof(in->error), "%s", src->err.reason);
		in->unopened = as == LOAD_FILE;
		if (as != LOAD_FILE)
			in->error_line = src->lineno; /* where the reading stopped */
		in->kind = EV_KIND_UNKNOWN;
		content_release(&c);
		return 0;
	}
	if (rc != 0) {
		content_release(&c);
		return -1;
	}
	if (as != LOAD_SECTION) {
		/* a section's bytes are its text's, hashed with them */
		b->digest = as == LOAD_FILE ? hasher_end(&fh.digest) : piece_digest(&fh);
		rc = copy_of_seen(ld, i, &fh);
		if (rc != 0) {
			content_release(&c);
			return rc < 0 ? -1 : 0;
		}
	}
	if (in->kind == EV_KIND_UNKNOWN)
		snprintf(c.error, sizeof(c.error), "unknown kind");
	return add_content(b, in, &c);
}

/* A file found under an input (rel: its path below it); as: how (a file
 * of an unzipped bug report is its main text or an entry). */
static int load_file(struct loader *ld, const char *path, const char *rel, enum load_as as)
{
	struct ev_error err = { 0, "" };
	struct bundle *b = ld->b;
	struct bundle_input *in;
	struct input src;
	int rc;

	rc = as == LOAD_FILE ? is_manifest(b, path, rel) : 0;
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	in = add_input(b, path);
	if (!in)
		return -1;
	if (input_init_file(&src, path, &err) != 0) {
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		in->unopened = 1;
		return 0;
	}
	rc = load_stream(ld, b->ninputs - 1, &src, rel, as, EV_KIND_UNKNOWN);
	input_release(&src);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether the resolved path real is the directory walked or below it. */
static int inside(const struct loader *ld, const char *real)
{
	size_t n;

	if (!ld->real_root)
		return 0;
	n = strlen(ld->real_root);
	if (n == 1) /* the root directory */
		return 1;
	return strncmp(real, ld->real_root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* Why a symbolic link found in the walk is not read, or NULL for a link to
 * a regular file inside the input, which is read. */
static const char *link_problem(const struct loader *ld, const char *path)
{
	char *real = realpath(path, NULL);
	const char *why = NULL;
	struct stat sb;

	if (!real || stat(real, &sb) != 0)
		why = "a symbolic link that leads nowhere: not read";
	else if (!inside(ld, real))
		why = "a symbolic link out of the input: not read";
	else if (S_ISDIR(sb.st_mode))
		why = "a symbolic link to a directory: not followed";
	else if (!S_ISREG(sb.st_mode))
		why = "a symbolic link to a file that is not regular: not read";
	free(real);
	return why;
}

#define WALK_DEPTH_MAX 16

/* What path, below the unzipped bug report being walked, is: its main
 * text and the files of FS/data/tombstones and FS/data/anr are read (and
 * the directories that lead to them walked: EVIDENCE), main_entry.txt was
 * read, the rest is listed and not read. */
static enum bugreport_entry_role br_role(const struct loader *ld, const char *path)
{
	const char *sub = path + ld->br_len + 1;

	if (strcmp(sub, "FS") == 0 || strcmp(sub, "FS/data") == 0 ||
	    strcmp(sub, "FS/data/tombstones") == 0 || strcmp(sub, "FS/data/anr") == 0)
		return BUGREPORT_ENTRY_EVIDENCE;
	return bugreport_entry(sub, ld->br_main);
}

/* If the directory at path is an unzipped bug report (it holds a regular
 * main_entry.txt), walk it as one from now on: 1 then, else 0; -1 on
 * ENOMEM. A main_entry.txt that names no file of it is its error. */
static int enter_bugreport(struct loader *ld, const char *path)
{
	struct ev_error err = { 0, "" };
	struct bundle_input *in;
	struct input src;
	struct stat sb;
	char *me = join(path, '/', BUGREPORT_MAIN_ENTRY), *main = NULL, why[240] = "";
	int rc = 1;

	if (!me)
		return -1;
	if (ld->br_dir || lstat(me, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		free(me);
		return 0;
	}
	ld->br = add_bugreport(ld->b, path);
	ld->br_dir = path;
	ld->br_len = strlen(path);
	ld->br_main = NULL;
	if (input_init_file(&src, me, &err) != 0)
		snprintf(why, sizeof(why), "main_entry.txt cannot be read: %.200s", err.reason);
	else if (read_main_entry(&src, &ld->br_main, why, sizeof(why)) == 0 &&
		 (main = join(path, '/', ld->br_main)) != NULL && lstat(main, &sb) != 0) {
		snprintf(why, sizeof(why), "main_entry.txt names '%.160s', which the directory "
					   "does not hold", ld->br_main);
		free(ld->br_main);
		ld->br_main = NULL;
	}
	input_release(&src);
	if (ld->br < 0 || (ld->br_main && !main)) {
		rc = -1;
	} else if (!ld->br_main) {
		in = add_input(ld->b, me);
		if (in)
			snprintf(in->error, sizeof(in->error), "%s", why);
		else
			rc = -1;
	}
	free(main);
	free(me);
	return rc;
}

/*
 * One input (depth 0), followed wherever it leads, or one entry of a
 * directory walked, which is lstat'ed: links, FIFOs, sockets and devices
 * are left out and named (a link to a regular file inside the input is
 * read), so the walk never leaves the input, never loops and never waits.
 * A manifest.json that is not a regular file is read, to be refused.
 */
static int load_path(struct loader *ld, const char *path, int depth)
{
	const char *base = strrchr(path, '/'), *rel;
	struct bundle *b = ld->b;
	struct stat sb;
	struct dirent *de;
	char **names = NULL, why[64];
	size_t n = 0, i;
	DIR *d;
	enum load_as as = LOAD_FILE;
	int rc = 0, bugreport;

	base = base ? base + 1 : path;
	rel = depth ? path + ld->root_len + 1 : base;
	if (ld->br_dir && depth > 0) {
		/* a file of an unzipped bug report */
		enum bugreport_entry_role role = br_role(ld, path);

		if (role == BUGREPORT_ENTRY_INDEX)
			return 0;
		if (role == BUGREPORT_ENTRY_OTHER) {
			char *name = lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)
					     ? join(path + ld->br_len + 1, '/', "")
					     : strdup(path + ld->br_len + 1);

			rc = name ? add_unread(b, ld->br, name) : -1;
			free(name);
			return rc;
		}
		as = role == BUGREPORT_ENTRY_MAIN ? LOAD_MAIN : LOAD_ENTRY;
	}
	if (depth == 0 ? stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) : lstat(path, &sb) != 0)
		return load_file(ld, path, rel, as);
	if (S_ISLNK(sb.st_mode)) {
		const char *problem = link_problem(ld, path);

		if (problem && as == LOAD_MAIN)
			return main_unreadable(b, path, problem);
		return problem ? skip_input(b, path, problem) : load_file(ld, path, rel, as);
	}
	if (!S_ISDIR(sb.st_mode)) {
		if (S_ISREG(sb.st_mode) || strcmp(base, "manifest.json") == 0)
			return load_file(ld, path, rel, as);
		snprintf(why, sizeof(why), "not a regular file: %s", input_not_regular(sb.st_mode));
		return as == LOAD_MAIN ? main_unreadable(b, path, why) : skip_input(b, path, why);
	}
	if (as == LOAD_MAIN)
		return main_unreadable(b, path, "a directory, not a text");
	if (depth > WALK_DEPTH_MAX)
		return skip_input(b, path, "a directory more than 16 levels down: not read");
	bugreport = enter_bugreport(ld, path);
	if (bugreport < 0)
		return -1;
	d = opendir(path);
	if (!d) {
		struct bundle_input *in = add_input(b, path);

		rc = in ? 0 : -1;
		if (in) {
			snprintf(in->error, sizeof(in->error), "%s", strerror(errno));
			in->unopened = 1;
		}
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		char **nv;

		/* Hidden files are read: a ring named .x.lwr is a ring. */
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		nv = ev_grow((void **)&names, n, sizeof(*nv));
		if (!nv || !(*nv = join(path, '/', de->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(d);
	if (n && rc == 0)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = load_path(ld, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
out:
	if (bugreport) {
		free(ld->br_main);
		ld->br_dir = NULL;
		ld->br_main = NULL;
		ld->br = -1;
	}
	return rc;
}

static int cmp_run(const void *a, const void *b)
{
	const struct run *x = a, *y = b;
	int c = strcmp(x->hdr.process, y->hdr.process);

	if (c)
		return c;
	return x->hdr.start_real_ns < y->hdr.start_real_ns ? -1
	       : x->hdr.start_real_ns > y->hdr.start_real_ns ? 1 : 0;
}

int bundle_load(char *const *paths, size_t npaths, struct bundle *b)
{
	struct loader ld = { b, NULL, 0, NULL, 0, -1, NULL, 0, NULL };
	struct stat sb;
	size_t i;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	b->complete = 1;
	for (i = 0; i < npaths && rc == 0; i++) {
		ld.root_len = strlen(paths[i]);
		/* Links found in a directory are judged against where it is. */
		ld.real_root = stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)
				       ? realpath(paths[i], NULL)
				       : NULL;
		rc = load_path(&ld, paths[i], 0);
		free(ld.real_root);
	}
	free(ld.seen);
	if (rc != 0) {
		bundle_release(b);
		return -1;
	}
	b->digest = mix64(b->digest);
	for (i = 0; i < b->nbugreports && !b->bugreports[i].text; i++)
		;
	if (i < b->nbugreports) {
		/* The first bug report read: its zone, and the device where no
		 * manifest names it. */
		const struct bugreport_info *info = &b->bugreports[i].info;

		zone_set(&b->bugreport_zone, info->zone, info->have_offset, info->offset_ms);
		if (!b->nmanifests) {
			snprintf(b->device_model, sizeof(b->device_model), "%s", info->model);
			snprintf(b->manufacturer, sizeof(b->manufacturer), "%s", info->manufacturer);
			snprintf(b->android_version, sizeof(b->android_version), "%s",
				 info->release);
			snprintf(b->fingerprint, sizeof(b->fingerprint), "%s", info->fingerprint);
			b->sdk = info->sdk > 0 ? info->sdk : 0;
		}
	}
	if (b->nruns > 1)
		qsort(b->runs, b->nruns, sizeof(*b->runs), cmp_run);
	return 0;
}

size_t bundle_errors(const struct bundle *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->ninputs; i++)
		n += b->inputs[i].error[0] != '\0';
	return n;
}

/* The last scenario mark of run r, or 0. */
static int scenario_mark(const struct run *r)
{
	int s = 0;
	size_t i;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].type == LW_EV_MARK && r->events[i].code == LW_MARK_SCENARIO &&
		    r->events[i].a < INT32_MAX)
			s = (int)r->events[i].a;
	return s;
}

int bundle_scenario(const struct bundle *b, const char **from)
{
	size_t k;
	int s;

	if (from)
		*from = NULL;
	if (b->scenario > 0) {
		if (from)
			*from = "manifest";
		return b->scenario;
	}
	for (k = 0; k < b->nruns; k++)
		if ((s = scenario_mark(&b->runs[k]))) {
			if (from)
				*from = "mark";
			return s;
		}
	return 0;
}

size_t bundle_exit_records(const struct bundle *b)
{
	size_t i, n = 0;

	for (i = 0; i < b->nfiles; i++)
		n += b->files[i].nexits;
	return n;
}

void bundle_release(struct bundle *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nruns; i++)
		run_release(&b->runs[i]);
	for (i = 0; i < b->nfiles; i++)
		ev_file_release(&b->files[i]);
	for (i = 0; i < b->ninputs; i++) {
		free(b->inputs[i].path);
		free(b->inputs[i].duplicate_of);
	}
	for (i = 0; i < b->nmanifests; i++)
		free(b->manifests[i]);
	for (i = 0; i < b->nmissing; i++) {
		free(b->missing[i].what);
		free(b->missing[i].reason);
	}
	for (i = 0; i < b->nbugreports; i++) {
		struct bundle_bugreport *r = &b->bugreports[i];
		size_t k;

		free(r->path);
		free(r->text);
		bugreport_info_release(&r->info);
		for (k = 0; k < r->nunread; k++)
			free(r->unread[k]);
		free(r->unread);
	}
	free(b->bugreports);
	free(b->runs);
	free(b->files);
	free(b->inputs);
	free(b->manifests);
	free(b->missing);
	memset(b, 0, sizeof(*b));
}
