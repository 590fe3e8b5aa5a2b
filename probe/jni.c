/*
 * The Java facade's native half (liblastwords_jni.so): the methods of
 * dev.lastwords.Native (probe/java/), registered by JNI_OnLoad, each a thin
 * call of the C API of include/lastwords/probe.h on the handle that
 * Probe keeps. Probe checks the arguments and the probe's state first.
 *
 * The event methods (candidate, stage begin/end, the session calls, mark,
 * payload, cache, receipt, peer died, memory sample, graphics, pressure)
 * allocate nothing, as the C functions they call: no JNI call that
 * allocates (a name is read through GetStringRegion into the stack and
 * encoded to UTF-8 there), no local references, no exception. Only open,
 * the queries that return a string or an array, and the errors of open
 * allocate.
 *
 * A name is encoded as Java's String.getBytes(UTF_8) encodes it, so the
 * digest of a candidate is the one that `lastwords digest NAME` and the
 * app compute from the same name: surrogate pairs as 4-byte sequences, an
 * unpaired surrogate as '?'. JNI's own "modified UTF-8" would differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jni.h>

#include <lastwords/probe.h>

/* As dev.lastwords.Native's constants of the same names. */
#define NAME_TOO_LONG 1
#define NAME_HAS_NUL 2
#define NAME_MAX_BYTES 1023
#define CRASH_UNCHAINED 1

static struct lw *jni_lw(jlong h)
{
	return (struct lw *)(intptr_t)h;
}

static void jni_throw(JNIEnv *env, const char *cls, const char *msg)
{
	jclass c = (*env)->FindClass(env, cls);

	if (c)
		(*env)->ThrowNew(env, c, msg);
}

/* Append code point cp to buf (which has NAME_MAX_BYTES + 1 bytes) at *n:
 * 0, or NAME_TOO_LONG. */
static int utf8_put(char *buf, size_t *n, uint32_t cp)
{
	unsigned char b[4];
	size_t k, i;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (*n + k > NAME_MAX_BYTES)
		return NAME_TOO_LONG;
	for (i = 0; i < k; i++)
		buf[(*n)++] = (char)b[i];
	return 0;
}

/*
 * The string s in UTF-8 into buf (NAME_MAX_BYTES + 1 bytes), NUL-ended:
 * 0, NAME_TOO_LONG or NAME_HAS_NUL. Reads s in chunks through
 * GetStringRegion, which copies into the caller's memory.
 * Context: does not allocate; does not block.
 */
static int name_utf8(JNIEnv *env, jstring s, char *buf)
{
	jchar chunk[128];
	jsize len = (*env)->GetStringLength(env, s), at, i, k;
	uint32_t hi = 0; /* a high surrogate, waiting for its low one */
	size_t n = 0;
	int rc = 0;

	if (len > NAME_MAX_BYTES)
		return NAME_TOO_LONG; /* every char takes a byte at least */
	for (at = 0; at < len && rc == 0; at += k) {
		k = len - at < (jsize)(sizeof(chunk) / sizeof(chunk[0]))
			    ? len - at
			    : (jsize)(sizeof(chunk) / sizeof(chunk[0]));
		(*env)->GetStringRegion(env, s, at, k, chunk);
		for (i = 0; i < k && rc == 0; i++) {
			uint32_t u = chunk[i];

			if (hi && u >= 0xdc00 && u <= 0xdfff) {
				rc = utf8_put(buf, &n, 0x10000 + ((hi - 0xd800) << 10) + (u - 0xdc00));
				hi = 0;
				continue;
			}
			if (hi) {
				rc = utf8_put(buf, &n, '?');
				hi = 0;
			}
			if (rc != 0)
				break;
			if (u >= 0xd800 && u <= 0xdbff)
				hi = u;
			else if (u >= 0xdc00 && u <= 0xdfff)
				rc = utf8_put(buf, &n, '?');
			else if (u == 0)
				rc = NAME_HAS_NUL;
			else
				rc = utf8_put(buf, &n, u);
		}
	}
	if (rc == 0 && hi)
		rc = utf8_put(buf, &n, '?');
	buf[n] = '\0';
	return rc;
}

/* A Java byte[] as a NUL-ended C string in memory from malloc (free()
 * it), or NULL with OutOfMemoryError thrown. */
static char *bytes_dup(JNIEnv *env, jbyteArray a)
{
	jsize n = (*env)->GetArrayLength(env, a);
	char *s = malloc((size_t)n + 1);

	if (!s) {
		jni_throw(env, "java/lang/OutOfMemoryError", "lastwords: out of memory");
		return NULL;
	}
	(*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)s);
	s[n] = '\0';
	return s;
}

static jlong JNICALL n_open(JNIEnv *env, jclass cls, jbyteArray dir, jbyteArray name,
			    jlong app_version, jint budget_kb, jint period_ms)
{
	struct lw_config cfg;
	struct lw *lw = NULL;
	char msg[160];
	char *d, *p = NULL;
	int rc = -ENOMEM;

	(void)cls;
	d = bytes_dup(env, dir);
	if (d)
		p = bytes_dup(env, name);
	if (!p) {
		free(d);
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = d;
	cfg.process_name = p;
	cfg.app_version = (uint64_t)app_version;
	cfg.memory_budget_kb = (uint32_t)budget_kb;
	cfg.sampler_period_ms = (uint32_t)period_ms;
	rc = lw_open(&cfg, &lw);
	free(d);
	free(p);
	if (rc >= 0)
		return (jlong)(intptr_t)lw;
	if (rc == -EBUSY) {
		jni_throw(env, "java/lang/IllegalStateException",
			  "Probe.open: a probe is open in this process already (one per process)");
	} else if (rc == -ENOMEM) {
		jni_throw(env, "java/lang/OutOfMemoryError", "Probe.open: out of memory");
	} else {
		snprintf(msg, sizeof(msg), "Probe.open: lw_open failed: errno %d", -rc);
		jni_throw(env, "java/lang/IllegalStateException", msg);
	}
	return 0;
}

static jint JNICALL n_close(JNIEnv *env, jclass cls, jlong h)
{
	(void)env;
	(void)cls;
	return lw_close(jni_lw(h));
}

static jstring JNICALL n_run_id(JNIEnv *env, jclass cls, jlong h)
{
	struct lw_info info;

	(void)cls;
	if (lw_info(jni_lw(h), &info) != 0)
		info.run_id_hex[0] = '\0';
	return (*env)->NewStringUTF(env, info.run_id_hex);
}

static jbyteArray JNICALL n_path(JNIEnv *env, jclass cls, jlong h)
{
	struct lw_info info;
	jbyteArray a;
	jsize n;

	(void)cls;
	if (lw_info(jni_lw(h), &info) != 0)
		info.path[0] = '\0';
	n = (jsize)strlen(info.path);
	a = (*env)->NewByteArray(env, n);
	if (a)
		(*env)->SetByteArrayRegion(env, a, 0, n, (const jbyte *)info.path);
	return a;
}

static jboolean JNICALL n_anonymous(JNIEnv *env, jclass cls, jlong h)
{
	struct lw_info info;

	(void)env;
	(void)cls;
	return lw_info(jni_lw(h), &info) != 0 || info.backing == LW_BACKING_ANONYMOUS;
}

/*
 * The name argument of a call on the probe h, in UTF-8 into buf
 * (NAME_MAX_BYTES + 1 bytes): 1 when the call goes ahead; else 0, and *rc
 * is what the method returns: a NAME_ code, or 0 when h is 0 (the check
 * alone, for a closed probe).
 * Context: does not allocate; does not block.
 */
static int name_arg(JNIEnv *env, jlong h, jstring name, char *buf, jint *rc)
{
	*rc = name_utf8(env, name, buf);
	return *rc == 0 && h;
}

static jint JNICALL n_candidate(JNIEnv *env, jclass cls, jlong h, jstring name)
{
	char buf[NAME_MAX_BYTES + 1];
	jint rc;

	(void)cls;
	return name_arg(env, h, name, buf, &rc) ? lw_candidate(jni_lw(h), buf) : rc;
}

static jint JNICALL n_digest(JNIEnv *env, jclass cls, jstring name, jlongArray out)
{
	char buf[NAME_MAX_BYTES + 1];
	jlong d;
	int rc;

	(void)cls;
	rc = name_utf8(env, name, buf);
	if (rc != 0)
		return rc;
	d = (jlong)lw_digest(buf);
	(*env)->SetLongArrayRegion(env, out, 0, 1, &d);
	return 0;
}

static jint JNICALL n_stage_begin(JNIEnv *env, jclass cls, jlong h, jint stage)
{
	(void)env;
	(void)cls;
	return lw_stage_begin(jni_lw(h), (enum lw_stage)stage);
}

static jint JNICALL n_stage_end(JNIEnv *env, jclass cls, jlong h, jint stage, jint err)
{
	(void)env;
	(void)cls;
	return lw_stage_end(jni_lw(h), (enum lw_stage)stage, (enum lw_error)err);
}

static jint JNICALL n_mark(JNIEnv *env, jclass cls, jlong h, jint kind, jlong value)
{
	(void)env;
	(void)cls;
	return lw_mark(jni_lw(h), (enum lw_mark)kind, (uint64_t)value);
}

static jint JNICALL n_session_open(JNIEnv *env, jclass cls, jlong h, jint session, jstring name)
{
	char buf[NAME_MAX_BYTES + 1];
	jint rc;

	(void)cls;
	return name_arg(env, h, name, buf, &rc) ? lw_session_open(jni_lw(h), (uint32_t)session, buf)
						: rc;
}

static jint JNICALL n_session_close(JNIEnv *env, jclass cls, jlong h, jint session, jint result)
{
	(void)env;
	(void)cls;
	return lw_session_close(jni_lw(h), (uint32_t)session, (enum lw_error)result);
}

static jint JNICALL n_session_stage_begin(JNIEnv *env, jclass cls, jlong h, jint session,
					  jint stage)
{
	(void)env;
	(void)cls;
	return lw_session_stage_begin(jni_lw(h), (uint32_t)session, (enum lw_stage)stage);
}

static jint JNICALL n_session_stage_end(JNIEnv *env, jclass cls, jlong h, jint session,
					jint stage, jint err)
{
	(void)env;
	(void)cls;
	return lw_session_stage_end(jni_lw(h), (uint32_t)session, (enum lw_stage)stage,
				    (enum lw_error)err);
}

static jint JNICALL n_payload(JNIEnv *env, jclass cls, jlong h, jint pclass, jlong bytes)
{
	(void)env;
	(void)cls;
	return lw_payload(jni_lw(h), (enum lw_payload_class)pclass, (uint64_t)bytes);
}

static jint JNICALL n_cache(JNIEnv *env, jclass cls, jlong h, jint op, jstring key)
{
	char buf[NAME_MAX_BYTES + 1];
	jint rc;

	(void)cls;
	return name_arg(env, h, key, buf, &rc) ? lw_cache(jni_lw(h), (enum lw_cache_op)op, buf) : rc;
}

static jint JNICALL n_receipt(JNIEnv *env, jclass cls, jlong h, jstring name, jlong digest)
{
	char buf[NAME_MAX_BYTES + 1];
	jint rc;

	(void)cls;
	return name_arg(env, h, name, buf, &rc) ? lw_receipt(jni_lw(h), buf, (uint64_t)digest) : rc;
}

static jint JNICALL n_peer_died(JNIEnv *env, jclass cls, jlong h, jint pid, jstring name)
{
	char buf[NAME_MAX_BYTES + 1];
	jint rc;

	(void)cls;
	return name_arg(env, h, name, buf, &rc) ? lw_peer_died(jni_lw(h), (int32_t)pid, buf) : rc;
}

static jint JNICALL n_memory_sample(JNIEnv *env, jclass cls, jlong h)
{
	(void)env;
	(void)cls;
	return lw_memory_sample(jni_lw(h));
}

static jint JNICALL n_memory_graphics(JNIEnv *env, jclass cls, jlong h, jlong kb)
{
	(void)env;
	(void)cls;
	return lw_memory_graphics(jni_lw(h), (uint64_t)kb);
}

static jint JNICALL n_memory_pressure(JNIEnv *env, jclass cls, jlong h, jint source, jint level,
				      jlong avail_kb, jlong threshold_kb)
{
	(void)env;
	(void)cls;
	return lw_memory_pressure(jni_lw(h), (enum lw_pressure_source)source, (uint32_t)level,
				  (uint64_t)avail_kb, (uint64_t)threshold_kb);
}

static jint JNICALL n_sync(JNIEnv *env, jclass cls, jlong h)
{
	(void)env;
	(void)cls;
	return lw_sync(jni_lw(h));
}

/* *a, or zeros when rc is not 0, into out: kind, stage, count,
 * candidate, stable candidate. Returns rc. */
static jint advice_out(JNIEnv *env, struct lw_advice *a, int rc, jlongArray out)
{
	jlong v[5];

	if (rc != 0)
		memset(a, 0, sizeof(*a));
	v[0] = (jlong)a->kind;
	v[1] = (jlong)a->stage;
	v[2] = (jlong)a->count;
	v[3] = (jlong)a->candidate;
	v[4] = (jlong)a->stable_candidate;
	(*env)->SetLongArrayRegion(env, out, 0, 5, v);
	return rc;
}

static jint JNICALL n_advice(JNIEnv *env, jclass cls, jlong h, jlongArray out)
{
	struct lw_advice a;

	(void)cls;
	return advice_out(env, &a, lw_advice(jni_lw(h), &a), out);
}

/* The bytes of a into buf (size bytes) with a NUL: 0, or -ENAMETOOLONG. */
static int bytes_into(JNIEnv *env, jbyteArray a, char *buf, size_t size)
{
	jsize n = (*env)->GetArrayLength(env, a);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	(*env)->GetByteArrayRegion(env, a, 0, n, (jbyte *)buf);
	buf[n] = '\0';
	return 0;
}

/* lw_advice_read(), on the stack: no allocation, as the C call. */
static jint JNICALL n_advice_read(JNIEnv *env, jclass cls, jbyteArray dir, jbyteArray name,
				  jlongArray out)
{
	char d[4096], p[64]; /* a process name has 63 bytes at most (lw_open) */
	struct lw_advice a;
	int rc;

	(void)cls;
	rc = bytes_into(env, dir, d, sizeof(d));
	if (rc == 0)
		rc = bytes_into(env, name, p, sizeof(p));
	if (rc == 0)
		rc = lw_advice_read(d, p, &a);
	return advice_out(env, &a, rc, out);
}

static jint JNICALL n_advice_reset(JNIEnv *env, jclass cls, jlong h)
{
	(void)env;
	(void)cls;
	return lw_advice_reset(jni_lw(h));
}

/* Whether sig has a handler now (as sigaction() reports it: through a
 * chaining library, the one chained behind the JVM's). */
static int has_handler(int sig)
{
	struct sigaction cur;

	if (sigaction(sig, NULL, &cur) != 0)
		return 0;
	if (cur.sa_flags & SA_SIGINFO)
		return cur.sa_sigaction != NULL;
	return cur.sa_handler != SIG_DFL && cur.sa_handler != SIG_IGN;
}

/*
 * A JVM takes SIGSEGV (and on some machines SIGBUS, SIGFPE, SIGILL) for
 * its own use: implicit null checks, safepoint polls, stack banging; its
 * handler resumes the thread. The probe's handler installed in front of it
 * would take each for a crash. HotSpot's libjsig (preloaded) and ART's
 * sigchain keep the JVM's handler in front and chain the probe's behind
 * it; through libjsig, sigaction() then reports the disposition from
 * before the JVM, no handler. A handler that sigaction() reports is the
 * JVM's, installed without chaining: refused.
 */
static jint JNICALL n_crash_install(JNIEnv *env, jclass cls, jlong h, jboolean vm_chains)
{
	static const int vm_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	size_t i;

	(void)env;
	(void)cls;
	if (!vm_chains)
		for (i = 0; i < sizeof(vm_signals) / sizeof(vm_signals[0]); i++)
			if (has_handler(vm_signals[i]))
				return CRASH_UNCHAINED;
	return lw_crash_install(jni_lw(h));
}

/*
 * Whether a writer holds the ring file at path (NUL-terminated UTF-8), as
 * the probe tells a live run from a dead one (ring-format(5), 3.3): 1 when
 * flock(LOCK_SH | LOCK_NB) fails with EWOULDBLOCK, 0 when the shared lock
 * can be had (dropped at once), -EINVAL when path is not a regular file
 * (opened with O_NOFOLLOW | O_NONBLOCK: a link or a FIFO is never
 * followed or waited on), else -errno. Does not block.
 */
static jint JNICALL n_ring_live(JNIEnv *env, jclass cls, jbyteArray path)
{
	char buf[4096];
	jsize n = (*env)->GetArrayLength(env, path);
	struct stat st;
	int fd, rc;

	(void)cls;
	if (n <= 0 || bytes_into(env, path, buf, sizeof(buf)) != 0)
		return -ENAMETOOLONG;
	fd = open(buf, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &st) != 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -EINVAL;
	else if (flock(fd, LOCK_SH | LOCK_NB) != 0)
		rc = errno == EWOULDBLOCK ? 1 : -errno;
	else
		rc = 0;
	if (rc == 0)
		flock(fd, LOCK_UN);
	close(fd);
	return rc;
}

/* A function as JNINativeMethod takes it: through an integer, since ISO C
 * has no conversion between function and object pointers. */
#define FN(f) ((void *)(uintptr_t)(f))

static const JNINativeMethod methods[] = {
	{ "open", "([B[BJII)J", FN(n_open) },
	{ "close", "(J)I", FN(n_close) },
	{ "runId", "(J)Ljava/lang/String;", FN(n_run_id) },
	{ "path", "(J)[B", FN(n_path) },
	{ "anonymous", "(J)Z", FN(n_anonymous) },
	{ "candidate", "(JLjava/lang/String;)I", FN(n_candidate) },
	{ "digest", "(Ljava/lang/String;[J)I", FN(n_digest) },
	{ "stageBegin", "(JI)I", FN(n_stage_begin) },
	{ "stageEnd", "(JII)I", FN(n_stage_end) },
	{ "mark", "(JIJ)I", FN(n_mark) },
	{ "peerDied", "(JILjava/lang/String;)I", FN(n_peer_died) },
	{ "sessionOpen", "(JILjava/lang/String;)I", FN(n_session_open) },
	{ "sessionClose", "(JII)I", FN(n_session_close) },
	{ "sessionStageBegin", "(JII)I", FN(n_session_stage_begin) },
	{ "sessionStageEnd", "(JIII)I", FN(n_session_stage_end) },
	{ "payload", "(JIJ)I", FN(n_payload) },
	{ "cache", "(JILjava/lang/String;)I", FN(n_cache) },
	{ "receipt", "(JLjava/lang/String;J)I", FN(n_receipt) },
	{ "memorySample", "(J)I", FN(n_memory_sample) },
	{ "memoryGraphics", "(JJ)I", FN(n_memory_graphics) },
	{ "memoryPressure", "(JIIJJ)I", FN(n_memory_pressure) },
	{ "sync", "(J)I", FN(n_sync) },
	{ "advice", "(J[J)I", FN(n_advice) },
	{ "adviceReset", "(J)I", FN(n_advice_reset) },
	{ "adviceRead", "([B[B[J)I", FN(n_advice_read) },
	{ "crashInstall", "(JZ)I", FN(n_crash_install) },
	{ "ringLive", "([B)I", FN(n_ring_live) },
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
	JNIEnv *env;
	jclass cls;

	(void)reserved;
	if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
		return JNI_ERR;
	cls = (*env)->FindClass(env, "dev/lastwords/Native");
	if (!cls || (*env)->RegisterNatives(env, cls, methods,
					    (jint)(sizeof(methods) / sizeof(methods[0]))) != 0)
		return JNI_ERR;
	return JNI_VERSION_1_6;
}
