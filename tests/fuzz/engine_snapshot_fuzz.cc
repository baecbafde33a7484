/// The engine's snapshot as the journal hands it back (its CRC already
/// passed, so the bytes are what some writer wrote, or damage the CRC missed):
/// `decode_snapshot` must return a snapshot or an error naming what could not
/// be read. A snapshot it returns must encode again into bytes that decode.

#include "actors/engine_snapshot.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    events::Result<actors::EngineSnapshot> decoded = actors::decode_snapshot(fuzz::as_text(data, size));
    if (!decoded.ok()) return 0;
    const std::string again = actors::encode_snapshot(*decoded);
    events::Result<actors::EngineSnapshot> redecoded = actors::decode_snapshot(again);
    fuzz::expect(redecoded.ok(), "a decoded snapshot, encoded again, fails to decode: " +
                                     (redecoded.ok() ? std::string() : redecoded.error().message));
    fuzz::expect(actors::encode_snapshot(*redecoded) == again,
                 "a decoded snapshot, encoded again, decodes differently");
    return 0;
}
