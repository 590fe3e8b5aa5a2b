/* libFuzzer harness for content detection: every sniffer sees the input,
 * then the parser of the detected kind runs on it, as inspect does. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int parse_detected(struct input *in, struct ev_file *out, struct ev_error *err)
{
	enum ev_kind kind = ev_detect(in);

	if (in->failed)
		return input_error(in, err);
	if (kind == EV_KIND_UNKNOWN || kind == EV_KIND_RING) {
		out->kind = kind;
		return 0;
	}
	return ev_parse(kind, in, out, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_parse(data, size, parse_detected);
}
