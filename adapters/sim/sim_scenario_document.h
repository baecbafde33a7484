#pragma once

/// Private to adapters/sim: the one scenario schema behind every file
/// format. A scenario file is first turned into a document tree
/// (nlohmann::json: what a JSON file parses to, and what a TOML file is
/// converted to), then read and validated here, so both formats accept the
/// same fields and give the same errors, each naming the field's path.

#include <functional>
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

/// The most problems one error lists; the rest are counted.
inline constexpr size_t max_problems_listed = 50;

/// Reads, validates and time-sorts a scenario; otherwise every problem
/// found (at least one): those of each field in file order, then those
/// across fields.
std::variant<Scenario, std::vector<ScenarioProblem>> read_scenario_document(const nlohmann::json& root);

/// What reading could not make out, so that the checks across fields do
/// not report what follows from a problem already reported (a broker whose
/// id is wrong is not "not defined" again in every event naming it).
struct ReadGaps {
    bool brokers = false;   // a broker's id (in brokers or add_broker) could not be read
    bool topics = false;    // a topic (in topics or create_topic) could not be read
    bool duration = false;  // the run's duration could not be read
};

/// sim_scenario_read.cc: every field of the document, each problem added
/// to `problems` (reading goes on past it). Events come in file order; an
/// event with a problem is left out, and `event_file_index[i]` is where
/// the i-th event read stands in the file.
Scenario read_scenario_fields(const nlohmann::json& root, std::vector<ScenarioProblem>& problems,
                              std::vector<size_t>& event_file_index, ReadGaps& gaps);

/// The checks a document's types cannot make (ids unique, brokers and
/// topics known, replica lists distinct, times inside the run), over events
/// sorted by time; every problem found. `file_index[i]` is where the i-th
/// event stands in the file, so a problem names the event the way its
/// author counts them; empty: by its place in `s.events`. `validate` is
/// this with names by place.
std::vector<ScenarioProblem> check_scenario(const Scenario& s, const std::vector<size_t>& file_index,
                                            const ReadGaps& gaps = {});

/// "PATH[i]": the i-th element of the list at PATH.
inline std::string at_index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

/// "PATH: what", or "what" when the path is empty.
std::string describe(const ScenarioProblem& problem);

/// Every problem on a line of its own, each as `where(problem)` + ": " +
/// describe(problem) (where: the file, and the line when known), at most
/// `max_problems_listed` and then how many more.
std::string describe_all(const std::vector<ScenarioProblem>& problems,
                         const std::function<std::string(const ScenarioProblem&)>& where);

}  // namespace ballast::sim
