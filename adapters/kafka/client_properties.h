#pragma once

/// Kafka's client properties, read as Kafka's own tools read them, into the
/// wire client's `SecurityOptions`: `security.protocol`, `sasl.mechanism`,
/// `sasl.jaas.config` (the login module's username and password),
/// `ssl.truststore.*`, `ssl.keystore.*`, `ssl.key.password` and
/// `ssl.endpoint.identification.algorithm`. They come from a file written for
/// Kafka's tools (`ballast run --command-config FILE`) and from Ballast's own
/// settings of the same name with a `kafka.` prefix (`--set
/// kafka.sasl.mechanism=PLAIN`, or the `--config` file); a property given both
/// ways takes the `kafka.` setting's value.
///
/// In a command-config file, a property Kafka's admin client accepts that
/// means nothing to Ballast (client.id, request.timeout.ms: Ballast's own
/// timeouts and retries apply) is ignored and named in one warning; one that
/// would change what Ballast must do and cannot (a callback handler class,
/// inline PEM) is an error; anything else is an error naming the property,
/// the file and line, and the closest property Kafka knows.
///
/// Every error names where the value came from ("client.properties:4", or
/// "kafka.sasl.mechanism (from --set)") and never shows a password.

#include <string>
#include <string_view>
#include <vector>

#include "adapters/kafka/wire/security_options.h"
#include "events/config.h"
#include "events/result.h"

namespace ballast::kafka {

/// One property as given: Kafka's name, its value, and where it came from.
struct ClientProperty {
    std::string name;    // "sasl.mechanism"
    std::string value;
    std::string origin;  // "client.properties:4", "kafka.sasl.mechanism (from --set)", "default"
};

/// The properties Ballast reads, in the order it lists them.
const std::vector<std::string_view>& security_property_names();

/// What Ballast does with a property of Kafka's admin client (Kafka 4.1's
/// AdminClientConfig names them all).
enum class PropertyUse {
    security,   // read (security_property_names)
    bootstrap,  // bootstrap.servers: --bootstrap-server is used, as Kafka's tools do
    ignored,    // accepted and meaningless to Ballast: warned about once
    refused,    // would change what Ballast must do, and it cannot
    unknown,    // not a property of Kafka's admin client
};
PropertyUse classify_property(std::string_view name);

/// sasl.jaas.config, parsed as Kafka parses it: `<LoginModuleClass> <flag>
/// (<name>=<value>)*;` with values bare or in double or single quotes
/// (backslash escapes inside quotes as Java's StreamTokenizer reads them),
/// options in any order, comments (`//`, `/* */`), exactly one login module.
/// Ballast logs in with the username and password of
/// org.apache.kafka.common.security.plain.PlainLoginModule or
/// org.apache.kafka.common.security.scram.ScramLoginModule (either with any
/// mechanism: Kafka's clients read both options the same way). Errors never
/// repeat a value.
struct JaasLogin {
    std::string module;
    std::string flag;  // lowercase: required, requisite, sufficient, optional
    std::string username;
    wire::Secret password;
};
events::Result<JaasLogin> parse_jaas_config(std::string_view text);

/// For people: the login with the password as [hidden]
/// (`...ScramLoginModule required username="ballast" password=[hidden];`),
/// or "[hidden]" when it does not parse; "" for "".
std::string redact_jaas_config(std::string_view text);

/// The security settings the properties describe (a name given twice: the
/// later wins). Checks everything that can be checked without the files
/// (SecurityOptions::check()).
events::Result<wire::SecurityOptions> security_options(const std::vector<ClientProperty>& properties);

/// The Kafka client settings of one run: the `kafka.*` settings of `config`
/// and, if given, a command-config file.
struct ClientConfig {
    wire::SecurityOptions security;
    /// Every security property in force, in security_property_names order,
    /// with its origin ("default" when neither way gave it).
    std::vector<ClientProperty> effective;
    /// The file's properties that Ballast ignores (PropertyUse::ignored), once each.
    std::vector<std::string> ignored;
    /// One line per property the file gave and a `kafka.` setting replaced.
    std::vector<std::string> overridden;
    /// The file's bootstrap.servers, "" if none.
    std::string bootstrap_servers;

    /// The effective value of `name` for people: secrets as [hidden], the
    /// login with its username.
    std::string display_value(const ClientProperty& property) const;
    /// One warning naming the ignored properties ("" when none).
    std::string ignored_warning(const std::string& command_config_path) const;
};
events::Result<ClientConfig> read_client_config(const events::Config& config,
                                                const std::string& command_config_path);

}  // namespace ballast::kafka
