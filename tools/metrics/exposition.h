#pragma once

/// Prometheus' text exposition format 0.0.4, written: one scrape's figures
/// gathered into families (a name, a type, a help text, samples with
/// labels) and printed as `# HELP`, `# TYPE` and the sample lines, each
/// family's samples together. Names and label names are checked as they
/// are added (a bad one is a programming error: it throws), label values
/// and help texts escaped as the format says.
///
/// A scrape builds one `Exposition` from what it asks the engine: no state
/// lives here between two scrapes, so a counter is whatever its source
/// counted (the journal, the engine), never a second count of it.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ballast::metrics {

/// Label name and value pairs, in the order they are printed.
using Labels = std::vector<std::pair<std::string, std::string>>;

enum class Type : uint8_t { counter, gauge, histogram };
const char* type_name(Type type);

/// The content type a scrape is answered with.
inline constexpr const char* content_type = "text/plain; version=0.0.4; charset=utf-8";

/// A histogram's figures: `bucket_counts[i]` observations at most
/// `upper_bounds[i]` (not cumulative; the +Inf bucket is `count`), their sum.
struct HistogramData {
    std::vector<double> upper_bounds;  // ascending, finite
    std::vector<uint64_t> bucket_counts;
    uint64_t count = 0;  // every observation, those above the last bound too
    double sum = 0;
};

class Exposition {
public:
    /// Declares a family; its samples follow with `add`. A counter's name
    /// ends in `_total`. Declaring a name twice throws.
    void declare(const std::string& name, Type type, const std::string& help);
    /// One sample of a counter or gauge family already declared.
    void add(const std::string& name, const Labels& labels, double value);
    /// One labelled histogram of a histogram family.
    void add_histogram(const std::string& name, const Labels& labels, const HistogramData& data);

    /// The whole text, families in the order they were declared.
    std::string text() const;

private:
    struct Family {
        Type type;
        std::string help;
        std::vector<std::string> lines;  // the samples, printed
    };
    Family& family(const std::string& name, Type type);
    std::vector<std::string> _order;
    std::map<std::string, Family> _families;
};

/// `value` as the format prints it: an integer without a fraction or
/// exponent, `NaN`, `+Inf`, `-Inf`, else the shortest text that reads back.
std::string format_value(double value);
/// A label value inside its quotes: `\` `"` and newline escaped.
std::string escape_label_value(const std::string& value);
/// Metric names `[a-zA-Z_:][a-zA-Z0-9_:]*`; label names `[a-zA-Z_][a-zA-Z0-9_]*`.
bool is_metric_name(const std::string& name);
bool is_label_name(const std::string& name);

}  // namespace ballast::metrics
