/* libFuzzer harness for a bug report's main text (bugreport.h): cut into
 * its pieces as it is read, each piece parsed by the parser of its kind
 * (as bundle.c does) or left part-read, and the text's own account. */
#include "../../analyzer/evidence/bugreport.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bugreport_reader r;
	struct bugreport_piece p;
	struct bugreport_info info;
	struct input in;
	size_t n = 0;

	input_init_mem(&in, (const char *)data, size);
	bugreport_init(&r, &in);
	while (bugreport_next(&r, &p) > 0) {
		struct ev_file f;
		struct ev_error err = { 0, "" };

		memset(&f, 0, sizeof(f));
		/* every other piece is left as it is: the reader skips its rest */
		if (n++ % 2 == 0) {
			fuzz_records(&f, ev_parse(p.kind, p.in, &f, &err), &err);
			bugreport_date_logs(&r, &f);
		}
	}
	bugreport_take_info(&r, &info);
	bugreport_release(&r);
	bugreport_info_release(&info);
	input_release(&in);
	return 0;
}
