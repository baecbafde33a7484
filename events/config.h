#pragma once

/// The configuration registry and parser. Every key Ballast understands is
/// listed once, in `config_keys()`, with its type, default, bounds and a line
/// of documentation; nothing else in Ballast invents keys. A `Config` holds a
/// validated, parsed value for every key plus where that value came from, so
/// that `ballast config` can show the effective configuration and its origins.
///
/// Values reach a `Config` from three places, later ones overriding earlier
/// ones: the defaults, Java-style .properties files (`load_properties_file`)
/// and `--set key=value` flags (`apply_override`). Ballast accepts AutoMQ's
/// `autobalancer.controller.*` names so operators can reuse their settings.
///
/// Bad input is an `Error` naming the key, the value and what was expected
/// (and the file and line when it came from a file). Asking a `Config` for a
/// key that does not exist, or with the wrong getter, is a programming error
/// and asserts.
///
/// Most keys are the engine's and are journaled, so that a replay decides
/// with the same settings. The `kafka.*` keys are how this process reaches
/// the cluster (Kafka's client properties, passwords among them): they are
/// never journaled (`to_properties_text` and `journal_entries` leave them
/// out) and the secret ones print as "[hidden]" (`display_text`).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "events/properties.h"
#include "events/result.h"

namespace ballast::events {

enum class ValueType {
    boolean,      // true / false, case-insensitive
    int32,        // decimal, bounded by KeySpec::min_int / max_int
    int64,        // decimal, bounded by KeySpec::min_int / max_int
    float64,      // finite, bounded by KeySpec::min_double / max_double
    string,       // any text; KeySpec::allow_empty says whether "" is accepted
    int_list,     // comma-separated int32s, each within min_int / max_int
    string_list,  // comma-separated, non-empty elements
    choice,       // one of KeySpec::choices, case-insensitive
    goal_list,    // comma-separated goal names from known_goals(), no duplicates
};

/// "boolean", "int32", ...: for `ballast config --describe` and messages.
const char* value_type_name(ValueType type);

struct KeySpec {
    std::string_view key;
    ValueType type;
    std::string_view default_value;  // parsed like user input; already canonical
    std::string_view description;
    int64_t min_int = 0;  // int32, int64: the value; int_list: each element (inclusive)
    int64_t max_int = 0;
    double min_double = 0;  // float64 (inclusive)
    double max_double = 0;
    bool allow_empty = true;                     // string only
    std::vector<std::string_view> choices = {};  // choice only: canonical (lowercase) words
    /// string_list: checks one element; string: checks the value (an empty
    /// one only when allow_empty). Returns "" when fine, else what was expected.
    std::string (*element_check)(std::string_view element) = nullptr;
    /// A password, or text holding one: shown only as "[hidden]".
    bool secret = false;
    /// False for the settings of this process alone (how it connects to
    /// Kafka, its HTTP API): they never reach the journal, and a replay has
    /// no use for them.
    bool journaled = true;
    /// Read once when the process starts (its journal, threads, sockets,
    /// clients), never by the engine: a ConfigChanged would journal a value
    /// nothing acts on until a restart, so `PUT /v1/config` refuses it.
    /// Every key that is not journaled is read at start only.
    bool start_only = false;
};

/// Every known key, AutoMQ-compatible keys first, then Ballast's own. The order
/// is stable: `ballast config` prints in it and `Config::entries()` follows it.
const std::vector<KeySpec>& config_keys();

/// The spec of `key`, or nullptr when no such key exists.
const KeySpec* find_key(std::string_view key);

/// The short goal names accepted by `autobalancer.controller.goals`.
const std::vector<std::string_view>& known_goals();

/// AutoMQ names goals by class; `<prefix><ShortName>` is accepted as ShortName.
inline constexpr std::string_view automq_goal_prefix = "kafka.autobalancer.goals.";

/// The prefix of the keys that carry Kafka client properties
/// (`kafka.security.protocol` is Kafka's `security.protocol`).
inline constexpr std::string_view kafka_client_prefix = "kafka.";

/// "[hidden]": how a secret value is shown (Kafka's own clients print the same).
inline constexpr std::string_view hidden_text = "[hidden]";

/// One element of `ballast.broker.capacity.overrides`:
/// "ID:in=BYTES_PER_S:out=BYTES_PER_S:disk=BYTES:replicas=N", fields after
/// the id optional and in any order; an absent field keeps the default.
struct CapacityOverride {
    int32_t broker_id = -1;
    double network_in_bytes_per_s = -1;   // -1: not given
    double network_out_bytes_per_s = -1;
    double disk_bytes = -1;
    int32_t replicas_max = -1;
};
Result<CapacityOverride> parse_capacity_override(std::string_view element);

/// `ballast.http.listen`: "HOST:PORT", an IPv6 host in brackets
/// ("[::1]:9470"); port 0 asks the system for any free one.
struct ListenAddress {
    std::string host;  // without brackets
    uint16_t port = 0;
    /// 127.0.0.0/8, ::1 or localhost: only this machine can connect.
    bool loopback() const;
    /// As given: brackets around an IPv6 host.
    std::string text() const;
};
Result<ListenAddress> parse_listen_address(std::string_view text);

class Config {
public:
    /// Every key at its default value, with origin "default".
    static Config defaults();

    /// Sets `key` from user text. On error the config is unchanged.
    Status set(std::string_view key, std::string_view value, std::string_view origin = "--set");

    /// Applies a `--set` flag, "key=value"; the value may itself contain '='.
    /// Whitespace around key and value is dropped, as in a .properties file.
    Status apply_override(std::string_view assignment);

    /// Applies the assignments of a .properties text; `origin` (the file name)
    /// prefixes error messages and origins as "origin:line". All or nothing:
    /// on error the config is unchanged.
    Status load_properties_text(std::string_view text, std::string_view origin);
    Status load_properties_file(const std::string& path);

    bool get_bool(std::string_view key) const;
    int32_t get_int32(std::string_view key) const;
    int64_t get_int64(std::string_view key) const;
    double get_double(std::string_view key) const;
    const std::string& get_string(std::string_view key) const;  // string and choice
    const std::vector<int32_t>& get_int_list(std::string_view key) const;
    const std::vector<std::string>& get_string_list(std::string_view key) const;
    /// `autobalancer.controller.goals` as short names, highest priority first.
    const std::vector<std::string>& get_goals() const;

    /// Canonical text of the effective value: `set(key, value_text(key))` leaves
    /// the value unchanged. Lists are comma-joined without spaces.
    std::string value_text(std::string_view key) const;
    /// "default", "<file>:<line>" or "--set".
    const std::string& origin(std::string_view key) const;
    /// value_text for people: "[hidden]" for a secret key with a value.
    std::string display_text(std::string_view key) const;
    /// (key, value_text) for every key, in config_keys() order, secrets in clear.
    std::vector<std::pair<std::string, std::string>> entries() const;
    /// The same for the journaled keys only: what a journal may hold.
    std::vector<std::pair<std::string, std::string>> journal_entries() const;
    /// The journaled keys as a .properties text that loads back to the same
    /// values: one escaped `key=value` line per key, in config_keys() order.
    std::string to_properties_text() const;

private:
    // int32 keys are held as int64_t (their bounds keep them within int32);
    // choice as its string, goal_list as its vector of short names.
    using Value = std::variant<bool, int64_t, double, std::string, std::vector<int32_t>,
                               std::vector<std::string>>;
    struct Slot {
        Value value;
        std::string origin;
    };

    Config() = default;
    /// Parses and validates user text for `spec`; the error names key and value.
    static Result<Value> parse_value(const KeySpec& spec, std::string_view text);
    static std::string format_value(const KeySpec& spec, const Value& value);
    /// Index of `key` in config_keys() and _slots; asserts that the key exists.
    static std::size_t index_of(std::string_view key);
    /// The slot of `key`, asserting that its type is one the getter serves.
    const Slot& slot(std::string_view key, ValueType type, ValueType also) const;
    const Slot& slot(std::string_view key, ValueType type) const { return slot(key, type, type); }

    std::vector<Slot> _slots;  // parallel to config_keys()
};

}  // namespace ballast::events
