/*
 * The table of GPU and NN runtime libraries that native crash frames are
 * marked with (runtime-libs.h). One row per library family; the first row
 * that matches wins, so rows that look at symbols come before the plain
 * library rows they refine.
 */
#include "runtime-libs.h"

#include <string.h>

struct rtlib_row {
	const char *library; /* glob on the base name */
	const char *symbol;  /* glob on the symbol, or NULL for any */
	const char *runtime;
};

/*
 * To mark another runtime, add a row. Vendor GPU drivers serve several APIs
 * from one library (Mali's libGLES_mali.so is its GLES, EGL, OpenCL and
 * Vulkan driver); such a library is named after the API in its name.
 */
static const struct rtlib_row rtlib_rows[] = {
	/* The TFLite GPU delegate, in its own library or linked into another
	 * (libtensorflowlite_jni.so, an app's library), by its symbols. */
	{ "libtensorflowlite_gpu*", NULL, "tflite-gpu" },
	{ "*", "*TfLiteGpuDelegate*", "tflite-gpu" },
	{ "*", "*tflite::gpu::*", "tflite-gpu" },
	{ "*", "_ZN6tflite3gpu*", "tflite-gpu" },
	{ "*", "*TFLGpuDelegate*", "tflite-gpu" },

	/* OpenCL: the loader and vendor compilers and runtimes. */
	{ "libOpenCL*.so*", NULL, "opencl" },
	{ "libCB.so", NULL, "opencl" },            /* Adreno OpenCL compiler back end */
	{ "libllvm-qcom.so", NULL, "opencl" },     /* Adreno OpenCL LLVM */
	{ "libPVROCL.so", NULL, "opencl" },        /* PowerVR */

	/* GLES and EGL: the loader and vendor drivers. */
	{ "libGLESv1_CM*", NULL, "gles" },
	{ "libGLESv2*", NULL, "gles" },            /* libGLESv2.so, libGLESv2_adreno.so */
	{ "libGLESv3*", NULL, "gles" },
	{ "libGLES_*", NULL, "gles" },             /* libGLES_mali.so, libGLES_android.so */
	{ "libEGL*", NULL, "gles" },               /* libEGL.so, libEGL_adreno.so */
	{ "libllvm-glnext.so", NULL, "gles" },     /* Adreno shader compiler */

	/* Vulkan: the loader and the HAL drivers (vulkan.adreno.so). */
	{ "libvulkan*.so*", NULL, "vulkan" },
	{ "vulkan.*.so", NULL, "vulkan" },

	/* NNAPI: the runtime and the HAL services' client libraries. */
	{ "libneuralnetworks*.so*", NULL, "nnapi" },
	{ "android.hardware.neuralnetworks*", NULL, "nnapi" },

	{ "libonnxruntime*.so*", NULL, "onnxruntime" },
	{ "libllama*.so*", NULL, "ggml" },
	{ "libggml*.so*", NULL, "ggml" },
	{ "libMNN*.so*", NULL, "mnn" },
	{ "libexecutorch*.so*", NULL, "executorch" },

	/* TFLite itself, last: the GPU delegate rows above refine it. */
	{ "libtensorflowlite*.so*", NULL, "tflite" },
};

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Whether the n bytes at s match the NUL-terminated glob pat, ignoring ASCII
 * case. Iterative, with one backtrack point per '*': linear in practice. */
static int glob_match(const char *pat, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, star_i = 0;

	while (i < n) {
		if (*pat == '*') {
			star = pat++;
			star_i = i;
		} else if (*pat && (*pat == '?' || lower((unsigned char)*pat) ==
							   lower((unsigned char)s[i]))) {
			pat++;
			i++;
		} else if (star) {
			pat = star + 1;
			i = ++star_i;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

const char *rtlib_runtime(const char *library, const char *symbol)
{
	const char *base, *p;
	size_t i, n;

	if (!library)
		return NULL;
	base = library;
	for (p = library; *p; p++)
		if (*p == '/' || *p == '!')
			base = p + 1;
	n = strlen(base);
	for (i = 0; i < sizeof(rtlib_rows) / sizeof(rtlib_rows[0]); i++) {
		const struct rtlib_row *r = &rtlib_rows[i];

		if (!glob_match(r->library, base, n))
			continue;
		if (r->symbol && (!symbol || !glob_match(r->symbol, symbol, strlen(symbol))))
			continue;
		return r->runtime;
	}
	return NULL;
}

void rtlib_mark(struct tombstone *t)
{
	size_t i;

	t->runtime_frames = 0;
	t->first_runtime = NULL;
	for (i = 0; i < t->nframes; i++) {
		struct frame *fr = &t->frames[i];

		fr->runtime = rtlib_runtime(fr->library, fr->symbol);
		if (!fr->runtime)
			continue;
		if (!t->runtime_frames)
			t->first_runtime = fr->runtime;
		t->runtime_frames++;
	}
}
