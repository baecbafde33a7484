#include "adapters/kafka/wire/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <cassert>
#include <cctype>
#include <charconv>

namespace ballast::kafka::wire {

using events::ErrorCode;
using events::make_error;
using events::Result;
using events::Status;

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/// RFC 5802's printable: 0x21-0x7e except ','.
bool is_printable(std::string_view text) {
    for (const char c : text) {
        if (c < 0x21 || c > 0x7e || c == ',') return false;
    }
    return true;
}

const EVP_MD* digest(ScramHash hash) {
    return hash == ScramHash::sha256 ? EVP_sha256() : EVP_sha512();
}

std::vector<uint8_t> hmac(ScramHash hash, std::span<const uint8_t> key, std::string_view data) {
    std::vector<uint8_t> out(EVP_MAX_MD_SIZE);
    unsigned int length = 0;
    const unsigned char* done =
        HMAC(digest(hash), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &length);
    assert(done != nullptr);
    (void)done;
    out.resize(length);
    return out;
}

std::vector<uint8_t> hash_of(ScramHash hash, std::span<const uint8_t> data) {
    std::vector<uint8_t> out(EVP_MAX_MD_SIZE);
    unsigned int length = 0;
    const int done = EVP_Digest(data.data(), data.size(), out.data(), &length, digest(hash), nullptr);
    assert(done == 1);
    (void)done;
    out.resize(length);
    return out;
}

/// Splits "a=1,b=2" into its attributes; each must be one letter, '=' and a value.
struct Attribute {
    char name;
    std::string_view value;
};

Result<std::vector<Attribute>> attributes(std::string_view message, const char* what) {
    std::vector<Attribute> out;
    size_t start = 0;
    while (start <= message.size()) {
        size_t comma = message.find(',', start);
        if (comma == std::string_view::npos) comma = message.size();
        const std::string_view part = message.substr(start, comma - start);
        if (part.size() < 2 || part[1] != '=' || !std::isalpha(static_cast<unsigned char>(part[0]))) {
            return make_error(ErrorCode::corruption,
                              std::string(what) + ": attribute " + std::to_string(out.size() + 1) +
                                  " is not of the form x=value");
        }
        out.push_back({part[0], part.substr(2)});
        start = comma + 1;
    }
    return out;
}

}  // namespace

const char* scram_mechanism_name(ScramHash hash) {
    return hash == ScramHash::sha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

Result<std::string> random_scram_nonce() {
    std::array<uint8_t, 24> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        return make_error(ErrorCode::io_error, "SCRAM: OpenSSL's random generator failed");
    }
    return base64_encode(bytes);
}

std::string scram_sasl_name(std::string_view username) {
    std::string out;
    out.reserve(username.size());
    for (const char c : username) {
        if (c == ',') {
            out += "=2C";
        } else if (c == '=') {
            out += "=3D";
        } else {
            out += c;
        }
    }
    return out;
}

std::string base64_encode(std::span<const uint8_t> bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t group = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
        for (int shift = 18; shift >= 0; shift -= 6) out += alphabet[(group >> shift) & 63];
    }
    const size_t left = bytes.size() - i;
    if (left > 0) {
        uint32_t group = uint32_t{bytes[i]} << 16;
        if (left == 2) group |= uint32_t{bytes[i + 1]} << 8;
        out += alphabet[(group >> 18) & 63];
        out += alphabet[(group >> 12) & 63];
        out += left == 2 ? alphabet[(group >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

Result<std::vector<uint8_t>> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return make_error(ErrorCode::corruption, "base64 of " + std::to_string(text.size()) +
                                                     " characters: not a multiple of 4");
    }
    std::vector<uint8_t> out;
    out.reserve(text.size() / 4 * 3);
    for (size_t i = 0; i < text.size(); i += 4) {
        // '=' pads only the last group, one or two of them at its end.
        int padding = 0;
        if (i + 4 == text.size() && text[i + 3] == '=') padding = text[i + 2] == '=' ? 2 : 1;
        uint32_t group = 0;
        for (size_t j = 0; j < 4; ++j) {
            if (static_cast<int>(j) >= 4 - padding) {
                group <<= 6;
                continue;
            }
            const int value = base64_value(text[i + j]);
            if (value < 0) {
                return make_error(ErrorCode::corruption,
                                  "base64: character " + std::to_string(i + j) + " is not base64");
            }
            group = (group << 6) | static_cast<uint32_t>(value);
        }
        out.push_back(static_cast<uint8_t>(group >> 16));
        if (padding < 2) out.push_back(static_cast<uint8_t>(group >> 8));
        if (padding < 1) out.push_back(static_cast<uint8_t>(group));
    }
    return out;
}

Result<ScramServerFirst> parse_scram_server_first(std::string_view message) {
    const char* what = "SCRAM server-first message";
    Result<std::vector<Attribute>> parts = attributes(message, what);
    if (!parts.ok()) return parts.error();
    const std::vector<Attribute>& a = *parts;
    if (a[0].name == 'm') {
        return make_error(ErrorCode::unsupported,
                          std::string(what) + ": the server requires an extension (m=) that "
                                              "SCRAM clients do not know");
    }
    if (a.size() < 3 || a[0].name != 'r' || a[1].name != 's' || a[2].name != 'i') {
        return make_error(ErrorCode::corruption,
                          std::string(what) + ": expected r=<nonce>,s=<salt>,i=<iterations>");
    }
    ScramServerFirst first;
    if (a[0].value.empty() || !is_printable(a[0].value)) {
        return make_error(ErrorCode::corruption,
                          std::string(what) + ": the nonce is empty or not printable ASCII");
    }
    first.nonce = std::string(a[0].value);
    Result<std::vector<uint8_t>> salt = base64_decode(a[1].value);
    if (!salt.ok()) return make_error(ErrorCode::corruption, std::string(what) + ": salt: " +
                                                                 salt.error().message);
    if (salt->empty()) return make_error(ErrorCode::corruption, std::string(what) + ": empty salt");
    first.salt = std::move(*salt);
    const std::string_view count = a[2].value;
    const char* end = count.data() + count.size();
    auto [parsed_end, error] = std::from_chars(count.data(), end, first.iterations);
    if (count.empty() || error != std::errc() || parsed_end != end || first.iterations <= 0) {
        return make_error(ErrorCode::corruption,
                          std::string(what) + ": the iteration count is not a positive number");
    }
    // Attributes after i= are extensions this client does not use (RFC 5802 5.1).
    return first;
}

ScramClient::ScramClient(ScramHash hash, std::string username, std::string password,
                         std::string nonce)
    : _hash(hash),
      _client_first_bare("n=" + scram_sasl_name(username) + ",r=" + nonce),
      _nonce(std::move(nonce)),
      _password(std::move(password)) {
    assert(!_nonce.empty() && is_printable(_nonce));
}

ScramClient::~ScramClient() { OPENSSL_cleanse(_password.data(), _password.size()); }

std::string ScramClient::client_first() const { return "n,," + _client_first_bare; }

Result<std::string> ScramClient::client_final(std::string_view server_first) {
    assert(_expected_server_signature.empty() && "one client-final per conversation");
    Result<ScramServerFirst> first = parse_scram_server_first(server_first);
    if (!first.ok()) return first.error();
    if (first->nonce.size() <= _nonce.size() || first->nonce.compare(0, _nonce.size(), _nonce) != 0) {
        return make_error(ErrorCode::corruption,
                          "SCRAM server-first message: the server's nonce does not extend ours");
    }
    if (first->iterations < scram_iterations_min || first->iterations > scram_iterations_max) {
        return make_error(ErrorCode::invalid_argument,
                          std::string("SCRAM server-first message: the server asks for ") +
                              std::to_string(first->iterations) + " iterations; " +
                              scram_mechanism_name(_hash) + " needs " +
                              std::to_string(scram_iterations_min) + " to " +
                              std::to_string(scram_iterations_max));
    }

    const size_t key_size = static_cast<size_t>(EVP_MD_get_size(digest(_hash)));
    std::vector<uint8_t> salted(key_size);
    const int derived = PKCS5_PBKDF2_HMAC(_password.data(), static_cast<int>(_password.size()),
                                          first->salt.data(), static_cast<int>(first->salt.size()),
                                          static_cast<int>(first->iterations), digest(_hash),
                                          static_cast<int>(key_size), salted.data());
    OPENSSL_cleanse(_password.data(), _password.size());
    _password.clear();
    if (derived != 1) {
        return make_error(ErrorCode::io_error, "SCRAM: OpenSSL's PBKDF2 failed");
    }

    const std::string without_proof = "c=biws,r=" + first->nonce;
    const std::string auth_message =
        _client_first_bare + "," + std::string(server_first) + "," + without_proof;
    std::vector<uint8_t> client_key = hmac(_hash, salted, "Client Key");
    const std::vector<uint8_t> stored_key = hash_of(_hash, client_key);
    const std::vector<uint8_t> client_signature = hmac(_hash, stored_key, auth_message);
    std::vector<uint8_t> proof(client_key.size());
    for (size_t i = 0; i < proof.size(); ++i) proof[i] = client_key[i] ^ client_signature[i];
    const std::vector<uint8_t> server_key = hmac(_hash, salted, "Server Key");
    _expected_server_signature = hmac(_hash, server_key, auth_message);
    OPENSSL_cleanse(salted.data(), salted.size());
    OPENSSL_cleanse(client_key.data(), client_key.size());
    return without_proof + ",p=" + base64_encode(proof);
}

Status ScramClient::verify_server_final(std::string_view server_final) const {
    assert(!_expected_server_signature.empty());
    const char* what = "SCRAM server-final message";
    Result<std::vector<Attribute>> parts = attributes(server_final, what);
    if (!parts.ok()) return parts.error();
    const Attribute& first = parts->front();
    if (first.name == 'e') {
        // RFC 5802's server-error-value is a short token ("invalid-proof"); a
        // longer one is cut so a hostile server cannot flood the logs.
        return make_error(ErrorCode::invalid_argument,
                          "the server refused the proof: " + std::string(first.value.substr(0, 100)));
    }
    if (first.name != 'v') {
        return make_error(ErrorCode::corruption,
                          std::string(what) + ": expected v=<signature> or e=<error>");
    }
    Result<std::vector<uint8_t>> signature = base64_decode(first.value);
    if (!signature.ok()) {
        return make_error(ErrorCode::corruption,
                          std::string(what) + ": signature: " + signature.error().message);
    }
    if (signature->size() != _expected_server_signature.size() ||
        CRYPTO_memcmp(signature->data(), _expected_server_signature.data(), signature->size()) != 0) {
        return make_error(ErrorCode::invalid_argument,
                          "the server's signature does not match: it does not know the password "
                          "(it is not the broker it claims to be)");
    }
    return Status();
}

}  // namespace ballast::kafka::wire
