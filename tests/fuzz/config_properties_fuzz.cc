/// The `.properties` parser (`--config FILE`) and the `--set` flags: any text
/// is applied whole or refused whole with an error naming file, line and key.
/// A configuration it accepts, written out again (`to_properties_text`, the
/// journaled keys), loads into the same values. The same text in the
/// dialect of Kafka's client files is read or refused, never crashes.

#include "events/config.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const events::Config defaults = events::Config::defaults();
    const std::string_view text = fuzz::as_text(data, size);

    events::Config config = defaults;
    events::Status loaded = config.load_properties_text(text, "fuzz.properties");
    if (!loaded.ok()) {
        fuzz::expect(config.entries() == defaults.entries(), "a refused file changed the configuration");
    } else {
        const std::string written = config.to_properties_text();
        events::Config reloaded = defaults;
        events::Status again = reloaded.load_properties_text(written, "written.properties");
        fuzz::expect(again.ok(), "an accepted configuration, written out, does not load: " +
                                     (again.ok() ? std::string() : again.error().message));
        fuzz::expect(reloaded.journal_entries() == config.journal_entries(),
                     "an accepted configuration, written out, loads differently");
    }

    (void)events::parse_properties(text, "client.properties", events::PropertiesDialect::java);

    // The whole text as one --set flag, and as one capacity override.
    events::Config overridden = defaults;
    (void)overridden.apply_override(text);
    (void)events::parse_capacity_override(text);
    return 0;
}
