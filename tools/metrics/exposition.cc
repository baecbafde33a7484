#include "tools/metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ballast::metrics {

namespace {

bool name_char(char c, bool first, bool colon) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    return letter || (!first && c >= '0' && c <= '9');
}

bool is_name(const std::string& name, bool colon) {
    if (name.empty()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        if (!name_char(name[i], i == 0, colon)) return false;
    }
    return true;
}

std::string escape_help(const std::string& help) {
    std::string out;
    for (char c : help) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

std::string sample_line(const std::string& name, const Labels& labels, double value) {
    std::string line = name;
    if (!labels.empty()) {
        line += '{';
        for (size_t i = 0; i < labels.size(); ++i) {
            if (!is_label_name(labels[i].first) || labels[i].first.starts_with("__")) {
                throw std::invalid_argument("metric " + name + ": '" + labels[i].first + "' is not a label name");
            }
            line += (i ? "," : "") + labels[i].first + "=\"" + escape_label_value(labels[i].second) + '"';
        }
        line += '}';
    }
    return line + ' ' + format_value(value);
}

}  // namespace

const char* type_name(Type type) {
    switch (type) {
        case Type::counter: return "counter";
        case Type::gauge: return "gauge";
        case Type::histogram: return "histogram";
    }
    return "untyped";
}

std::string format_value(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    if (value == std::trunc(value) && std::fabs(value) < 9.007199254740992e15) {
        return std::to_string(static_cast<int64_t>(value));
    }
    // Plain decimals where they stay short (0.0001, not 1e-04), the
    // exponent beyond; either way the shortest text that reads back.
    char buffer[64];
    const double magnitude = std::fabs(value);
    const auto format = magnitude >= 1e-6 && magnitude < 1e15 ? std::chars_format::fixed : std::chars_format::general;
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, format);
    return std::string(buffer, end);
}

std::string escape_label_value(const std::string& value) {
    std::string out;
    for (char c : value) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

bool is_metric_name(const std::string& name) { return is_name(name, true); }
bool is_label_name(const std::string& name) { return is_name(name, false); }

void Exposition::declare(const std::string& name, Type type, const std::string& help) {
    if (!is_metric_name(name)) throw std::invalid_argument("'" + name + "' is not a metric name");
    if (type == Type::counter && !name.ends_with("_total")) {
        throw std::invalid_argument("counter " + name + " does not end in _total");
    }
    if (!_families.emplace(name, Family{type, help, {}}).second) {
        throw std::invalid_argument("metric " + name + " declared twice");
    }
    _order.push_back(name);
}

Exposition::Family& Exposition::family(const std::string& name, Type type) {
    auto it = _families.find(name);
    if (it == _families.end()) throw std::invalid_argument("metric " + name + " is not declared");
    if ((type == Type::histogram) != (it->second.type == Type::histogram)) {
        throw std::invalid_argument("metric " + name + " is a " + type_name(it->second.type));
    }
    return it->second;
}

void Exposition::add(const std::string& name, const Labels& labels, double value) {
    Family& f = family(name, Type::gauge);
    if (f.type == Type::counter && !(value >= 0)) {
        throw std::invalid_argument("counter " + name + " given " + format_value(value));
    }
    f.lines.push_back(sample_line(name, labels, value));
}

void Exposition::add_histogram(const std::string& name, const Labels& labels, const HistogramData& data) {
    Family& f = family(name, Type::histogram);
    if (data.bucket_counts.size() != data.upper_bounds.size()) {
        throw std::invalid_argument("histogram " + name + ": " + std::to_string(data.bucket_counts.size()) +
                                    " counts for " + std::to_string(data.upper_bounds.size()) + " buckets");
    }
    uint64_t cumulative = 0;
    for (size_t i = 0; i < data.upper_bounds.size(); ++i) {
        if (i > 0 && !(data.upper_bounds[i] > data.upper_bounds[i - 1])) {
            throw std::invalid_argument("histogram " + name + ": bounds not ascending at " +
                                        format_value(data.upper_bounds[i]));
        }
        cumulative += data.bucket_counts[i];
        Labels with_le = labels;
        with_le.emplace_back("le", format_value(data.upper_bounds[i]));
        f.lines.push_back(sample_line(name + "_bucket", with_le, static_cast<double>(cumulative)));
    }
    if (cumulative > data.count) {
        throw std::invalid_argument("histogram " + name + ": buckets hold more than its count");
    }
    Labels with_inf = labels;
    with_inf.emplace_back("le", "+Inf");
    f.lines.push_back(sample_line(name + "_bucket", with_inf, static_cast<double>(data.count)));
    f.lines.push_back(sample_line(name + "_sum", labels, data.sum));
    f.lines.push_back(sample_line(name + "_count", labels, static_cast<double>(data.count)));
}

std::string Exposition::text() const {
    std::string out;
    for (const std::string& name : _order) {
        const Family& f = _families.at(name);
        out += "# HELP " + name + ' ' + escape_help(f.help) + '\n';
        out += "# TYPE " + name + ' ' + type_name(f.type) + '\n';
        for (const std::string& line : f.lines) out += line + '\n';
    }
    return out;
}

}  // namespace ballast::metrics
