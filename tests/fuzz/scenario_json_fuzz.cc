/// The simulator's JSON scenario files (`ballast sim --scenario FILE.json`):
/// any text is a scenario or an error naming the file and the field. A
/// scenario the parser returns is validated as `ballast sim` validates it.

#include "adapters/sim/sim_scenario.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto scenario = sim::parse_scenario_json(fuzz::as_text(data, size), "fuzz.json");
    if (!scenario.ok()) {
        fuzz::expect(!scenario.error().message.empty(), "the parser's error says nothing");
        return 0;
    }
    (void)sim::validate(*scenario);
    return 0;
}
