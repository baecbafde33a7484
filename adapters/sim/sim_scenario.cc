#include "adapters/sim/sim_scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adapters/sim/sim_scenario_document.h"

namespace ballast::sim {

namespace {

using events::ErrorCode;
using events::make_error;
using nlohmann::json;

/// ".toml" -> "toml": the extension, lower case, without its dot.
std::string extension_of(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    if (!ext.empty()) ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

}  // namespace

std::variant<Scenario, std::vector<ScenarioProblem>> read_scenario_document(const json& root) {
    std::vector<ScenarioProblem> problems;
    std::vector<size_t> file_index;  // of each event read
    ReadGaps gaps;
    Scenario s;
    try {
        s = read_scenario_fields(root, problems, file_index, gaps);
    } catch (const json::exception& e) {
        problems.push_back({"", e.what()});
        return problems;
    }
    // Validated in time order (a traffic change may name a topic created
    // earlier in time but later in the file), named in file order.
    std::vector<size_t> order(s.events.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return s.events[a].at_ms < s.events[b].at_ms; });
    std::vector<TimedEvent> sorted;
    std::vector<size_t> sorted_file_index;
    sorted.reserve(order.size());
    for (size_t i : order) {
        sorted.push_back(std::move(s.events[i]));
        sorted_file_index.push_back(file_index[i]);
    }
    s.events = std::move(sorted);
    for (ScenarioProblem& problem : check_scenario(s, sorted_file_index, gaps)) problems.push_back(std::move(problem));
    if (!problems.empty()) return problems;
    return s;
}

std::string describe(const ScenarioProblem& problem) {
    return problem.path.empty() ? problem.what : problem.path + ": " + problem.what;
}

std::string describe_all(const std::vector<ScenarioProblem>& problems,
                         const std::function<std::string(const ScenarioProblem&)>& where) {
    std::string out;
    for (size_t i = 0; i < problems.size() && i < max_problems_listed; i++) {
        if (i > 0) out += "\n";
        const std::string at = where(problems[i]);
        out += (at.empty() ? "" : at + ": ") + describe(problems[i]);
    }
    if (problems.size() > max_problems_listed) {
        out += "\n... and " + std::to_string(problems.size() - max_problems_listed) + " more problems";
    }
    return out;
}

events::Result<int64_t> parse_duration_ms(std::string_view text) {
    const auto bad = [&] {
        return make_error(ErrorCode::invalid_argument,
                          "'" + std::string(text) + "' is not a duration (expected e.g. 1500ms, 90s, 1.5s, 10m, 2h)");
    };
    if (text.empty()) return bad();
    size_t unit_at = 0;
    while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.')) {
        unit_at++;
    }
    if (unit_at == 0) return bad();
    const std::string number(text.substr(0, unit_at));
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (*end != '\0' || !std::isfinite(value)) return bad();
    const std::string_view unit = text.substr(unit_at);
    double ms_per_unit = 0;
    if (unit.empty() || unit == "ms") {
        ms_per_unit = 1;
    } else if (unit == "s") {
        ms_per_unit = 1'000;
    } else if (unit == "m" || unit == "min") {
        ms_per_unit = 60'000;
    } else if (unit == "h") {
        ms_per_unit = 3'600'000;
    } else if (unit == "d") {
        ms_per_unit = 86'400'000;
    } else {
        return bad();
    }
    const double ms = value * ms_per_unit;
    if (ms > 1e15) return bad();
    return static_cast<int64_t>(std::llround(ms));
}

events::Result<Scenario> parse_scenario_json(std::string_view text, const std::string& origin) {
    json root;
    try {
        root = json::parse(text);
    } catch (const json::parse_error& e) {
        return make_error(ErrorCode::invalid_argument,
                          origin + ": not JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    } catch (const json::exception& e) {
        // A number past what a double holds (1e400) is out_of_range, not a parse_error.
        return make_error(ErrorCode::invalid_argument, origin + ": not JSON: " + e.what());
    }
    std::variant<Scenario, std::vector<ScenarioProblem>> read = read_scenario_document(root);
    if (auto* problems = std::get_if<std::vector<ScenarioProblem>>(&read)) {
        return make_error(ErrorCode::invalid_argument,
                          describe_all(*problems, [&](const ScenarioProblem&) { return origin; }));
    }
    return std::get<Scenario>(std::move(read));
}

events::Result<Scenario> load_scenario_file(const std::string& path) {
    const std::string ext = extension_of(path);
    if (ext != "json" && ext != "toml") {
        return make_error(ErrorCode::invalid_argument,
                          "scenario file " + path + ": " +
                              (ext.empty() ? std::string("no extension") : "unknown extension ." + ext) +
                              " (a scenario is a .json or a .toml file)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(ErrorCode::not_found, "scenario file " + path + ": cannot be opened");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return make_error(ErrorCode::io_error, "scenario file " + path + ": read failed");
    return ext == "toml" ? parse_scenario_toml(text.str(), path) : parse_scenario_json(text.str(), path);
}

const char* flavor_name(Flavor flavor) { return flavor == Flavor::automq ? "automq" : "apache"; }

}  // namespace ballast::sim
