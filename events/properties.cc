#include "events/properties.h"

/// The .properties reader (Java's format, in two dialects) and the "did you
/// mean" of unknown names: shared by Ballast's settings (config.cc) and by the
/// reader of Kafka's client properties (`--command-config`).

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

namespace ballast::events {

namespace {

/// Whitespace in the Java .properties sense (line ends are handled apart).
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

std::string_view skip_blanks(std::string_view text) {
    while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
    return text;
}

/// The physical line at `pos`, without its ending (\n, \r\n or \r); advances `pos`.
std::string_view next_line(std::string_view text, std::size_t& pos) {
    const std::size_t start = pos;
    const std::size_t end = std::min(text.find_first_of("\r\n", start), text.size());
    pos = end;
    if (end < text.size()) pos = text.compare(end, 2, "\r\n") == 0 ? end + 2 : end + 1;
    return text.substr(start, end - start);
}

/// A line ending in an odd number of backslashes continues onto the next: the
/// last backslash is not itself escaped.
bool continues(std::string_view line) {
    std::size_t backslashes = 0;
    while (backslashes < line.size() && line[line.size() - 1 - backslashes] == '\\') ++backslashes;
    return backslashes % 2 == 1;
}

/// The value of the four hex digits after raw[u] (the 'u' of "\\uXXXX"), or -1.
int32_t hex4(std::string_view raw, std::size_t u) {
    if (raw.size() < u + 5) return -1;
    int32_t value = 0;
    for (std::size_t k = u + 1; k <= u + 4; ++k) {
        const char h = raw[k];
        const int digit = h >= '0' && h <= '9'   ? h - '0'
                          : h >= 'a' && h <= 'f' ? h - 'a' + 10
                          : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                                 : -1;
        if (digit < 0) return -1;
        value = value * 16 + digit;
    }
    return value;
}

void append_utf8(uint32_t code_point, std::string& out) {
    if (code_point < 0x80) {
        out += static_cast<char>(code_point);
    } else if (code_point < 0x800) {
        out += static_cast<char>(0xC0 | (code_point >> 6));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else if (code_point < 0x10000) {
        out += static_cast<char>(0xE0 | (code_point >> 12));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code_point >> 18));
        out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
}

/// Java's "\\uXXXX" (a UTF-16 code unit; a surrogate pair is two escapes in
/// a row), appended as UTF-8. `u` is the index of the 'u'; returns the index
/// of the escape's last character.
Result<std::size_t> append_unicode_escape(std::string_view raw, std::size_t u, std::string& out,
                                          const std::string& where) {
    auto malformed = [&] { return make_error(ErrorCode::invalid_argument, "malformed \\uXXXX escape in " + where); };
    const int32_t unit = hex4(raw, u);
    if (unit < 0 || (unit >= 0xDC00 && unit <= 0xDFFF)) return malformed();
    if (unit < 0xD800 || unit > 0xDBFF) {
        append_utf8(static_cast<uint32_t>(unit), out);
        return u + 4;
    }
    // A high surrogate: its low half must follow as the next escape.
    const std::size_t next = u + 5;  // the backslash of "\\uDC00"
    const int32_t low = raw.substr(next, 2) == "\\u" ? hex4(raw, next + 1) : -1;
    if (low < 0xDC00 || low > 0xDFFF) return malformed();
    append_utf8(0x10000 + ((static_cast<uint32_t>(unit) - 0xD800) << 10) + static_cast<uint32_t>(low - 0xDC00),
                out);
    return next + 5;
}

/// Resolves the escapes of a raw key or value and drops trailing blanks that
/// were not escaped ("a\ " keeps its space). Unlike Java, an unknown escape is
/// an error rather than silently dropping the backslash, so that a Windows
/// path like C:\data is not quietly read as C:data. `where` names the text in
/// errors: the text itself in quotes, or for a secret only whose value it is.
Result<std::string> unescape(std::string_view raw, PropertiesDialect dialect, const std::string& where) {
    std::string out;
    std::size_t kept = 0;  // length of `out` up to its last non-blank or escaped char
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\') {
            out += c;
            if (!is_blank(c)) kept = out.size();
            continue;
        }
        if (++i == raw.size()) break;  // a lone trailing backslash continued onto nothing
        switch (raw[i]) {
            case 't': out += '\t'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 'f': out += '\f'; break;
            case '\\': case '=': case ':': case '#': case '!': case ' ': out += raw[i]; break;
            case 'u':
                if (dialect == PropertiesDialect::java) {
                    Result<std::size_t> used = append_unicode_escape(raw, i, out, where);
                    if (!used) return used.error();
                    i = *used;
                    break;
                }
                [[fallthrough]];
            default:
                if (dialect == PropertiesDialect::java) {
                    out += raw[i];  // Java drops the backslash of an escape it does not know
                    break;
                }
                return make_error(ErrorCode::invalid_argument, "unknown escape '\\" + std::string(1, raw[i]) +
                                                                   "' in " + where + " (write '\\\\' for a backslash)");
        }
        kept = out.size();
    }
    out.resize(kept);
    return out;
}

/// Levenshtein distance, two rolling rows: O(|a|·|b|) time, O(|b|) space.
/// Only distances up to `limit` matter to the caller: once a whole row is
/// past it (a row's smallest entry never shrinks in the next), it returns
/// limit + 1 without computing the rest.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        std::size_t row_min = current[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
            row_min = std::min(row_min, current[j]);
        }
        if (row_min > limit) return limit + 1;
        std::swap(previous, current);
    }
    return std::min(previous[b.size()], limit + 1);
}

}  // namespace

/// Java .properties, the parts that matter: a logical line is a physical line
/// plus the lines its trailing backslashes pull in (their leading blanks
/// dropped); comments (# or !) and blank lines are skipped; the key runs to
/// the first unescaped '=', ':' or blank, and one '=' or ':' with blanks
/// around it separates it from the value.
Result<std::vector<PropertyLine>> parse_properties(std::string_view text, std::string_view origin,
                                                   PropertiesDialect dialect,
                                                   const std::function<bool(std::string_view)>& secret) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 BOM from some editors
    std::vector<PropertyLine> out;
    std::size_t pos = 0;
    int line_number = 0;
    while (pos < text.size()) {
        std::string_view line = skip_blanks(next_line(text, pos));
        const int first_line_number = ++line_number;
        if (line.empty() || line.front() == '#' || line.front() == '!') continue;

        std::string logical;
        while (continues(line)) {
            logical.append(line.substr(0, line.size() - 1));
            if (pos >= text.size()) {
                line = {};
                break;
            }
            line = skip_blanks(next_line(text, pos));
            ++line_number;
        }
        logical.append(line);

        std::size_t key_end = 0;
        while (key_end < logical.size()) {
            const char c = logical[key_end];
            if (c == '\\') {
                key_end += 2;
                continue;
            }
            if (c == '=' || c == ':' || is_blank(c)) break;
            ++key_end;
        }
        key_end = std::min(key_end, logical.size());
        std::string_view rest = skip_blanks(std::string_view(logical).substr(key_end));
        if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) {
            rest = skip_blanks(rest.substr(1));
        }

        const std::string where = std::string(origin) + ":" + std::to_string(first_line_number);
        auto located = [&where](const Error& error) { return make_error(error.code, where + ": " + error.message); };
        const std::string_view raw_key = std::string_view(logical).substr(0, key_end);
        Result<std::string> key = unescape(raw_key, dialect, "'" + std::string(raw_key) + "'");
        if (!key) return located(key.error());
        const bool hidden = secret && secret(*key);
        Result<std::string> value =
            unescape(rest, dialect, hidden ? "the value of " + *key + " (a secret, not shown)" : "'" + std::string(rest) + "'");
        if (!value) return located(value.error());
        if (key->empty()) {
            return located(make_error(ErrorCode::invalid_argument,
                                      "missing key before the value in '" + logical + "'"));
        }
        out.push_back(PropertyLine{std::move(*key), std::move(*value), first_line_number});
    }
    return out;
}

Result<std::string> read_text_file(const std::string& path, std::string_view what) {
    // C stdio rather than ifstream: fread + ferror tell a read error (say, the
    // path is a directory) apart from an empty file.
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    auto failed = [&](int error_number) {
        return make_error(error_number == ENOENT ? ErrorCode::not_found : ErrorCode::io_error,
                          "cannot read " + std::string(what) + " '" + path + "': " + std::strerror(error_number));
    };
    if (!file) return failed(errno);
    std::string text;
    char buffer[4096];
    while (std::size_t n = std::fread(buffer, 1, sizeof buffer, file.get())) text.append(buffer, n);
    if (std::ferror(file.get())) return failed(errno);
    return text;
}

std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates) {
    std::string_view closest;
    std::size_t closest_distance = std::numeric_limits<std::size_t>::max();
    const std::size_t distance_max = name.size() / 3;  // at most a third of the typed characters
    for (std::string_view candidate : candidates) {
        // The distance is at least the difference in length: a candidate
        // whose length differs by more than distance_max is never offered.
        // Skipping it keeps a long name (a pasted blob, a binary line) from
        // costing |name| x |candidate| steps per candidate.
        const std::size_t length_gap = name.size() > candidate.size() ? name.size() - candidate.size()
                                                                      : candidate.size() - name.size();
        if (length_gap > distance_max) continue;
        const std::size_t distance = edit_distance(name, candidate, distance_max);
        if (distance < closest_distance) {
            closest = candidate;
            closest_distance = distance;
        }
    }
    return closest_distance <= distance_max ? std::string(closest) : std::string();
}

}  // namespace ballast::events
