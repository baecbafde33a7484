/// Event bytes as the journal and the network hand them over: `verify`, then
/// `decode`, then `events::check`. Whatever `decode` accepts must render as
/// JSON and encode again into bytes that decode to the same event; whatever
/// `check` also accepts must come back from its own JSON unchanged (`ballast
/// log show --json` then `log append` loses nothing), names in UTF-8 aside.

#include "events/event.h"
#include "events/event_check.h"
#include "events/event_from_json.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const fuzz::Aligned input(data, size);
    events::Result<events::Event> decoded = events::decode(input.bytes);
    if (!decoded.ok()) return 0;
    const events::Event& event = *decoded;
    const std::string json = events::to_json(event);

    const std::vector<uint8_t> again = events::encode(event);
    events::Result<events::Event> redecoded = events::decode(again);
    fuzz::expect(redecoded.ok(), "a decoded event, encoded again, fails to decode: " +
                                     (redecoded.ok() ? std::string() : redecoded.error().message));
    fuzz::expect(events::to_json(*redecoded) == json,
                 "a decoded event, encoded again, decodes differently: " + json);

    // `to_json` writes each byte of a name that is not UTF-8 as U+FFFD (the
    // line stays valid JSON), so only a name that is UTF-8 reads back the same.
    if (!events::check(event).ok() || json.find("\\ufffd") != std::string::npos) return 0;
    events::Result<events::Event> from_json = events::event_from_json(json);
    fuzz::expect(from_json.ok(), "the JSON of a checked event does not read back: " + json + ": " +
                                     (from_json.ok() ? std::string() : from_json.error().message));
    fuzz::expect(*from_json == event, "the JSON of a checked event reads back differently: " + json);
    return 0;
}
