#include "adapters/kafka/client_properties.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace ballast::kafka {

using events::ErrorCode;
using events::make_error;
using events::Result;

namespace {

constexpr std::string_view plain_module = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view scram_module = "org.apache.kafka.common.security.scram.ScramLoginModule";

/// Kafka 4.1's AdminClientConfig that change nothing Ballast does: it has its
/// own timeouts, retries, client ids and TLS defaults (TLS 1.2 and 1.3,
/// OpenSSL's ciphers), and the Kerberos, login-refresh and OAuth settings
/// only matter to mechanisms it refuses anyway.
bool ignored_property(std::string_view name) {
    static const std::vector<std::string_view> names = {
        "bootstrap.controllers", "client.dns.lookup", "client.id", "connections.max.idle.ms",
        "default.api.timeout.ms", "enable.metrics.push", "metadata.max.age.ms",
        "metadata.recovery.rebootstrap.trigger.ms", "metadata.recovery.strategy", "metric.reporters",
        "metrics.num.samples", "metrics.recording.level", "metrics.sample.window.ms", "receive.buffer.bytes",
        "reconnect.backoff.max.ms", "reconnect.backoff.ms", "request.timeout.ms", "retries",
        "retry.backoff.max.ms", "retry.backoff.ms", "security.providers", "send.buffer.bytes",
        "socket.connection.setup.timeout.max.ms", "socket.connection.setup.timeout.ms", "ssl.cipher.suites",
        "ssl.enabled.protocols", "ssl.keymanager.algorithm", "ssl.protocol", "ssl.provider",
        "ssl.secure.random.implementation", "ssl.trustmanager.algorithm",
    };
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    for (std::string_view prefix : {"sasl.kerberos.", "sasl.login.", "sasl.oauthbearer."}) {
        if (name.starts_with(prefix) && name != "sasl.login.class" && name != "sasl.login.callback.handler.class") {
            return true;
        }
    }
    return false;
}

/// Properties Kafka's admin client accepts that Ballast cannot honour, and why.
std::string_view refusal(std::string_view name) {
    if (name == "sasl.client.callback.handler.class" || name == "sasl.login.callback.handler.class" ||
        name == "sasl.login.class" || name == "ssl.engine.factory.class") {
        return "it names a Java class, which Ballast cannot run";
    }
    if (name == "ssl.truststore.certificates" || name == "ssl.keystore.certificate.chain" ||
        name == "ssl.keystore.key") {
        return "Ballast reads certificates and keys from files: put the PEM in a file and name it with "
               "ssl.truststore.location or ssl.keystore.location (type PEM)";
    }
    return {};
}

/// Every property name of Kafka 4.1's admin client, for "did you mean".
const std::vector<std::string_view>& admin_property_names() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out = security_property_names();
        for (std::string_view name :
             {"bootstrap.servers", "bootstrap.controllers", "client.dns.lookup", "client.id",
              "connections.max.idle.ms", "default.api.timeout.ms", "enable.metrics.push", "metadata.max.age.ms",
              "metadata.recovery.strategy", "metric.reporters", "metrics.num.samples", "metrics.recording.level",
              "metrics.sample.window.ms", "receive.buffer.bytes", "reconnect.backoff.max.ms", "reconnect.backoff.ms",
              "request.timeout.ms", "retries", "retry.backoff.max.ms", "retry.backoff.ms", "security.providers",
              "send.buffer.bytes", "socket.connection.setup.timeout.max.ms", "socket.connection.setup.timeout.ms",
              "ssl.cipher.suites", "ssl.enabled.protocols", "ssl.keymanager.algorithm", "ssl.protocol",
              "ssl.provider", "ssl.secure.random.implementation", "ssl.trustmanager.algorithm",
              "sasl.client.callback.handler.class", "sasl.login.callback.handler.class", "sasl.login.class",
              "ssl.engine.factory.class", "ssl.truststore.certificates", "ssl.keystore.certificate.chain",
              "ssl.keystore.key", "sasl.kerberos.service.name"}) {
            out.push_back(name);
        }
        return out;
    }();
    return names;
}

// ------------------------------------------------------------ sasl.jaas.config

/// A token of Kafka's JAAS syntax (java.io.StreamTokenizer as Kafka sets it
/// up): a word, a quoted string, or one of ';' and '='.
struct JaasToken {
    enum class Kind { word, quoted, semicolon, equals, other, end };
    Kind kind = Kind::end;
    std::string text;  // word or quoted: the characters, escapes resolved
};

bool jaas_space(unsigned char c) { return c <= ' '; }

/// Word characters: every character but space, control characters, ';',
/// '=', the quotes and '/' (which starts a comment). Bytes of 0x80 and above
/// are parts of UTF-8 characters, which Java's tokenizer takes as word
/// characters too (the C1 controls aside, which nobody writes).
bool jaas_word(unsigned char c) {
    return c > ' ' && c != ';' && c != '=' && c != '"' && c != '\'' && c != '/';
}

void append_utf8(uint32_t code_point, std::string& out) {
    if (code_point < 0x80) {
        out += static_cast<char>(code_point);
    } else {
        out += static_cast<char>(0xC0 | (code_point >> 6));
        out += static_cast<char>(0x80 | (code_point & 0x3F));
    }
}

class JaasTokenizer {
public:
    explicit JaasTokenizer(std::string_view text) : _text(text) {}

    JaasToken next() {
        skip_space_and_comments();
        JaasToken token;
        if (_at >= _text.size()) return token;
        const unsigned char c = static_cast<unsigned char>(_text[_at]);
        if (c == ';' || c == '=') {
            ++_at;
            token.kind = c == ';' ? JaasToken::Kind::semicolon : JaasToken::Kind::equals;
            return token;
        }
        if (c == '"' || c == '\'') return quoted(static_cast<char>(c));
        if (!jaas_word(c)) {
            ++_at;
            token.kind = JaasToken::Kind::other;
            return token;
        }
        token.kind = JaasToken::Kind::word;
        while (_at < _text.size() && jaas_word(static_cast<unsigned char>(_text[_at]))) token.text += _text[_at++];
        return token;
    }

private:
    void skip_space_and_comments() {
        while (_at < _text.size()) {
            const unsigned char c = static_cast<unsigned char>(_text[_at]);
            if (jaas_space(c)) {
                ++_at;
            } else if (c == '/' && _at + 1 < _text.size() && _text[_at + 1] == '*') {
                const size_t end = _text.find("*/", _at + 2);
                _at = end == std::string_view::npos ? _text.size() : end + 2;
            } else if (c == '/') {  // "//" and a lone '/' both comment out the rest of the line
                const size_t end = _text.find_first_of("\r\n", _at);
                _at = end == std::string_view::npos ? _text.size() : end;
            } else {
                return;
            }
        }
    }

    /// Up to the matching quote, the end of the line or the end of the text
    /// (where StreamTokenizer ends a string too). Escapes: \a \b \f \n \r \t
    /// \v, up to three octal digits (three when the first is 0-3), and a
    /// backslash before anything else stands for that character.
    JaasToken quoted(char quote) {
        JaasToken token;
        token.kind = JaasToken::Kind::quoted;
        ++_at;
        while (_at < _text.size()) {
            const char c = _text[_at];
            if (c == quote) {
                ++_at;
                break;
            }
            if (c == '\n' || c == '\r') break;
            ++_at;
            if (c != '\\' || _at >= _text.size()) {
                token.text += c;
                continue;
            }
            const char e = _text[_at++];
            switch (e) {
                case 'a': token.text += '\a'; break;
                case 'b': token.text += '\b'; break;
                case 'f': token.text += '\f'; break;
                case 'n': token.text += '\n'; break;
                case 'r': token.text += '\r'; break;
                case 't': token.text += '\t'; break;
                case 'v': token.text += '\v'; break;
                default:
                    if (e >= '0' && e <= '7') {
                        uint32_t value = static_cast<uint32_t>(e - '0');
                        const int digits = e <= '3' ? 3 : 2;
                        for (int d = 1; d < digits && _at < _text.size() && _text[_at] >= '0' && _text[_at] <= '7'; ++d) {
                            value = value * 8 + static_cast<uint32_t>(_text[_at++] - '0');
                        }
                        append_utf8(value, token.text);  // a Latin-1 character, as Java's char
                    } else {
                        token.text += e;
                    }
            }
        }
        return token;
    }

    std::string_view _text;
    size_t _at = 0;
};

events::Error jaas_error(const std::string& why) {
    return make_error(ErrorCode::invalid_argument, "sasl.jaas.config: " + why);
}

// ------------------------------------------------------------ properties

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

events::Error located(const ClientProperty& property, const events::Error& error) {
    return make_error(error.code, property.origin + ": " + error.message);
}

}  // namespace

const std::vector<std::string_view>& security_property_names() {
    static const std::vector<std::string_view> names = {
        "security.protocol",       "sasl.mechanism",          "sasl.jaas.config",
        "ssl.truststore.location", "ssl.truststore.type",     "ssl.truststore.password",
        "ssl.keystore.location",   "ssl.keystore.type",       "ssl.keystore.password",
        "ssl.key.password",        "ssl.endpoint.identification.algorithm",
    };
    return names;
}

PropertyUse classify_property(std::string_view name) {
    const auto& security = security_property_names();
    if (std::find(security.begin(), security.end(), name) != security.end()) return PropertyUse::security;
    if (name == "bootstrap.servers") return PropertyUse::bootstrap;
    if (!refusal(name).empty()) return PropertyUse::refused;
    if (ignored_property(name)) return PropertyUse::ignored;
    return PropertyUse::unknown;
}

Result<JaasLogin> parse_jaas_config(std::string_view text) {
    JaasTokenizer tokens(text);
    JaasToken token = tokens.next();
    if (token.kind == JaasToken::Kind::end) return jaas_error("no login module is given");
    std::vector<JaasLogin> logins;
    std::map<std::string, std::string> options;
    while (token.kind != JaasToken::Kind::end) {
        if (token.kind != JaasToken::Kind::word && token.kind != JaasToken::Kind::quoted) {
            return jaas_error("a login module class is missing where a ';' or '=' stands");
        }
        JaasLogin login;
        login.module = token.text;
        token = tokens.next();
        if (token.kind != JaasToken::Kind::word && token.kind != JaasToken::Kind::quoted) {
            return jaas_error("the login module's control flag (required) is missing after " + login.module);
        }
        login.flag = lower(token.text);
        if (login.flag != "required" && login.flag != "requisite" && login.flag != "sufficient" &&
            login.flag != "optional") {
            return jaas_error("'" + token.text + "' is not a control flag (required, requisite, sufficient, optional)");
        }
        options.clear();
        int option = 0;
        for (token = tokens.next(); token.kind != JaasToken::Kind::end && token.kind != JaasToken::Kind::semicolon;
             token = tokens.next()) {
            ++option;
            // Never echo what is on either side of '=': a password may be there.
            const std::string which = "option " + std::to_string(option) + " of " + login.module;
            if (token.kind != JaasToken::Kind::word && token.kind != JaasToken::Kind::quoted) {
                return jaas_error(which + " has no name before '='");
            }
            const std::string name = token.text;
            const JaasToken equals = tokens.next();
            const JaasToken value = equals.kind == JaasToken::Kind::equals ? tokens.next() : JaasToken{};
            if (value.kind != JaasToken::Kind::word && value.kind != JaasToken::Kind::quoted) {
                return jaas_error(which + " is not name=value (a value with spaces or ';' needs quotes)");
            }
            options[name] = value.text;  // a name given twice: the later wins, as in Kafka
        }
        if (token.kind != JaasToken::Kind::semicolon) {
            return jaas_error("the entry of " + login.module + " does not end with ';'");
        }
        if (auto it = options.find("username"); it != options.end()) login.username = it->second;
        if (auto it = options.find("password"); it != options.end()) login.password = wire::Secret(it->second);
        if (login.module == scram_module) {
            if (auto it = options.find("tokenauth"); it != options.end() && lower(it->second) == "true") {
                return jaas_error("tokenauth=true (a delegation token) is not supported");
            }
        }
        logins.push_back(std::move(login));
        token = tokens.next();
    }
    if (logins.size() != 1) {
        return jaas_error("it holds " + std::to_string(logins.size()) + " login modules; a client has exactly one");
    }
    JaasLogin& login = logins.front();
    if (login.module != plain_module && login.module != scram_module) {
        return make_error(ErrorCode::unsupported,
                          "sasl.jaas.config: the login module " + login.module +
                              " is not supported: Ballast logs in with a username and password, with " +
                              std::string(plain_module) + " or " + std::string(scram_module));
    }
    if (login.username.empty()) return jaas_error(login.module + " has no username=\"...\"");
    if (!options.count("password")) return jaas_error(login.module + " has no password=\"...\"");
    return std::move(login);
}

std::string redact_jaas_config(std::string_view text) {
    if (text.empty()) return "";
    Result<JaasLogin> login = parse_jaas_config(text);
    if (!login) return std::string(events::hidden_text);
    std::string username;
    for (char c : login->username) {
        if (c == '"' || c == '\\') username += '\\';
        username += c;
    }
    return login->module + " " + login->flag + " username=\"" + username + "\" password=" +
           std::string(events::hidden_text) + ";";
}

Result<wire::SecurityOptions> security_options(const std::vector<ClientProperty>& properties) {
    std::map<std::string, const ClientProperty*> last;
    for (const ClientProperty& p : properties) last[p.name] = &p;
    auto get = [&](std::string_view name) -> const ClientProperty* {
        auto it = last.find(std::string(name));
        return it == last.end() ? nullptr : it->second;
    };
    wire::SecurityOptions out;
    if (const ClientProperty* p = get("security.protocol")) {
        Result<wire::SecurityProtocol> protocol = wire::parse_security_protocol(p->value);
        if (!protocol) return located(*p, protocol.error());
        out.protocol = *protocol;
    }
    if (const ClientProperty* p = get("sasl.mechanism"); p && !p->value.empty()) {
        Result<wire::SaslMechanism> mechanism = wire::parse_sasl_mechanism(p->value);
        if (!mechanism) return located(*p, mechanism.error());
        out.sasl.mechanism = *mechanism;
    }
    if (const ClientProperty* p = get("sasl.jaas.config"); p && !p->value.empty()) {
        Result<JaasLogin> login = parse_jaas_config(p->value);
        if (!login) return located(*p, login.error());
        out.sasl.username = login->username;
        out.sasl.password = login->password;
    }
    // A store's type is needed with its location: Kafka's default is JKS, which Ballast does not read.
    auto store = [&](std::string_view which, std::string& path, wire::StoreType& type) -> events::Status {
        const ClientProperty* location = get("ssl." + std::string(which) + ".location");
        const ClientProperty* given = get("ssl." + std::string(which) + ".type");
        path = location ? location->value : "";
        if (given && !given->value.empty()) {
            Result<wire::StoreType> parsed = wire::parse_store_type(given->value);
            if (!parsed) {
                return make_error(parsed.error().code,
                                  given->origin + ": ssl." + std::string(which) + ".type: " + parsed.error().message);
            }
            type = *parsed;
        } else if (!path.empty()) {
            return make_error(ErrorCode::invalid_argument,
                              location->origin + ": ssl." + std::string(which) + ".location is given without ssl." +
                                  std::string(which) +
                                  ".type: say PEM or PKCS12 (Kafka's default, JKS, is not read: convert the store with "
                                  "keytool -importkeystore -deststoretype PKCS12)");
        }
        return {};
    };
    if (events::Status s = store("truststore", out.tls.truststore_path, out.tls.truststore_type); !s) return s.error();
    if (events::Status s = store("keystore", out.tls.keystore_path, out.tls.keystore_type); !s) return s.error();
    if (const ClientProperty* p = get("ssl.truststore.password")) out.tls.truststore_password = wire::Secret(p->value);
    if (const ClientProperty* p = get("ssl.keystore.password")) out.tls.keystore_password = wire::Secret(p->value);
    if (const ClientProperty* p = get("ssl.key.password")) out.tls.key_password = wire::Secret(p->value);
    if (const ClientProperty* p = get("ssl.endpoint.identification.algorithm")) {
        const std::string algorithm = lower(p->value);
        if (algorithm != "https" && !algorithm.empty()) {
            return make_error(ErrorCode::invalid_argument,
                              p->origin + ": ssl.endpoint.identification.algorithm '" + p->value +
                                  "' is not https (the broker's certificate must name its host) or empty (not checked)");
        }
        out.tls.verify_hostname = algorithm == "https";
    }
    if (events::Status checked = out.check(); !checked) return checked.error();
    return out;
}

std::string ClientConfig::display_value(const ClientProperty& property) const {
    if (property.name == "sasl.jaas.config") return redact_jaas_config(property.value);
    const bool secret = property.name.ends_with(".password");
    if (secret && !property.value.empty()) return std::string(events::hidden_text);
    return property.value;
}

std::string ClientConfig::ignored_warning(const std::string& command_config_path) const {
    if (ignored.empty()) return "";
    std::string names;
    for (const std::string& name : ignored) names += (names.empty() ? "" : ", ") + name;
    return command_config_path + ": ignoring " + names +
           ": Kafka's tools accept " + (ignored.size() == 1 ? "it" : "them") +
           ", and Ballast has no use for " + (ignored.size() == 1 ? "it" : "them") +
           " (it has its own timeouts, retries and TLS defaults)";
}

Result<ClientConfig> read_client_config(const events::Config& config, const std::string& command_config_path) {
    ClientConfig out;
    std::map<std::string, ClientProperty> from_file;
    if (!command_config_path.empty()) {
        Result<std::string> text = events::read_text_file(command_config_path, "--command-config file");
        if (!text) return text.error();
        Result<std::vector<events::PropertyLine>> lines = events::parse_properties(
            *text, command_config_path, events::PropertiesDialect::java,
            [](std::string_view name) { return name == "sasl.jaas.config" || name.ends_with(".password"); });
        if (!lines) return lines.error();
        for (const events::PropertyLine& line : *lines) {
            const std::string where = command_config_path + ":" + std::to_string(line.line);
            switch (classify_property(line.key)) {
                case PropertyUse::security:
                    from_file[line.key] = ClientProperty{line.key, line.value, where};
                    break;
                case PropertyUse::bootstrap: out.bootstrap_servers = line.value; break;
                case PropertyUse::ignored:
                    if (std::find(out.ignored.begin(), out.ignored.end(), line.key) == out.ignored.end()) {
                        out.ignored.push_back(line.key);
                    }
                    break;
                case PropertyUse::refused:
                    return make_error(ErrorCode::unsupported,
                                      where + ": " + line.key + " is not supported: " + std::string(refusal(line.key)));
                case PropertyUse::unknown: {
                    std::string message = where + ": unknown Kafka client property '" + line.key + "'";
                    if (std::string closest = events::closest_name(line.key, admin_property_names()); !closest.empty()) {
                        message += " (did you mean '" + closest + "'?)";
                    }
                    message += ": Ballast reads an admin client's properties, as kafka-topics --command-config does";
                    return make_error(ErrorCode::invalid_argument, message);
                }
            }
        }
    }
    for (std::string_view name : security_property_names()) {
        const std::string key = std::string(events::kafka_client_prefix) + std::string(name);
        const std::string& origin = config.origin(key);
        auto in_file = from_file.find(std::string(name));
        if (origin != "default") {
            out.effective.push_back({std::string(name), config.get_string(key), key + " (from " + origin + ")"});
            if (in_file != from_file.end()) {
                out.overridden.push_back(std::string(name) + " of " + in_file->second.origin + " gives way to " + key +
                                         " from " + origin);
            }
        } else if (in_file != from_file.end()) {
            out.effective.push_back(in_file->second);
        } else {
            out.effective.push_back({std::string(name), config.get_string(key), "default"});
        }
    }
    Result<wire::SecurityOptions> security = security_options(out.effective);
    if (!security) return security.error();
    out.security = std::move(*security);
    return out;
}

}  // namespace ballast::kafka
