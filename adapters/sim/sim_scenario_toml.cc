/// TOML scenario files. A TOML file is converted into the document a JSON
/// file parses to (tables become objects, arrays arrays, strings, integers,
/// floats and booleans stay what they are) and read by the one schema in
/// sim_scenario.cc, so both formats take the same fields, durations ("90s"
/// or a number of ms) and errors. What TOML adds is the line: the
/// conversion remembers where each value stood, and an error names the line
/// of the field at fault, or of the nearest table around it when the field
/// is missing ("node-change.toml:14: events[1].stop_broker: broker 7 is not
/// defined").

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "adapters/sim/sim_scenario_document.h"

namespace ballast::sim {

namespace {

using events::ErrorCode;
using events::make_error;
using nlohmann::json;

/// A TOML value no scenario field can take: thrown inside this file only.
struct Unconvertible {
    std::string path;
    std::string what;
};

/// The conversion, with the line of every value it met, by its path (the
/// paths the schema names fields by: "topics[0].traffic.at").
class TomlDocument {
public:
    json convert(const toml::node& node, const std::string& path) {
        remember(path, node.source().begin.line);
        switch (node.type()) {
            case toml::node_type::table: {
                json object = json::object();
                for (auto&& [key, value] : *node.as_table()) {
                    const std::string name(key.str());
                    const std::string child = path.empty() ? name : path + "." + name;
                    // An implicit table (from a dotted key) may have no place
                    // of its own: its key has.
                    remember(child, key.source().begin.line);
                    object[name] = convert(value, child);
                }
                return object;
            }
            case toml::node_type::array: {
                json array = json::array();
                const toml::array& items = *node.as_array();
                for (size_t i = 0; i < items.size(); i++) {
                    array.push_back(convert(items[i], path + "[" + std::to_string(i) + "]"));
                }
                return array;
            }
            case toml::node_type::string: return node.as_string()->get();
            case toml::node_type::integer: return node.as_integer()->get();
            case toml::node_type::floating_point: return node.as_floating_point()->get();
            case toml::node_type::boolean: return node.as_boolean()->get();
            case toml::node_type::date:
            case toml::node_type::time:
            case toml::node_type::date_time:
                throw Unconvertible{path, "a TOML date or time is no scenario value (times in a scenario are "
                                          "durations from the start: \"90s\", \"10m\", or a number of ms)"};
            case toml::node_type::none: break;
        }
        throw Unconvertible{path, "a TOML value of an unknown kind"};
    }

    /// The line of `path`, else of the nearest enclosing field that has one;
    /// 0: none (the document as a whole).
    uint32_t line_of(std::string path) const {
        while (!path.empty()) {
            if (auto it = _lines.find(path); it != _lines.end()) return it->second;
            // Up one level: drop "[i]" or ".key" (a dotted settings key climbs
            // through its parts, which is where TOML placed them too).
            const size_t cut = path.find_last_of(".[");
            path.resize(cut == std::string::npos ? 0 : cut);
        }
        return 0;
    }

private:
    void remember(const std::string& path, uint32_t line) {
        if (line > 0) _lines.emplace(path, line);  // the first place wins: where the field begins
    }

    std::map<std::string, uint32_t> _lines;
};

std::string located(const std::string& origin, uint32_t line) {
    return line > 0 ? origin + ":" + std::to_string(line) : origin;
}

}  // namespace

events::Result<Scenario> parse_scenario_toml(std::string_view text, const std::string& origin) {
    toml::table root;
    try {
        root = toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error& e) {
        const toml::source_position at = e.source().begin;
        const std::string column = at.line > 0 ? ":" + std::to_string(at.column) : "";
        return make_error(ErrorCode::invalid_argument,
                          located(origin, at.line) + column + ": not TOML: " + std::string(e.description()));
    }
    TomlDocument document;
    json tree;
    try {
        tree = document.convert(root, "");
    } catch (const Unconvertible& bad) {
        return make_error(ErrorCode::invalid_argument,
                          located(origin, document.line_of(bad.path)) + ": " + bad.path + ": " + bad.what);
    }
    std::variant<Scenario, std::vector<ScenarioProblem>> read = read_scenario_document(tree);
    if (auto* problems = std::get_if<std::vector<ScenarioProblem>>(&read)) {
        return make_error(ErrorCode::invalid_argument, describe_all(*problems, [&](const ScenarioProblem& problem) {
                              return located(origin, document.line_of(problem.path));
                          }));
    }
    return std::get<Scenario>(std::move(read));
}

}  // namespace ballast::sim
