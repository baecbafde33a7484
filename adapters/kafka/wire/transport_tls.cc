#include "adapters/kafka/wire/transport_tls.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace ballast::kafka::wire {

using events::ErrorCode;
using events::make_error;
using events::Result;
using events::Status;

namespace {

// ------------------------------------------------------------ the socket BIO

int socket_of(BIO* bio) {
    return static_cast<int>(reinterpret_cast<intptr_t>(BIO_get_data(bio)));
}

int socket_write(BIO* bio, const char* data, int size) {
    BIO_clear_retry_flags(bio);
    const ssize_t sent = ::send(socket_of(bio), data, static_cast<size_t>(size), MSG_NOSIGNAL);
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_write(bio);
    }
    return static_cast<int>(sent);
}

int socket_read(BIO* bio, char* out, int size) {
    BIO_clear_retry_flags(bio);
    const ssize_t got = ::recv(socket_of(bio), out, static_cast<size_t>(size), 0);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        BIO_set_retry_read(bio);
    }
    // OpenSSL 3 asks BIO_CTRL_EOF to tell a closed stream from a failed read.
    if (got == 0) BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
    return static_cast<int>(got);
}

long socket_ctrl(BIO* bio, int command, long, void*) {
    switch (command) {
        case BIO_CTRL_FLUSH: return 1;
        case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0 ? 1 : 0;
        default: return 0;
    }
}

int socket_create(BIO* bio) {
    BIO_set_init(bio, 1);
    return 1;
}

/// A socket BIO that sends with MSG_NOSIGNAL (OpenSSL's own uses write()).
/// The socket stays the TcpTransport's: the BIO never closes it.
BIO* socket_bio(int fd) {
    static BIO_METHOD* const method = [] {
        BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "ballast socket");
        assert(m != nullptr);
        BIO_meth_set_write(m, socket_write);
        BIO_meth_set_read(m, socket_read);
        BIO_meth_set_ctrl(m, socket_ctrl);
        BIO_meth_set_create(m, socket_create);
        return m;
    }();
    BIO* bio = BIO_new(method);
    if (bio != nullptr) BIO_set_data(bio, reinterpret_cast<void*>(static_cast<intptr_t>(fd)));
    return bio;
}

// ------------------------------------------------------------ OpenSSL's errors

/// The reason of the last error OpenSSL queued ("certificate verify failed"),
/// then the queue emptied; `fallback` when there is none.
std::string openssl_reason(const std::string& fallback) {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    if (code == 0) return fallback;
    const char* reason = ERR_reason_error_string(code);
    if (reason != nullptr) return reason;
    char text[256];
    ERR_error_string_n(code, text, sizeof(text));
    return text;
}

/// Whether the failed SSL call met the end of the stream (a broker that
/// closed, with or without close_notify).
bool at_end_of_stream(int ssl_error) {
    if (ssl_error == SSL_ERROR_ZERO_RETURN) return true;
    const unsigned long code = ERR_peek_last_error();
    if (ssl_error == SSL_ERROR_SYSCALL) return code == 0 && errno == 0;
    return ssl_error == SSL_ERROR_SSL && ERR_GET_LIB(code) == ERR_LIB_SSL &&
           ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

/// Never prompt on a terminal for a key's passphrase: no password, no key.
int no_prompt(char*, int, int, void*) { return 0; }

int give_password(char* out, int size, int, void* password) {
    const std::string& text = *static_cast<const std::string*>(password);
    if (text.size() > static_cast<size_t>(size)) return 0;
    std::memcpy(out, text.data(), text.size());
    return static_cast<int>(text.size());
}

/// What a TLS alert from the broker most likely means, for the alerts a
/// client certificate draws (with TLS 1.3 they arrive after the handshake,
/// with the first response).
std::string alert_hint(const std::string& reason) {
    if (reason.find("alert certificate required") != std::string::npos ||
        reason.find("alert handshake failure") != std::string::npos) {
        return " (the broker requires a client certificate: ssl.keystore.location)";
    }
    if (reason.find("alert unknown ca") != std::string::npos ||
        reason.find("alert bad certificate") != std::string::npos ||
        reason.find("alert certificate unknown") != std::string::npos) {
        return " (the broker does not trust Ballast's certificate)";
    }
    return "";
}

bool is_ip_literal(const std::string& host) {
    unsigned char address[sizeof(in6_addr)];
    return inet_pton(AF_INET, host.c_str(), address) == 1 ||
           inet_pton(AF_INET6, host.c_str(), address) == 1;
}

// ------------------------------------------------------------ the stores

struct Pkcs12Contents {
    EVP_PKEY* key = nullptr;
    X509* certificate = nullptr;
    STACK_OF(X509)* chain = nullptr;
    ~Pkcs12Contents() {
        EVP_PKEY_free(key);
        X509_free(certificate);
        sk_X509_pop_free(chain, X509_free);
    }
};

/// "ssl.truststore.location /x/t.p12 (PKCS12): " for the errors of a store.
std::string store_label(const char* property, const std::string& path, StoreType type) {
    return std::string(property) + " " + path + " (" + store_type_name(type) + "): ";
}

/// The file's bytes; the error says why it cannot be read ("No such file or
/// directory"), which OpenSSL's own readers report only as "system lib".
Result<std::string> read_file(const std::string& path, const std::string& label) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        return make_error(ErrorCode::invalid_argument, label + "cannot open: " + std::strerror(errno));
    }
    std::string bytes;
    char buffer[4096];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof(buffer), file)) > 0) bytes.append(buffer, got);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) return make_error(ErrorCode::invalid_argument, label + "cannot read");
    return bytes;
}

Status read_pkcs12(const std::string& path, const Secret& password, const std::string& label,
                   Pkcs12Contents& contents) {
    Result<std::string> bytes = read_file(path, label);
    if (!bytes.ok()) return bytes.error();
    BIO* memory = BIO_new_mem_buf(bytes->data(), static_cast<int>(bytes->size()));
    PKCS12* p12 = memory != nullptr ? d2i_PKCS12_bio(memory, nullptr) : nullptr;
    BIO_free(memory);
    if (p12 == nullptr) {
        return make_error(ErrorCode::invalid_argument,
                          label + "not a PKCS12 file (" + openssl_reason("unreadable") + ")");
    }
    const int parsed = PKCS12_parse(p12, password.reveal().c_str(), &contents.key,
                                    &contents.certificate, &contents.chain);
    PKCS12_free(p12);
    if (parsed != 1) {
        std::string reason = openssl_reason("unreadable");
        if (reason == "mac verify failure") reason += ": wrong password or damaged file";
        return make_error(ErrorCode::invalid_argument, label + reason);
    }
    return Status();
}

Status load_trust(SSL_CTX* ctx, const TlsOptions& options) {
    if (options.truststore_path.empty()) {
        if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
            return make_error(ErrorCode::io_error, "the system's trust store: " +
                                                       openssl_reason("cannot be loaded"));
        }
        return Status();
    }
    const std::string label = store_label("ssl.truststore.location", options.truststore_path,
                                          options.truststore_type);
    if (options.truststore_type == StoreType::pem) {
        Result<std::string> readable = read_file(options.truststore_path, label);
        if (!readable.ok()) return readable.error();
        if (SSL_CTX_load_verify_locations(ctx, options.truststore_path.c_str(), nullptr) != 1) {
            return make_error(ErrorCode::invalid_argument,
                              label + openssl_reason("holds no certificate"));
        }
        return Status();
    }
    Pkcs12Contents contents;
    Status read = read_pkcs12(options.truststore_path, options.truststore_password, label, contents);
    if (!read.ok()) return read;
    X509_STORE* store = SSL_CTX_get_cert_store(ctx);
    int added = 0;
    // A trust store has no key, so OpenSSL puts every certificate in the chain.
    if (contents.certificate != nullptr) added += X509_STORE_add_cert(store, contents.certificate);
    for (int i = 0; i < sk_X509_num(contents.chain); ++i) {
        added += X509_STORE_add_cert(store, sk_X509_value(contents.chain, i));
    }
    ERR_clear_error();
    if (added == 0) return make_error(ErrorCode::invalid_argument, label + "holds no certificate");
    return Status();
}

Status load_identity(SSL_CTX* ctx, const TlsOptions& options) {
    if (options.keystore_path.empty()) return Status();
    const std::string& path = options.keystore_path;
    const std::string label = store_label("ssl.keystore.location", path, options.keystore_type);
    if (options.keystore_type == StoreType::pkcs12) {
        Pkcs12Contents contents;
        Status read = read_pkcs12(path, options.keystore_password, label, contents);
        if (!read.ok()) return read;
        if (contents.key == nullptr || contents.certificate == nullptr) {
            return make_error(ErrorCode::invalid_argument,
                              label + "holds no private key with its certificate");
        }
        if (SSL_CTX_use_cert_and_key(ctx, contents.certificate, contents.key, contents.chain, 1) != 1) {
            return make_error(ErrorCode::invalid_argument, label + openssl_reason("unusable key"));
        }
        return Status();
    }
    Result<std::string> pem = read_file(path, label);
    if (!pem.ok()) return pem.error();
    if (SSL_CTX_use_certificate_chain_file(ctx, path.c_str()) != 1) {
        return make_error(ErrorCode::invalid_argument,
                          label + "certificate chain: " + openssl_reason("none found"));
    }
    const bool encrypted = pem->find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string::npos;
    if (encrypted && options.key_password.empty()) {
        return make_error(ErrorCode::invalid_argument,
                          label + "the private key is encrypted and ssl.key.password is not set");
    }
    BIO* memory = BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size()));
    std::string password = options.key_password.reveal();
    EVP_PKEY* key = memory != nullptr
                        ? PEM_read_bio_PrivateKey(memory, nullptr, give_password, &password)
                        : nullptr;
    BIO_free(memory);
    OPENSSL_cleanse(password.data(), password.size());
    OPENSSL_cleanse(pem->data(), pem->size());
    if (key == nullptr) {
        const std::string reason = openssl_reason("none found");
        return make_error(ErrorCode::invalid_argument,
                          label + (encrypted ? "cannot decrypt the private key, wrong "
                                               "ssl.key.password? (" + reason + ")"
                                             : "private key: " + reason));
    }
    const int used = SSL_CTX_use_PrivateKey(ctx, key);
    EVP_PKEY_free(key);
    if (used != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        return make_error(ErrorCode::invalid_argument,
                          label + "the private key does not match the certificate (" +
                              openssl_reason("mismatch") + ")");
    }
    return Status();
}

}  // namespace

// ------------------------------------------------------------ the trust store as PEM

Result<std::string> truststore_pem(const TlsOptions& options) {
    if (options.truststore_path.empty()) return std::string();
    const std::string label = store_label("ssl.truststore.location", options.truststore_path,
                                          options.truststore_type);
    if (options.truststore_type == StoreType::pem) return read_file(options.truststore_path, label);
    Pkcs12Contents contents;
    Status read = read_pkcs12(options.truststore_path, options.truststore_password, label, contents);
    if (!read.ok()) return read.error();
    BIO* out = BIO_new(BIO_s_mem());
    if (out == nullptr) return make_error(ErrorCode::io_error, label + openssl_reason("out of memory"));
    int written = 0;
    if (contents.certificate != nullptr) written += PEM_write_bio_X509(out, contents.certificate);
    for (int i = 0; i < sk_X509_num(contents.chain); ++i) {
        written += PEM_write_bio_X509(out, sk_X509_value(contents.chain, i));
    }
    char* data = nullptr;
    const long size = BIO_get_mem_data(out, &data);
    std::string pem(data != nullptr && size > 0 ? std::string(data, static_cast<size_t>(size)) : std::string());
    BIO_free(out);
    ERR_clear_error();
    if (written == 0) return make_error(ErrorCode::invalid_argument, label + "holds no certificate");
    return pem;
}

// ------------------------------------------------------------ TlsContext

TlsContext::TlsContext(SSL_CTX* ctx, bool verify_hostname, std::string trust)
    : _ctx(ctx), _verify_hostname(verify_hostname), _trust(std::move(trust)) {}

TlsContext::~TlsContext() { SSL_CTX_free(_ctx); }

Result<std::shared_ptr<const TlsContext>> TlsContext::load(const TlsOptions& options) {
    ERR_clear_error();
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == nullptr) {
        return make_error(ErrorCode::io_error, "TLS: " + openssl_reason("cannot make a context"));
    }
    std::shared_ptr<const TlsContext> context(new TlsContext(
        ctx, options.verify_hostname,
        options.truststore_path.empty() ? "the system's trust store"
                                        : "truststore " + options.truststore_path));
    // Kafka's clients enable TLSv1.2 and TLSv1.3 by default; nothing older.
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_default_passwd_cb(ctx, no_prompt);
    Status trust = load_trust(ctx, options);
    if (!trust.ok()) return trust.error();
    Status identity = load_identity(ctx, options);
    if (!identity.ok()) return identity.error();
    return context;
}

// ------------------------------------------------------------ TlsTransport

TlsTransport::TlsTransport(TlsContextSource context, std::string protocol)
    : _source(std::move(context)), _tcp(std::move(protocol)) {}

TlsTransport::~TlsTransport() { close(); }

TransportFactory TlsTransport::factory(TlsOptions options, std::string protocol) {
    struct Shared {
        TlsOptions options;
        std::mutex mutex;
        std::shared_ptr<const TlsContext> context;
    };
    auto shared = std::make_shared<Shared>();
    shared->options = std::move(options);
    TlsContextSource source = [shared]() -> Result<std::shared_ptr<const TlsContext>> {
        std::lock_guard<std::mutex> lock(shared->mutex);
        if (!shared->context) {
            Result<std::shared_ptr<const TlsContext>> loaded = TlsContext::load(shared->options);
            if (!loaded.ok()) return loaded.error();
            shared->context = *loaded;
        }
        return shared->context;
    };
    return [source, protocol] { return std::make_unique<TlsTransport>(source, protocol); };
}

std::string TlsTransport::first_answer_hint(const Failure& failure) const {
    if (_answered || !(failure.closed || failure.reset)) return "";
    return " (the broker ended the connection right after the TLS handshake: with TLS 1.3 "
           "that is how it refuses a missing or untrusted client certificate; "
           "ssl.keystore.location)";
}

void TlsTransport::free_ssl() {
    if (_ssl == nullptr) return;
    // A polite close_notify, not waited for; never after a fatal error.
    if (!_fatal && SSL_is_init_finished(_ssl)) SSL_shutdown(_ssl);
    SSL_free(_ssl);
    _ssl = nullptr;
    ERR_clear_error();
}

void TlsTransport::close() {
    free_ssl();
    _tcp.close();
    _fatal = false;
    _answered = false;
}

Status TlsTransport::open(const std::string& host, int32_t port, Deadline deadline) {
    close();
    Result<std::shared_ptr<const TlsContext>> context = _source();
    if (!context.ok()) {
        return make_error(context.error().code, _tcp.protocol() + " " + host + ":" +
                                                    std::to_string(port) + ": " +
                                                    context.error().message);
    }
    _context = *context;
    Status connected = _tcp.open(host, port, deadline);
    if (!connected.ok()) return connected;
    Status secured = handshake(host, deadline);
    if (!secured.ok()) close();
    return secured;
}

bool TlsTransport::wait_or_fail(int result, Deadline deadline, const char* doing,
                                Failure& failure) {
    const int saved_errno = errno;
    const int error = SSL_get_error(_ssl, result);
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
        failure.timeout = _tcp.wait(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline, doing);
        return failure.timeout.ok();
    }
    _fatal = error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL;
    if (at_end_of_stream(error)) {
        ERR_clear_error();
        failure.closed = true;
    } else if (error == SSL_ERROR_SYSCALL && ERR_peek_last_error() == 0) {
        failure.reason = std::strerror(saved_errno);
        failure.reset = saved_errno == ECONNRESET || saved_errno == EPIPE;
    } else {
        failure.reason = openssl_reason("TLS error " + std::to_string(error));
        failure.reason += alert_hint(failure.reason);
    }
    return false;
}

Status TlsTransport::handshake(const std::string& host, Deadline deadline) {
    ERR_clear_error();
    _ssl = SSL_new(_context->native());
    BIO* bio = _ssl != nullptr ? socket_bio(_tcp.fd()) : nullptr;
    if (bio == nullptr) {
        return make_error(ErrorCode::io_error, describe() + ": " + openssl_reason("out of memory"));
    }
    SSL_set_bio(_ssl, bio, bio);
    const bool ip = is_ip_literal(host);
    if (!ip) SSL_set_tlsext_host_name(_ssl, host.c_str());
    if (_context->verify_hostname()) {
        if (ip) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(_ssl), host.c_str());
        } else {
            SSL_set_hostflags(_ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
            SSL_set1_host(_ssl, host.c_str());
        }
    }
    SSL_set_connect_state(_ssl);
    for (;;) {
        ERR_clear_error();
        errno = 0;
        const int result = SSL_connect(_ssl);
        if (result == 1) return Status();
        Failure failure;
        if (wait_or_fail(result, deadline, "during the TLS handshake", failure)) continue;
        if (!failure.timeout.ok()) return failure.timeout;
        const long verified = SSL_get_verify_result(_ssl);
        const std::string where = " (" + describe() + "; " + _context->trust() + ")";
        if (verified == X509_V_ERR_HOSTNAME_MISMATCH) {
            return make_error(ErrorCode::invalid_argument,
                              "certificate verify failed: hostname mismatch: the broker's "
                              "certificate does not name '" + host + "'" + where);
        }
        if (verified == X509_V_ERR_IP_ADDRESS_MISMATCH) {
            return make_error(ErrorCode::invalid_argument,
                              "certificate verify failed: IP address mismatch: the broker's "
                              "certificate does not name " + host + where);
        }
        if (verified != X509_V_OK) {
            return make_error(ErrorCode::invalid_argument,
                              std::string("certificate verify failed: the broker's certificate is not trusted: ") +
                                  X509_verify_cert_error_string(verified) + where);
        }
        // A PLAINTEXT listener closes on our ClientHello, or answers bytes
        // that are not TLS.
        const bool not_tls =
            failure.closed || failure.reset || failure.reason == "wrong version number";
        return make_error(ErrorCode::io_error,
                          "TLS handshake with " + describe() + " failed: " +
                              (failure.closed ? "connection closed by the broker" : failure.reason) +
                              (not_tls ? " (is it a TLS listener?)" : ""));
    }
}

Status TlsTransport::write(std::span<const uint8_t> bytes, Deadline deadline) {
    if (!is_open()) return make_error(ErrorCode::io_error, describe() + ": not connected");
    size_t written = 0;
    while (written < bytes.size()) {
        ERR_clear_error();
        errno = 0;
        size_t done = 0;
        const int result = SSL_write_ex(_ssl, bytes.data() + written, bytes.size() - written, &done);
        if (result == 1) {
            written += done;
            continue;
        }
        Failure failure;
        if (wait_or_fail(result, deadline, "writing", failure)) continue;
        const std::string hint = first_answer_hint(failure);
        close();
        if (!failure.timeout.ok()) return failure.timeout;
        return make_error(ErrorCode::io_error,
                          describe() + ": write after " + std::to_string(written) + " of " +
                              std::to_string(bytes.size()) + " bytes: " +
                              (failure.closed ? "connection closed by the broker" : failure.reason) +
                              hint);
    }
    return Status();
}

Status TlsTransport::read(std::span<uint8_t> buffer, Deadline deadline) {
    if (!is_open()) return make_error(ErrorCode::io_error, describe() + ": not connected");
    size_t filled = 0;
    while (filled < buffer.size()) {
        ERR_clear_error();
        errno = 0;
        size_t got = 0;
        const int result = SSL_read_ex(_ssl, buffer.data() + filled, buffer.size() - filled, &got);
        if (result == 1) {
            filled += got;
            _answered = true;
            continue;
        }
        Failure failure;
        if (wait_or_fail(result, deadline, "waiting for the response", failure)) continue;
        const std::string hint = first_answer_hint(failure);
        close();
        if (!failure.timeout.ok()) return failure.timeout;
        if (failure.closed) {
            return make_error(ErrorCode::io_error,
                              describe() + ": connection closed by the broker after " +
                                  std::to_string(filled) + " of " +
                                  std::to_string(buffer.size()) + " bytes" + hint);
        }
        return make_error(ErrorCode::io_error, describe() + ": read: " + failure.reason + hint);
    }
    return Status();
}

bool TlsTransport::broken() {
    if (!is_open()) return true;
    if (SSL_pending(_ssl) > 0) return true;  // decrypted data nobody asked for
    pollfd entry{_tcp.fd(), POLLIN, 0};
    const int ready = ::poll(&entry, 1, 0);
    if (ready == 0) return false;  // idle and open: the usual case
    if (ready < 0) return errno != EINTR;
    ERR_clear_error();
    errno = 0;
    uint8_t byte = 0;
    size_t got = 0;
    const int result = SSL_peek_ex(_ssl, &byte, 1, &got);
    if (result == 1) return true;  // data no request asked for
    const int error = SSL_get_error(_ssl, result);
    ERR_clear_error();
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) return false;
    _fatal = error == SSL_ERROR_SYSCALL || error == SSL_ERROR_SSL;
    return true;  // close_notify, another alert, or the end of the stream
}

}  // namespace ballast::kafka::wire
