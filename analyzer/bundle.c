/* Loading a bundle: walk the inputs, detect each file, load runs and evidence. */
#include "bundle.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lastwords/ring.h>

#include "correlate.h"
#include "evidence/input.h"
#include "evidence/json.h"
#include "evidence/parsers.h"
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

/* The zone and the device of manifest m, for the bundle. */
static void manifest_identity(struct bundle *b, const cJSON *m)
{
	const cJSON *dev = cJSON_GetObjectItem(m, "device");
	const char *name = json_get_string(m, "timezone");
	const char *offset = json_get_string(m, "tz_offset");

	b->have_tz = 0;
	b->tz_unknown[0] = '\0';
	/* The zone's name gives each date its offset; the offset the pull saw
	 * stands in for a name this system does not know. */
	if (name && tz_parse(name, &b->tz) == 0)
		b->have_tz = 1;
	else if (name)
		snprintf(b->tz_unknown, sizeof(b->tz_unknown), "%s", name);
	if (!b->have_tz && offset && tz_parse_offset(offset, &b->tz.offset_ms) == 0)
		b->have_tz = 1;
	b->device_model[0] = b->android_version[0] = b->fingerprint[0] = '\0';
	copy_string(dev, "model", b->device_model, sizeof(b->device_model));
	copy_string(dev, "android_version", b->android_version, sizeof(b->android_version));
	copy_string(dev, "fingerprint", b->fingerprint, sizeof(b->fingerprint));
}

/* The manifest of a pull describes the bundle; it is not evidence. Keep its
 * path and what it says is missing; the time-zone offset and device of the
 * first one nearest the top of its input (rel, the path below it). Returns
 * 1 for a manifest, 0 for any other file (one named manifest.json that
 * cannot be read as one is read as evidence, and gets its error there), -1
 * on ENOMEM. */
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
	text = input_whole(&src, INPUT_JSON_MAX, &len, &err);
	input_release(&src);
	m = text ? cJSON_ParseWithLength(text, len) : NULL;
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
		in->note = ring_blank_text;
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
	struct hasher content; /* the file's own */
	uint64_t len;
};

static void hash_tap(void *arg, const char *p, size_t n)
{
	struct file_hash *fh = arg;

	hasher_add(&fh->digest, p, n);
	hasher_add(&fh->content, p, n);
	fh->len += n;
}

/* rel: the path below the input it was found under. The file is read
 * once, as a stream: detected from its first bytes, loaded, and hashed as
 * it goes; a copy of a file read before is then left out. */
static int load_file(struct loader *ld, const char *path, const char *rel)
{
	struct ev_error err = { 0, "" };
	struct bundle *b = ld->b;
	struct bundle_input *in;
	struct file_hash fh;
	struct content c;
	struct input src;
	struct span head;
	struct seen *nv;
	uint64_t hash;
	size_t i;
	int rc, binary, proto;

	rc = is_manifest(b, path, rel);
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
	memset(&fh, 0, sizeof(fh));
	memset(&c, 0, sizeof(c));
	fh.digest.h = hash_bytes(b->digest, rel, strlen(rel) + 1);
	fh.content.h = 0x6c61737477726473u;
	input_tap(&src, hash_tap, &fh);
	rc = input_head(&src, &head);
	binary = rc == 0 && run_is_binary(head); /* before detection reads on */
	in->kind = rc == 0 ? ev_detect(&src) : EV_KIND_UNKNOWN;
	proto = in->kind == EV_KIND_UNKNOWN && rc == 0 && input_head(&src, &head) == 0 &&
		tombstone_proto_sniff(head.s, head.n);
	if (in->kind == EV_KIND_RING)
		rc = read_run(&c, path, &src, binary);
	else if (in->kind != EV_KIND_UNKNOWN)
		rc = read_evidence(&c, in->kind, path, &src);
	if (rc == 0)
		input_drain(&src);
	if (src.failed) {
		/* Not read whole: nothing of it is kept. */
		snprintf(in->error, sizeof(in->error), "%s", src.err.reason);
		in->unopened = 1;
		in->kind = EV_KIND_UNKNOWN;
		content_release(&c);
		input_release(&src);
		return 0;
	}
	input_release(&src);
	if (rc != 0) {
		content_release(&c);
		return -1;
	}
	b->digest = hasher_end(&fh.digest);
	/* The same bytes twice (two pulls of one device given together) are
	 * one witness, not two. */
	hash = mix64(hasher_end(&fh.content));
	for (i = 0; i < ld->nseen; i++) {
		if (ld->seen[i].hash == hash && ld->seen[i].len == fh.len) {
			content_release(&c);
			return mark_duplicate(in, b->inputs[ld->seen[i].input].path,
					      "the same bytes as another input: read once");
		}
	}
	nv = ev_grow((void **)&ld->seen, ld->nseen, sizeof(*nv));
	if (!nv) {
		content_release(&c);
		return -1;
	}
	*nv = (struct seen){ hash, fh.len, b->ninputs - 1 };
	ld->nseen++;
	if (proto) {
		/* debuggerd's protobuf twin of a tombstone, or the trace of a
		 * native crash that an app exported: known, not read. */
		snprintf(in->skipped, sizeof(in->skipped),
			 "a tombstone in protobuf: not read (its text, in /data/tombstones or a bug "
			 "report, is)");
		content_release(&c);
		return 0;
	}
	if (in->kind == EV_KIND_UNKNOWN)
		snprintf(c.error, sizeof(c.error), "unknown kind");
	return add_content(b, in, &c);
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
	int rc = 0;

	base = base ? base + 1 : path;
	rel = depth ? path + ld->root_len + 1 : base;
	if (depth == 0 ? stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode) : lstat(path, &sb) != 0)
		return load_file(ld, path, rel);
	if (S_ISLNK(sb.st_mode)) {
		const char *problem = link_problem(ld, path);

		return problem ? skip_input(b, path, problem) : load_file(ld, path, rel);
	}
	if (!S_ISDIR(sb.st_mode)) {
		if (S_ISREG(sb.st_mode) || strcmp(base, "manifest.json") == 0)
			return load_file(ld, path, rel);
		snprintf(why, sizeof(why), "not a regular file: %s", input_not_regular(sb.st_mode));
		return skip_input(b, path, why);
	}
	if (depth > WALK_DEPTH_MAX)
		return skip_input(b, path, "a directory more than 16 levels down: not read");
	d = opendir(path);
	if (!d) {
		struct bundle_input *in = add_input(b, path);

		if (!in)
			return -1;
		snprintf(in->error, sizeof(in->error), "%s", strerror(errno));
		in->unopened = 1;
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		char **nv;

		/* Hidden files are read: a ring named .x.lwr is a ring. */
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		nv = ev_grow((void **)&names, n, sizeof(*nv));
		if (!nv || !(*nv = malloc(strlen(path) + strlen(de->d_name) + 2))) {
			for (i = 0; i < n; i++)
				free(names[i]);
			free(names);
			closedir(d);
			return -1;
		}
		sprintf(*nv, "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = load_path(ld, names[i], depth + 1);
		free(names[i]);
	}
	free(names);
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
	struct loader ld = { b, NULL, 0, NULL, 0 };
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
	free(b->runs);
	free(b->files);
	free(b->inputs);
	free(b->manifests);
	free(b->missing);
	memset(b, 0, sizeof(*b));
}
