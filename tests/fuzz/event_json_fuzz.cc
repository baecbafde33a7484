/// `event_from_json`, the reader behind `ballast log append`: any text is an
/// event or an error naming the field. An event it accepts that `events::check`
/// also accepts must encode into bytes that `decode` reads back unchanged, and
/// print as JSON that reads back unchanged.

#include "events/event.h"
#include "events/event_check.h"
#include "events/event_from_json.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    events::Result<events::Event> parsed = events::event_from_json(fuzz::as_text(data, size));
    if (!parsed.ok()) return 0;
    const events::Event& event = *parsed;
    const std::string json = events::to_json(event);
    if (!events::check(event).ok()) return 0;

    const std::vector<uint8_t> bytes = events::encode(event);
    events::Result<events::Event> decoded = events::decode(bytes);
    fuzz::expect(decoded.ok(), "a checked event from JSON fails to decode once encoded: " + json +
                                   ": " + (decoded.ok() ? std::string() : decoded.error().message));
    fuzz::expect(*decoded == event, "a checked event from JSON decodes differently: " + json);

    events::Result<events::Event> again = events::event_from_json(json);
    fuzz::expect(again.ok() && *again == event, "a checked event's own JSON reads back differently: " + json);
    return 0;
}
