#include "events/config.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

namespace ballast::events {

namespace {

constexpr int64_t max_int32 = std::numeric_limits<int32_t>::max();

// ------------------------------------------------------------ value parsing

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view text) {
    while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
    return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [&](char x, char y) { return lower(x) == lower(y); });
}

std::string join(const auto& items, std::string_view separator) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += separator;
        if constexpr (std::is_arithmetic_v<std::decay_t<decltype(item)>>) {
            out += std::to_string(item);
        } else {
            out += item;
        }
    }
    return out;
}

/// Shortest text that parses back to exactly `value` (std::to_chars' guarantee),
/// so that value_text round-trips and defaults like 0.1 print as written.
std::string format_double(double value) {
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    assert(ec == std::errc{});
    return std::string(buffer, end);
}

enum class NumberStatus { ok, malformed, overflow };

/// from_chars rejects a leading '+', which people write; accept exactly one.
std::string_view drop_plus(std::string_view text) {
    if (text.size() >= 2 && text[0] == '+' && text[1] != '-' && text[1] != '+') {
        text.remove_prefix(1);
    }
    return text;
}

/// Decimal integer, optional sign, nothing else (no spaces, no junk, no hex).
NumberStatus parse_integer(std::string_view text, int64_t& out) {
    text = drop_plus(text);
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(text.data(), last, out);
    if (end != last || ec == std::errc::invalid_argument) return NumberStatus::malformed;
    if (ec == std::errc::result_out_of_range) return NumberStatus::overflow;
    return NumberStatus::ok;
}

/// Decimal or scientific notation; inf and nan are not numbers a user means.
NumberStatus parse_number(std::string_view text, double& out) {
    text = drop_plus(text);
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(text.data(), last, out);
    if (end != last || ec == std::errc::invalid_argument) return NumberStatus::malformed;
    if (ec == std::errc::result_out_of_range) return NumberStatus::overflow;
    if (!std::isfinite(out)) return NumberStatus::malformed;
    return NumberStatus::ok;
}

Error bad_value(const KeySpec& spec, std::string_view text, std::string_view problem) {
    return make_error(ErrorCode::invalid_argument, "config key '" + std::string(spec.key) +
                                                       "': value '" + std::string(text) + "' " +
                                                       std::string(problem));
}

std::string int_range(const KeySpec& spec) {
    return "[" + std::to_string(spec.min_int) + ", " + std::to_string(spec.max_int) + "]";
}

Result<int64_t> parse_bounded_integer(const KeySpec& spec, std::string_view text) {
    const std::string expected = "(expected an integer in " + int_range(spec) + ")";
    int64_t value = 0;
    switch (parse_integer(text, value)) {
        case NumberStatus::malformed: return bad_value(spec, text, "is not an integer " + expected);
        case NumberStatus::overflow: return bad_value(spec, text, "is out of range " + expected);
        case NumberStatus::ok: break;
    }
    if (value < spec.min_int || value > spec.max_int) {
        return bad_value(spec, text, "is out of range " + expected);
    }
    return value;
}

Result<double> parse_bounded_number(const KeySpec& spec, std::string_view text) {
    const std::string expected = "(expected a number in [" + format_double(spec.min_double) + ", " +
                                 format_double(spec.max_double) + "])";
    double value = 0;
    switch (parse_number(text, value)) {
        case NumberStatus::malformed: return bad_value(spec, text, "is not a number " + expected);
        case NumberStatus::overflow: return bad_value(spec, text, "is out of range " + expected);
        case NumberStatus::ok: break;
    }
    if (value < spec.min_double || value > spec.max_double) {
        return bad_value(spec, text, "is out of range " + expected);
    }
    return value;
}

/// Splits a comma-separated list, trimming whitespace around each element.
/// Blank text is the empty list. An empty element ("a,,b", "a,") is an error:
/// it is far more likely a typo than an intent.
Result<std::vector<std::string_view>> split_list(const KeySpec& spec, std::string_view text,
                                                 std::string_view expected) {
    std::vector<std::string_view> elements;
    if (trim(text).empty()) return elements;
    std::string_view rest = text;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string_view element = trim(rest.substr(0, comma));
        if (element.empty()) {
            return bad_value(spec, text,
                             "has an empty element (expected " + std::string(expected) + ")");
        }
        elements.push_back(element);
        if (comma == std::string_view::npos) return elements;
        rest.remove_prefix(comma + 1);
    }
}

Result<std::vector<int32_t>> parse_int_list(const KeySpec& spec, std::string_view text) {
    constexpr std::string_view expected = "a comma-separated list of integers";
    Result<std::vector<std::string_view>> elements = split_list(spec, text, expected);
    if (!elements) return elements.error();
    std::vector<int32_t> values;
    for (std::string_view element : *elements) {
        int64_t value = 0;
        const NumberStatus status = parse_integer(element, value);
        if (status == NumberStatus::malformed) {
            return bad_value(spec, text,
                             "has a bad element '" + std::string(element) + "' (expected " +
                                 std::string(expected) + ")");
        }
        if (status == NumberStatus::overflow || value < spec.min_int || value > spec.max_int) {
            return bad_value(spec, text,
                             "has an element '" + std::string(element) +
                                 "' out of range (expected integers in " + int_range(spec) + ")");
        }
        values.push_back(static_cast<int32_t>(value));
    }
    return values;
}

Result<std::vector<std::string>> parse_string_list(const KeySpec& spec, std::string_view text) {
    Result<std::vector<std::string_view>> elements =
        split_list(spec, text, "a comma-separated list");
    if (!elements) return elements.error();
    if (spec.element_check) {
        for (std::string_view element : *elements) {
            const std::string expected = spec.element_check(element);
            if (!expected.empty()) {
                return bad_value(spec, text, "has a bad element '" + std::string(element) +
                                                 "' (expected " + expected + ")");
            }
        }
    }
    return std::vector<std::string>(elements->begin(), elements->end());
}

/// Goals by short name, or by AutoMQ class name which is normalized to the short
/// name. A goal listed twice would make its priority ambiguous: an error.
Result<std::vector<std::string>> parse_goal_list(const KeySpec& spec, std::string_view text) {
    Result<std::vector<std::string_view>> elements =
        split_list(spec, text, "a comma-separated list of goals");
    if (!elements) return elements.error();
    if (elements->empty()) return bad_value(spec, text, "is empty (expected at least one goal)");
    std::vector<std::string> goals;
    for (std::string_view element : *elements) {
        std::string_view name = element;
        if (name.starts_with(automq_goal_prefix)) name.remove_prefix(automq_goal_prefix.size());
        const auto& known = known_goals();
        if (std::find(known.begin(), known.end(), name) == known.end()) {
            return bad_value(spec, text, "has an unknown goal '" + std::string(element) +
                                             "' (known goals: " + join(known, ", ") + ")");
        }
        if (std::find(goals.begin(), goals.end(), name) != goals.end()) {
            return bad_value(spec, text, "lists goal '" + std::string(name) + "' twice");
        }
        goals.emplace_back(name);
    }
    return goals;
}

/// "unknown config key 'x' (did you mean 'y'?)".
Error unknown_key(std::string_view key) {
    std::string message = "unknown config key '" + std::string(key) + "'";
    std::vector<std::string_view> known;
    known.reserve(config_keys().size());
    for (const KeySpec& spec : config_keys()) known.push_back(spec.key);
    if (std::string closest = closest_name(key, known); !closest.empty()) {
        message += " (did you mean '" + closest + "'?)";
    }
    return make_error(ErrorCode::invalid_argument, std::move(message));
}

/// The inverse of unescape for a value: a properties line that reads back as `value`.
std::string escape(std::string_view value) {
    std::string out;
    for (char c : value) {
        switch (c) {
            case '\\': out += "\\\\"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\f': out += "\\f"; break;
            case ' ': out += "\\ "; break;  // keeps leading and trailing spaces
            default: out += c;
        }
    }
    return out;
}

}  // namespace

// ------------------------------------------------------------ registry

const char* value_type_name(ValueType type) {
    switch (type) {
        case ValueType::boolean: return "boolean";
        case ValueType::int32: return "int32";
        case ValueType::int64: return "int64";
        case ValueType::float64: return "float64";
        case ValueType::string: return "string";
        case ValueType::int_list: return "int_list";
        case ValueType::string_list: return "string_list";
        case ValueType::choice: return "choice";
        case ValueType::goal_list: return "goal_list";
    }
    return "unknown";
}

const std::vector<std::string_view>& known_goals() {
    static const std::vector<std::string_view> goals = {
        "RackAwareGoal",
        "ReplicaCapacityGoal",
        "NetworkInCapacityGoal",
        "NetworkOutCapacityGoal",
        "DiskCapacityGoal",
        "NetworkInUsageDistributionGoal",
        "NetworkOutUsageDistributionGoal",
        "ReplicaCountDistributionGoal",
        "LeaderCountDistributionGoal",
        "TopicSpreadGoal",
    };
    return goals;
}

// ------------------------------------------------------------ Config

Result<Config::Value> Config::parse_value(const KeySpec& spec, std::string_view text) {
    auto lift = [](auto result) -> Result<Value> {
        if (!result) return result.error();
        return Value(std::move(result).value());
    };
    switch (spec.type) {
        case ValueType::boolean:
            if (equals_ignoring_case(text, "true")) return Value(true);
            if (equals_ignoring_case(text, "false")) return Value(false);
            return bad_value(spec, text, "is not a boolean (expected true or false)");
        case ValueType::int32:
        case ValueType::int64: return lift(parse_bounded_integer(spec, text));
        case ValueType::float64: return lift(parse_bounded_number(spec, text));
        case ValueType::string:
            if (text.empty() && !spec.allow_empty) {
                return bad_value(spec, text, "is empty (expected a non-empty string)");
            }
            if (!text.empty() && spec.element_check) {
                if (const std::string expected = spec.element_check(text); !expected.empty()) {
                    return bad_value(spec, text, "is not " + expected);
                }
            }
            return Value(std::string(text));
        case ValueType::int_list: return lift(parse_int_list(spec, text));
        case ValueType::string_list: return lift(parse_string_list(spec, text));
        case ValueType::choice:
            // Stored in its canonical spelling, so "INFO" reads back as "info".
            for (std::string_view choice : spec.choices) {
                if (equals_ignoring_case(text, choice)) return Value(std::string(choice));
            }
            return bad_value(spec, text, "is not one of: " + join(spec.choices, ", "));
        case ValueType::goal_list: return lift(parse_goal_list(spec, text));
    }
    assert(false && "unhandled ValueType");
    return bad_value(spec, text, "has an unknown type");
}

std::string Config::format_value(const KeySpec& spec, const Value& value) {
    switch (spec.type) {
        case ValueType::boolean: return std::get<bool>(value) ? "true" : "false";
        case ValueType::int32:
        case ValueType::int64: return std::to_string(std::get<int64_t>(value));
        case ValueType::float64: return format_double(std::get<double>(value));
        case ValueType::string:
        case ValueType::choice: return std::get<std::string>(value);
        case ValueType::int_list: return join(std::get<std::vector<int32_t>>(value), ",");
        case ValueType::string_list:
        case ValueType::goal_list: return join(std::get<std::vector<std::string>>(value), ",");
    }
    assert(false && "unhandled ValueType");
    return {};
}

Config Config::defaults() {
    Config config;
    for (const KeySpec& spec : config_keys()) {
        Result<Value> value = parse_value(spec, spec.default_value);
        assert(value.ok() && "every default value must parse");
        config._slots.push_back(Slot{std::move(value).value(), "default"});
    }
    return config;
}

Status Config::set(std::string_view key, std::string_view value, std::string_view origin) {
    const KeySpec* spec = find_key(key);
    if (spec == nullptr) return unknown_key(key);
    Result<Value> parsed = parse_value(*spec, value);
    if (!parsed) return parsed.error();
    Slot& slot = _slots[index_of(key)];
    slot.value = std::move(parsed).value();
    slot.origin = std::string(origin);
    return Status::ok_status();
}

Status Config::apply_override(std::string_view assignment) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string_view::npos) {
        return make_error(ErrorCode::invalid_argument,
                          "--set '" + std::string(assignment) + "': expected key=value");
    }
    return set(trim(assignment.substr(0, equals)), trim(assignment.substr(equals + 1)), "--set");
}

Status Config::load_properties_text(std::string_view text, std::string_view origin) {
    Result<std::vector<PropertyLine>> lines =
        parse_properties(text, origin, PropertiesDialect::ballast, [](std::string_view key) {
            const KeySpec* spec = find_key(key);
            return spec != nullptr && spec->secret;
        });
    if (!lines) return lines.error();
    // Applied to a copy, so that a bad line leaves this config untouched.
    Config staged = *this;
    for (const PropertyLine& line : *lines) {
        const std::string where = std::string(origin) + ":" + std::to_string(line.line);
        if (Status status = staged.set(line.key, line.value, where); !status) {
            return make_error(status.error().code, where + ": " + status.error().message);
        }
    }
    *this = std::move(staged);
    return Status::ok_status();
}

Status Config::load_properties_file(const std::string& path) {
    Result<std::string> text = read_text_file(path, "config file");
    if (!text) return text.error();
    return load_properties_text(*text, path);
}

std::size_t Config::index_of(std::string_view key) {
    const KeySpec* spec = find_key(key);
    assert(spec != nullptr && "no such config key");
    return static_cast<std::size_t>(spec - config_keys().data());
}

const Config::Slot& Config::slot(std::string_view key, [[maybe_unused]] ValueType type,
                                  [[maybe_unused]] ValueType also) const {
    const std::size_t index = index_of(key);
    [[maybe_unused]] const ValueType actual = config_keys()[index].type;
    assert((actual == type || actual == also) && "config key read with the wrong getter");
    return _slots[index];
}

bool Config::get_bool(std::string_view key) const {
    return std::get<bool>(slot(key, ValueType::boolean).value);
}

int32_t Config::get_int32(std::string_view key) const {
    // Within int32 by the key's bounds (checked when the table is built).
    return static_cast<int32_t>(std::get<int64_t>(slot(key, ValueType::int32).value));
}

int64_t Config::get_int64(std::string_view key) const {
    return std::get<int64_t>(slot(key, ValueType::int64).value);
}

double Config::get_double(std::string_view key) const {
    return std::get<double>(slot(key, ValueType::float64).value);
}

const std::string& Config::get_string(std::string_view key) const {
    return std::get<std::string>(slot(key, ValueType::string, ValueType::choice).value);
}

const std::vector<int32_t>& Config::get_int_list(std::string_view key) const {
    return std::get<std::vector<int32_t>>(slot(key, ValueType::int_list).value);
}

const std::vector<std::string>& Config::get_string_list(std::string_view key) const {
    return std::get<std::vector<std::string>>(slot(key, ValueType::string_list).value);
}

const std::vector<std::string>& Config::get_goals() const {
    return std::get<std::vector<std::string>>(
        slot("autobalancer.controller.goals", ValueType::goal_list).value);
}

std::string Config::value_text(std::string_view key) const {
    const std::size_t index = index_of(key);
    return format_value(config_keys()[index], _slots[index].value);
}

const std::string& Config::origin(std::string_view key) const {
    return _slots[index_of(key)].origin;
}

std::vector<std::pair<std::string, std::string>> Config::entries() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < config_keys().size(); ++i) {
        const KeySpec& spec = config_keys()[i];
        out.emplace_back(std::string(spec.key), format_value(spec, _slots[i].value));
    }
    return out;
}

std::string Config::display_text(std::string_view key) const {
    const std::size_t index = index_of(key);
    const KeySpec& spec = config_keys()[index];
    std::string text = format_value(spec, _slots[index].value);
    if (spec.secret && !text.empty()) return std::string(hidden_text);
    return text;
}

std::vector<std::pair<std::string, std::string>> Config::journal_entries() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < config_keys().size(); ++i) {
        const KeySpec& spec = config_keys()[i];
        if (spec.journaled) out.emplace_back(std::string(spec.key), format_value(spec, _slots[i].value));
    }
    return out;
}

std::string Config::to_properties_text() const {
    std::string out;
    for (const auto& [key, value] : journal_entries()) out += key + "=" + escape(value) + "\n";
    return out;
}

Result<CapacityOverride> parse_capacity_override(std::string_view element) {
    const auto expected = [&](std::string what) {
        return make_error(ErrorCode::invalid_argument,
                          "ID:in=BYTES_PER_S:out=BYTES_PER_S:disk=BYTES:replicas=N; " + what);
    };
    CapacityOverride out;
    size_t start = 0;
    bool first = true;
    while (start <= element.size()) {
        const size_t end = std::min(element.find(':', start), element.size());
        const std::string_view field = element.substr(start, end - start);
        start = end + 1;
        if (first) {
            first = false;
            int64_t id = 0;
            const auto r = std::from_chars(field.data(), field.data() + field.size(), id);
            if (r.ec != std::errc() || r.ptr != field.data() + field.size() || id < 0 ||
                id > max_int32) {
                return expected("'" + std::string(field) + "' is not a broker id");
            }
            out.broker_id = static_cast<int32_t>(id);
            continue;
        }
        const size_t eq = field.find('=');
        const std::string_view name = field.substr(0, eq);
        const std::string value(eq == std::string_view::npos ? "" : field.substr(eq + 1));
        char* parsed_end = nullptr;
        const double number = std::strtod(value.c_str(), &parsed_end);
        if (eq == std::string_view::npos || value.empty() || *parsed_end != '\0' ||
            !std::isfinite(number) || number < 0) {
            return expected("'" + std::string(field) + "' is not name=non-negative number");
        }
        if (name == "in") {
            out.network_in_bytes_per_s = number;
        } else if (name == "out") {
            out.network_out_bytes_per_s = number;
        } else if (name == "disk") {
            out.disk_bytes = number;
        } else if (name == "replicas" && number <= max_int32 &&
                   number == static_cast<double>(static_cast<int32_t>(number))) {
            out.replicas_max = static_cast<int32_t>(number);
        } else {
            return expected("'" + std::string(field) + "' is not in=, out=, disk= or replicas=");
        }
    }
    return out;
}

bool ListenAddress::loopback() const {
    return host == "localhost" || host == "::1" || host.starts_with("127.");
}

std::string ListenAddress::text() const {
    const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return shown + ":" + std::to_string(port);
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
    const auto expected = [&](const std::string& what) {
        return make_error(ErrorCode::invalid_argument, "HOST:PORT ([::1]:PORT for IPv6; port 0: any free one); " + what);
    };
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return expected("'" + std::string(text) + "' has no port");
    std::string_view host = text.substr(0, colon);
    const std::string_view port_text = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        return expected("an IPv6 host goes in brackets: [" + std::string(host) + "]:" + std::string(port_text));
    }
    if (host.empty()) {
        return expected("'" + std::string(text) + "' has no host (127.0.0.1: this machine only; 0.0.0.0: every interface)");
    }
    for (const char c : host) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' && c != '_') {
            return expected("'" + std::string(host) + "' is not a host name or address");
        }
    }
    int64_t port = 0;
    if (parse_integer(port_text, port) != NumberStatus::ok || port_text.starts_with('+') || port < 0 || port > 65535) {
        return expected("'" + std::string(port_text) + "' is not a port in [0, 65535]");
    }
    return ListenAddress{std::string(host), static_cast<uint16_t>(port)};
}

}  // namespace ballast::events
