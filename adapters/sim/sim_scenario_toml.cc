/// TOML scenario files. A TOML file is converted into the document a JSON
/// file parses to (tables become objects, arrays arrays, strings, integers,
/// floats and booleans stay what they are) and read by the one schema in
/// sim_scenario.cc, so both formats take the same fields, durations ("90s"
/// or a number of ms) and errors. What TOML adds is the line: the
/// conversion remembers where each value stood, and an error names the line
/// of the field at fault, or of the nearest table around it when the field
/// is missing ("node-change.toml:14: events[1].stop_broker: broker 7 is not
/// defined").

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

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

std::string describe_syntax_error(const toml::parse_error& e, const std::string& origin) {
    const toml::source_position at = e.source().begin;
    const std::string column = at.line > 0 ? ":" + std::to_string(at.column) : "";
    return located(origin, at.line) + column + ": not TOML: " + std::string(e.description());
}

/// A line that can only be a table header: `[name]` or `[[name]]`, nothing
/// but a comment after it. An array value on a line of its own has a comma
/// or a value in it that a header's key cannot hold, so it is not mistaken
/// for one.
bool is_table_header(std::string_view line) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    size_t begin = 0;
    while (begin < line.size() && blank(line[begin])) begin++;
    if (begin == line.size() || line[begin] != '[') return false;
    size_t end = line.find('#', begin);
    if (end == std::string_view::npos) end = line.size();
    while (end > begin && blank(line[end - 1])) end--;
    const std::string_view header = line.substr(begin, end - begin);
    if (header.size() < 3 || header.back() != ']') return false;
    const bool array = header.starts_with("[[");
    if (array && !header.ends_with("]]")) return false;
    const std::string_view key = header.substr(array ? 2 : 1, header.size() - (array ? 4 : 2));
    if (key.empty()) return false;
    for (const char c : key) {
        if (c == '[' || c == ']' || c == ',' || c == '=' || c == '{' || c == '}') return false;
    }
    return true;
}

/// Every syntax error a reader would want at once, not only the first:
/// toml++ stops at the first, and what follows it on that table cannot be
/// trusted (an unclosed string swallows the next lines), so the file is
/// read again from the next table header after each error, with the lines
/// before it blanked so that lines and columns stay the file's. One error
/// per table at most; the errors are in the file's order. A clash between a
/// table after an error and one before it (a key defined twice) shows only
/// once the earlier errors are mended.
std::string describe_syntax_errors(std::string_view text, const toml::parse_error& first, const std::string& origin) {
    std::vector<size_t> line_starts{0};  // line n (from 1) starts at line_starts[n - 1]
    for (size_t i = 0; i < text.size(); i++) {
        if (text[i] == '\n') line_starts.push_back(i + 1);
    }
    const auto line_text = [&](size_t line) {
        const size_t begin = line_starts[line - 1];
        const size_t end = line < line_starts.size() ? line_starts[line] - 1 : text.size();
        return text.substr(begin, end - begin);
    };
    std::vector<std::string> errors{describe_syntax_error(first, origin)};
    size_t failed_at = first.source().begin.line;
    while (failed_at > 0 && errors.size() < max_problems_listed) {
        size_t header = failed_at + 1;
        while (header <= line_starts.size() && !is_table_header(line_text(header))) header++;
        if (header > line_starts.size()) break;
        std::string rest(header - 1, '\n');
        rest += text.substr(line_starts[header - 1]);
        try {
            (void)toml::parse(rest, std::string_view(origin));
            break;
        } catch (const toml::parse_error& e) {
            errors.push_back(describe_syntax_error(e, origin));
            // Never back: an error the parser places before the header (none
            // should) would read the same text again.
            failed_at = std::max<size_t>(e.source().begin.line, header);
        }
    }
    std::string out;
    for (const std::string& error : errors) out += (out.empty() ? "" : "\n") + error;
    return out;
}

}  // namespace

events::Result<Scenario> parse_scenario_toml(std::string_view text, const std::string& origin) {
    toml::table root;
    try {
        root = toml::parse(text, std::string_view(origin));
    } catch (const toml::parse_error& e) {
        return make_error(ErrorCode::invalid_argument, describe_syntax_errors(text, e, origin));
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
