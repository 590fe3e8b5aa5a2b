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
#include "evidence/parsers.h"

static struct bundle_input *add_input(struct bundle *b, const char *path)
{
	struct bundle_input *nv = realloc(b->inputs, (b->ninputs + 1) * sizeof(*nv));

	if (!nv)
		return NULL;
	b->inputs = nv;
	nv = &b->inputs[b->ninputs];
	memset(nv, 0, sizeof(*nv));
	nv->path = strdup(path);
	if (!nv->path)
		return NULL;
	b->ninputs++;
	return nv;
}

static int add_run(struct bundle *b, struct run *r)
{
	struct run *nv = realloc(b->runs, (b->nruns + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	b->runs = nv;
	b->runs[b->nruns++] = *r;
	return 0;
}

static int add_file(struct bundle *b, struct ev_file *f)
{
	struct ev_file *nv = realloc(b->files, (b->nfiles + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	b->files = nv;
	b->files[b->nfiles++] = *f;
	return 0;
}

/* Evidence: parse it; the seed's events also become a ring-less run.
 * Returns -1 on ENOMEM only: a parse failure is the input's error. */
static int load_evidence(struct bundle *b, struct bundle_input *in, const char *path,
			 const struct input *data)
{
	struct ev_error err = { 0, "" };
	struct ev_file f;
	struct run r;

	memset(&f, 0, sizeof(f));
	if (ev_parse(in->kind, data->data, data->len, &f, &err) != 0) {
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		in->error_line = err.line;
		ev_file_release(&f);
		return 0;
	}
	if (in->kind == EV_KIND_SEED_EVENTS) {
		if (run_from_seed(path, &f, &r, &err) != 0) {
			snprintf(in->error, sizeof(in->error), "%s", err.reason);
			ev_file_release(&f);
			return 0;
		}
		if (add_run(b, &r) != 0) {
			run_release(&r);
			ev_file_release(&f);
			return -1;
		}
	}
	f.path = strdup(path);
	f.gzipped = data->gzipped;
	if (!f.path || add_file(b, &f) != 0) {
		ev_file_release(&f);
		return -1;
	}
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

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h ^= w * 0x9e3779b97f4a7c15u;
		h = ((h << 27) | (h >> 37)) * 0x87c37b91114253d5u;
	}
	w = 0;
	memcpy(&w, s, n);
	h ^= (w + n) * 0x9e3779b97f4a7c15u;
	return ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fu;
}

static void copy_string(const cJSON *o, const char *key, char *out, size_t size)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	if (cJSON_IsString(v))
		snprintf(out, size, "%s", v->valuestring);
}

/* The manifest of a pull describes the bundle; it is not evidence. Keep its
 * time-zone offset and the device. */
static int is_manifest(struct bundle *b, const char *path)
{
	const char *base = strrchr(path, '/');
	struct ev_error err;
	struct input data;
	cJSON *m;

	if (strcmp(base ? base + 1 : path, "manifest.json") != 0)
		return 0;
	if (input_read(path, &data, &err) != 0)
		return 0;
	m = cJSON_ParseWithLength(data.data, data.len);
	input_release(&data);
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return 0;
	}
	if (cJSON_IsString(cJSON_GetObjectItem(m, "tz_offset")) &&
	    corr_parse_tz(cJSON_GetObjectItem(m, "tz_offset")->valuestring, &b->tz_offset_ms) == 0)
		b->have_tz = 1;
	b->have_manifest = 1;
	b->complete = !cJSON_IsFalse(cJSON_GetObjectItem(m, "complete"));
	copy_string(cJSON_GetObjectItem(m, "device"), "model", b->device_model, sizeof(b->device_model));
	copy_string(cJSON_GetObjectItem(m, "device"), "android_version", b->android_version,
		    sizeof(b->android_version));
	copy_string(cJSON_GetObjectItem(m, "device"), "fingerprint", b->fingerprint,
		    sizeof(b->fingerprint));
	cJSON_Delete(m);
	return 1;
}

/* A ring, binary or as dump --json lines. Returns -1 on ENOMEM only. */
static int load_run(struct bundle *b, struct bundle_input *in, const char *path,
		    const struct input *data)
{
	struct ev_error err = { 0, "" };
	struct ring_error rerr;
	struct run r;

	if (data->len >= LW_RING_MAGIC_LEN &&
	    memcmp(data->data, LW_RING_MAGIC, LW_RING_MAGIC_LEN) == 0) {
		if (run_load_ring(path, &r, &rerr) != 0) {
			snprintf(in->error, sizeof(in->error), "%s", rerr.reason);
			return 0;
		}
	} else if (run_load_json(path, data->data, data->len, &r, &err) != 0) {
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		in->error_line = err.line;
		return 0;
	}
	if (add_run(b, &r) != 0) {
		run_release(&r);
		return -1;
	}
	return 0;
}

/* rel: the path below the input it was found under. */
static int load_file(struct bundle *b, const char *path, const char *rel)
{
	struct ev_error err = { 0, "" };
	struct bundle_input *in;
	struct input data;
	int rc = 0;

	if (is_manifest(b, path))
		return 0;
	in = add_input(b, path);
	if (!in)
		return -1;
	if (input_read(path, &data, &err) != 0) {
		snprintf(in->error, sizeof(in->error), "%s", err.reason);
		in->unopened = 1;
		return 0;
	}
	b->digest = hash_bytes(b->digest, rel, strlen(rel) + 1);
	b->digest = hash_bytes(b->digest, data.data, data.len);
	in->kind = ev_detect(data.data, data.len);
	if (in->kind == EV_KIND_UNKNOWN)
		snprintf(in->error, sizeof(in->error), "unknown kind");
	else if (in->kind == EV_KIND_RING)
		rc = load_run(b, in, path, &data);
	else
		rc = load_evidence(b, in, path, &data);
	input_release(&data);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_path(struct bundle *b, const char *path, size_t root_len, int depth)
{
	struct stat sb;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d;
	int rc = 0;

	if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		const char *base = strrchr(path, '/');

		return load_file(b, path, depth ? path + root_len + 1 : base ? base + 1 : path);
	}
	if (depth > 16)
		return 0;
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

		if (de->d_name[0] == '.')
			continue;
		nv = realloc(names, (n + 1) * sizeof(*nv));
		if (!nv || !(nv[n] = malloc(strlen(path) + strlen(de->d_name) + 2))) {
			free(nv ? nv : names);
			closedir(d);
			return -1;
		}
		names = nv;
		sprintf(names[n++], "%s/%s", path, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = load_path(b, names[i], root_len, depth + 1);
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
	size_t i;

	memset(b, 0, sizeof(*b));
	b->complete = 1;
	for (i = 0; i < npaths; i++) {
		if (load_path(b, paths[i], strlen(paths[i]), 0) != 0) {
			bundle_release(b);
			return -1;
		}
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

void bundle_release(struct bundle *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nruns; i++)
		run_release(&b->runs[i]);
	for (i = 0; i < b->nfiles; i++)
		ev_file_release(&b->files[i]);
	for (i = 0; i < b->ninputs; i++)
		free(b->inputs[i].path);
	free(b->runs);
	free(b->files);
	free(b->inputs);
	memset(b, 0, sizeof(*b));
}
