#pragma once

/// A checker of Prometheus' text exposition format 0.0.4, for the tests of
/// what `/metrics` answers (and of `Exposition`): every rule a scraper
/// relies on, each breach named with its line number and text.
///
/// Checked: every line ends in a newline; `# HELP` and `# TYPE` at most once
/// per family, TYPE before the family's samples and one of counter, gauge,
/// histogram, summary, untyped; sample lines `name{label="value",...} value
/// [timestamp]` with valid names, label names not beginning `__`, no label
/// twice, only `\\` `\"` `\n` as escapes, a value that reads as a float (or
/// NaN, +Inf, -Inf); a family's samples together; no sample twice (same name
/// and labels); a counter's samples not negative and named as its family; a
/// histogram's samples `_bucket` (with `le`), `_sum` and `_count`, per label
/// set: bounds ascending, counts not decreasing, a `+Inf` bucket equal to
/// `_count`.

#include <string>
#include <vector>

namespace ballast::metrics {

/// Every breach, "line N: what (the line)"; empty when the text is valid.
std::vector<std::string> check_exposition(const std::string& text);

}  // namespace ballast::metrics
