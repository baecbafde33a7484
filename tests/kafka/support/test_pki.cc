#include "tests/kafka/support/test_pki.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace ballast::testing {

namespace {

[[noreturn]] void pki_die(const std::string& what) {
    std::fprintf(stderr, "test pki: %s\n", what.c_str());
    std::abort();
}

EVP_PKEY* make_key() {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    if (key == nullptr) pki_die("EVP_EC_gen");
    return key;
}

void extend(X509* certificate, X509* issuer, int nid, const char* value) {
    X509V3_CTX context;
    X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
    if (extension == nullptr || X509_add_ext(certificate, extension, -1) != 1) {
        pki_die(std::string("extension ") + value);
    }
    X509_EXTENSION_free(extension);
}

/// A certificate for `key` named `common_name`, signed by `issuer_key`
/// (itself when `issuer` is null: a root).
X509* make_certificate(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
                       const char* alt_names, long serial) {
    X509* certificate = X509_new();
    X509_set_version(certificate, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial);
    X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
    X509_gmtime_adj(X509_getm_notAfter(certificate), 24 * 3600);
    X509_set_pubkey(certificate, key);
    X509_NAME* name = X509_get_subject_name(certificate);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("Ballast tests"), -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(common_name), -1, -1, 0);
    X509* signer = issuer != nullptr ? issuer : certificate;
    X509_set_issuer_name(certificate, X509_get_subject_name(signer));
    extend(certificate, signer, NID_subject_key_identifier, "hash");
    extend(certificate, signer, NID_authority_key_identifier, "keyid:always");
    if (issuer == nullptr) {
        extend(certificate, signer, NID_basic_constraints, "critical,CA:TRUE");
        extend(certificate, signer, NID_key_usage, "critical,keyCertSign,cRLSign");
    } else {
        extend(certificate, signer, NID_basic_constraints, "critical,CA:FALSE");
        extend(certificate, signer, NID_key_usage, "critical,digitalSignature");
        if (alt_names != nullptr) extend(certificate, signer, NID_subject_alt_name, alt_names);
    }
    if (X509_sign(certificate, issuer_key, EVP_sha256()) == 0) pki_die("X509_sign");
    return certificate;
}

/// Writes PEM blocks to `path`: the key first (encrypted when `password` is
/// given), then each certificate.
void write_pem(const std::string& path, EVP_PKEY* key, std::initializer_list<X509*> certificates,
               const char* password = nullptr) {
    BIO* file = BIO_new_file(path.c_str(), "w");
    if (file == nullptr) pki_die("cannot write " + path);
    if (key != nullptr) {
        const bool written =
            password == nullptr
                ? PEM_write_bio_PKCS8PrivateKey(file, key, nullptr, nullptr, 0, nullptr, nullptr) == 1
                : PEM_write_bio_PKCS8PrivateKey(file, key, EVP_aes_256_cbc(), password,
                                                static_cast<int>(std::strlen(password)), nullptr,
                                                nullptr) == 1;
        if (!written) pki_die("cannot write the key to " + path);
    }
    for (X509* certificate : certificates) {
        if (PEM_write_bio_X509(file, certificate) != 1) pki_die("cannot write " + path);
    }
    BIO_free(file);
}

void write_p12(const std::string& path, const std::string& password, EVP_PKEY* key, X509* certificate,
               X509* extra) {
    STACK_OF(X509)* chain = nullptr;
    if (extra != nullptr) {
        chain = sk_X509_new_null();
        sk_X509_push(chain, extra);
    }
    PKCS12* p12 = PKCS12_create(password.c_str(), "ballast", key, certificate, chain, 0, 0, 0, 0, 0);
    sk_X509_free(chain);
    if (p12 == nullptr) pki_die("PKCS12_create for " + path);
    BIO* file = BIO_new_file(path.c_str(), "wb");
    if (file == nullptr || i2d_PKCS12_bio(file, p12) != 1) pki_die("cannot write " + path);
    BIO_free(file);
    PKCS12_free(p12);
}

}  // namespace

TestPki::TestPki() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ballast-pki-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) pki_die("mkdtemp");
    dir = pattern;
    auto at = [&](const char* name) { return dir + "/" + name; };

    EVP_PKEY* ca_key = make_key();
    X509* ca = make_certificate(ca_key, "Ballast test CA", nullptr, ca_key, nullptr, 1);
    EVP_PKEY* other_key = make_key();
    X509* other = make_certificate(other_key, "Another CA", nullptr, other_key, nullptr, 2);
    EVP_PKEY* server_key = make_key();
    X509* server = make_certificate(server_key, "localhost", ca, ca_key,
                                    "DNS:localhost,IP:127.0.0.1", 3);
    EVP_PKEY* elsewhere_key = make_key();
    X509* elsewhere = make_certificate(elsewhere_key, "elsewhere.example", ca, ca_key,
                                       "DNS:elsewhere.example", 4);
    EVP_PKEY* client_key = make_key();
    X509* client = make_certificate(client_key, "ballast", ca, ca_key, nullptr, 5);

    ca_pem = at("ca.pem");
    write_pem(ca_pem, nullptr, {ca});
    other_ca_pem = at("other-ca.pem");
    write_pem(other_ca_pem, nullptr, {other});
    truststore_p12 = at("truststore.p12");
    write_p12(truststore_p12, truststore_password, nullptr, nullptr, ca);

    server_chain_pem = at("server-chain.pem");
    write_pem(server_chain_pem, nullptr, {server, ca});
    server_key_pem = at("server-key.pem");
    write_pem(server_key_pem, server_key, {});
    elsewhere_chain_pem = at("elsewhere-chain.pem");
    write_pem(elsewhere_chain_pem, nullptr, {elsewhere, ca});
    elsewhere_key_pem = at("elsewhere-key.pem");
    write_pem(elsewhere_key_pem, elsewhere_key, {});

    client_pem = at("client.pem");
    write_pem(client_pem, client_key, {client});
    client_encrypted_pem = at("client-encrypted.pem");
    write_pem(client_encrypted_pem, client_key, {client}, key_password.c_str());
    client_p12 = at("client.p12");
    write_p12(client_p12, keystore_password, client_key, client, nullptr);

    for (X509* certificate : {ca, other, server, elsewhere, client}) X509_free(certificate);
    for (EVP_PKEY* key : {ca_key, other_key, server_key, elsewhere_key, client_key}) EVP_PKEY_free(key);
}

TestPki::~TestPki() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
}

}  // namespace ballast::testing
