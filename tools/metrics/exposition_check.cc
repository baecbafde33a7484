#include "tools/metrics/exposition_check.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "tools/metrics/exposition.h"

namespace ballast::metrics {

namespace {

struct Sample {
    std::string name;
    std::vector<std::pair<std::string, std::string>> labels;  // as written, unescaped
    double value = 0;
};

std::optional<double> parse_float(const std::string& text) {
    if (text == "NaN") return std::nan("");
    if (text == "+Inf" || text == "Inf") return INFINITY;
    if (text == "-Inf") return -INFINITY;
    double value = 0;
    const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

/// One sample line; an error saying what is wrong with it.
std::optional<Sample> parse_sample(const std::string& line, std::string* error) {
    Sample s;
    size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!is_metric_name(s.name)) return *error = "'" + s.name + "' is not a metric name", std::nullopt;
    if (i < line.size() && line[i] == '{') {
        ++i;
        while (i < line.size() && line[i] != '}') {
            const size_t eq = line.find('=', i);
            if (eq == std::string::npos) return *error = "a label without '='", std::nullopt;
            const std::string label = line.substr(i, eq - i);
            if (!is_label_name(label)) return *error = "'" + label + "' is not a label name", std::nullopt;
            if (label.starts_with("__")) return *error = "label " + label + " begins with __ (reserved)", std::nullopt;
            for (const auto& [known, _] : s.labels) {
                if (known == label) return *error = "label " + label + " twice", std::nullopt;
            }
            i = eq + 1;
            if (i >= line.size() || line[i] != '"') return *error = "label " + label + "'s value is not quoted", std::nullopt;
            std::string value;
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] != '\\') {
                    value += line[i];
                    continue;
                }
                if (++i >= line.size()) break;
                if (line[i] == 'n') value += '\n';
                else if (line[i] == '\\' || line[i] == '"') value += line[i];
                else return *error = std::string("label ") + label + " has the escape \\" + line[i], std::nullopt;
            }
            if (i >= line.size()) return *error = "label " + label + "'s value is not closed", std::nullopt;
            s.labels.emplace_back(label, value);
            ++i;
            if (i < line.size() && line[i] == ',') ++i;
            else if (i < line.size() && line[i] != '}') return *error = "expected ',' or '}' after label " + label, std::nullopt;
        }
        if (i >= line.size()) return *error = "the labels are not closed", std::nullopt;
        ++i;
    }
    if (i >= line.size() || line[i] != ' ') return *error = "no value", std::nullopt;
    std::istringstream rest(line.substr(i + 1));
    std::string value_text, timestamp, extra;
    rest >> value_text >> timestamp >> extra;
    const std::optional<double> value = parse_float(value_text);
    if (!value) return *error = "'" + value_text + "' is not a value", std::nullopt;
    if (!timestamp.empty()) {
        int64_t ms = 0;
        const auto [end, ec] = std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), ms);
        if (ec != std::errc() || end != timestamp.data() + timestamp.size()) {
            return *error = "'" + timestamp + "' is not a timestamp", std::nullopt;
        }
    }
    if (!extra.empty()) return *error = "text after the timestamp", std::nullopt;
    s.value = *value;
    return s;
}

/// A histogram's series, one per label set without `le`.
struct Series {
    std::vector<std::pair<double, double>> buckets;  // le, count, as they came
    std::optional<double> count;
};

class Checker {
public:
    void line(size_t number, const std::string& text) {
        _number = number;
        _text = text;
        if (text.empty()) return;
        if (text.starts_with('#')) return comment(text);
        std::string error;
        std::optional<Sample> s = parse_sample(text, &error);
        if (!s) return fail(error);
        sample(*s);
    }

    std::vector<std::string> finish() {
        end_family();
        return std::move(_errors);
    }

private:
    void fail(const std::string& what) { _errors.push_back("line " + std::to_string(_number) + ": " + what + " (" + _text + ")"); }

    void comment(const std::string& text) {
        std::istringstream in(text.substr(1));
        std::string keyword, name, rest;
        in >> keyword >> name;
        if (keyword != "HELP" && keyword != "TYPE") return;  // a plain comment
        if (!is_metric_name(name)) return fail("'" + name + "' is not a metric name");
        begin_family(name);
        if (keyword == "HELP") {
            if (!_helped.insert(name).second) fail("a second HELP for " + name);
            return;
        }
        in >> rest;
        if (rest != "counter" && rest != "gauge" && rest != "histogram" && rest != "summary" && rest != "untyped") {
            return fail("'" + rest + "' is not a type");
        }
        if (_types.count(name)) return fail("a second TYPE for " + name);
        if (_family_has_samples) return fail("TYPE of " + name + " after its samples");
        _types[name] = rest;
    }

    /// The family a sample belongs to: its name, or a histogram's/summary's base.
    std::string family_of(const std::string& name) const {
        for (const char* suffix : {"_bucket", "_sum", "_count"}) {
            if (!name.ends_with(suffix)) continue;
            const std::string base = name.substr(0, name.size() - std::string(suffix).size());
            auto it = _types.find(base);
            if (it != _types.end() && (it->second == "histogram" || it->second == "summary")) return base;
        }
        return name;
    }

    void begin_family(const std::string& name) {
        if (name == _family) return;
        if (_done.count(name)) fail("the samples of " + name + " are not together");
        end_family();
        _family = name;
    }

    void end_family() {
        if (_family.empty()) return;
        for (const auto& [labels, series] : _series) {
            const std::string where = _family + (labels.empty() ? "" : "{" + labels + "}");
            double last_le = -INFINITY, last_count = 0;
            bool has_inf = false;
            for (const auto& [le, count] : series.buckets) {
                if (!(le > last_le)) _errors.push_back(where + ": bucket le=" + format_value(le) + " not above the one before");
                if (count < last_count) _errors.push_back(where + ": bucket le=" + format_value(le) + " counts fewer than the one before");
                last_le = le;
                last_count = count;
                has_inf = has_inf || std::isinf(le);
            }
            if (!has_inf) _errors.push_back(where + ": no bucket le=\"+Inf\"");
            else if (!series.count) _errors.push_back(where + ": no _count");
            else if (*series.count != last_count) _errors.push_back(where + ": _count differs from the +Inf bucket");
        }
        _series.clear();
        _done.insert(_family);
        _family.clear();
        _family_has_samples = false;
    }

    void sample(const Sample& s) {
        const std::string family = family_of(s.name);
        begin_family(family);
        _family_has_samples = true;
        std::string key = s.name + "{";
        std::string labels_but_le;
        std::optional<double> le;
        for (const auto& [name, value] : s.labels) {
            key += name + "=" + value + ",";
            if (name == "le") le = parse_float(value);
            else labels_but_le += name + "=\"" + escape_label_value(value) + "\",";
        }
        if (!_samples.insert(key).second) return fail("a second sample of " + s.name + " with the same labels");
        const auto type = _types.find(family);
        const std::string type_text = type == _types.end() ? "untyped" : type->second;
        if (type_text == "counter") {
            if (s.name != family) return fail("sample " + s.name + " in counter " + family);
            if (s.value < 0 || std::isnan(s.value)) return fail("counter " + s.name + " is " + format_value(s.value));
        }
        if (type_text != "histogram") return;
        Series& series = _series[labels_but_le];
        if (s.name == family + "_bucket") {
            bool has_le = false;
            for (const auto& label : s.labels) has_le = has_le || label.first == "le";
            if (!has_le) return fail("bucket of " + family + " without le");
            if (!le) return fail("bucket of " + family + " with an le that is not a number");
            series.buckets.emplace_back(*le, s.value);
        } else if (s.name == family + "_count") {
            series.count = s.value;
        } else if (s.name != family + "_sum") {
            fail("sample " + s.name + " in histogram " + family);
        }
    }

    size_t _number = 0;
    std::string _text;
    std::vector<std::string> _errors;
    std::map<std::string, std::string> _types;
    std::set<std::string> _helped;
    std::set<std::string> _done;
    std::set<std::string> _samples;
    std::string _family;
    bool _family_has_samples = false;
    std::map<std::string, Series> _series;
};

}  // namespace

std::vector<std::string> check_exposition(const std::string& text) {
    Checker checker;
    size_t number = 0, begin = 0;
    while (begin < text.size()) {
        const size_t end = text.find('\n', begin);
        ++number;
        if (end == std::string::npos) {
            checker.line(number, text.substr(begin));
            std::vector<std::string> errors = checker.finish();
            errors.push_back("line " + std::to_string(number) + ": does not end in a newline");
            return errors;
        }
        checker.line(number, text.substr(begin, end - begin));
        begin = end + 1;
    }
    return checker.finish();
}

}  // namespace ballast::metrics
