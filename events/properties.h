#pragma once

/// Java .properties text and the names in it: the parser Ballast's settings
/// (`--config FILE`) and Kafka's client properties (`--command-config FILE`)
/// share, and the closest known name for a typo.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "events/result.h"

namespace ballast::events {

/// One `key=value` of a .properties text and the line it starts on.
struct PropertyLine {
    std::string key;
    std::string value;
    int line = 0;
};

/// How backslash escapes read. `ballast`: an unknown escape is an error, so
/// that a Windows path like C:\data is not quietly read as C:data. `java`:
/// as java.util.Properties reads them (an unknown escape drops the
/// backslash, \uXXXX is a character), for files written for Kafka's own
/// tools, which must mean the same to Ballast.
enum class PropertiesDialect { ballast, java };

/// Java .properties text as key/value lines, in order (a key may repeat).
/// Unescaped blanks that end a value are dropped (Kafka trims its values
/// too). Errors are "<origin>:<line>: ..."; they quote the text at fault,
/// except the value of a key `secret` says is one.
Result<std::vector<PropertyLine>> parse_properties(std::string_view text, std::string_view origin,
                                                   PropertiesDialect dialect,
                                                   const std::function<bool(std::string_view)>& secret = {});

/// The bytes of a file; the error names `what` and the path ("cannot read
/// config file 'x': No such file or directory").
Result<std::string> read_text_file(const std::string& path, std::string_view what);

/// The closest of `candidates` to `name` by edit distance, when at most a
/// third of the typed characters would have to change; "" otherwise.
std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates);

}  // namespace ballast::events
