#pragma once

/// Private to adapters/sim: the one scenario schema behind every file
/// format. A scenario file is first turned into a document tree
/// (nlohmann::json: what a JSON file parses to, and what a TOML file is
/// converted to), then read and validated here, so both formats accept the
/// same fields and give the same errors, each naming the field's path.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "adapters/sim/sim_scenario.h"

namespace ballast::sim {

/// What is wrong with a scenario document, and where.
struct ScenarioProblem {
    /// The path of the field at fault, as the file spells it:
    /// "events[2].stop_broker" (events indexed in file order, not by time);
    /// empty: the document as a whole.
    std::string path;
    std::string what;
};

/// Reads, validates and time-sorts a scenario; the first problem otherwise.
std::variant<Scenario, ScenarioProblem> read_scenario_document(const nlohmann::json& root);

/// The checks a document's types cannot make (ids unique, brokers and
/// topics known, replica lists distinct, times inside the run), over events
/// sorted by time. `file_index[i]` is where the i-th event stands in the
/// file, so a problem names the event the way its author counts them;
/// empty: by its place in `s.events`. `validate` is this with names by place.
std::optional<ScenarioProblem> check_scenario(const Scenario& s, const std::vector<size_t>& file_index);

/// "PATH[i]": the i-th element of the list at PATH.
inline std::string at_index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// "PATH: what", or "what" when the path is empty.
std::string describe(const ScenarioProblem& problem);

}  // namespace ballast::sim
