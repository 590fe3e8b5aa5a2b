/* libFuzzer harness for tombstone_proto_parse(), the tombstone protobuf
 * reader (seeded with fixtures/tombstone-pb). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_parse_whole(data, size, tombstone_proto_parse);
}
