#pragma once

/// Certificates and keys made at test time with OpenSSL's C API, written to a
/// fresh temporary directory that the destructor removes: nothing is checked
/// in, nothing expires between runs. EC P-256 keys (generated in about a
/// millisecond each), SHA-256 signatures, valid from an hour ago for a day.
///
///   ca          a root CA that signs the broker's and Ballast's certificates
///   other_ca    a root CA that signs nothing here: trusting it alone fails
///   server      "localhost" and 127.0.0.1 in its subject alternative names
///   elsewhere   a server certificate for "elsewhere.example" only
///   client      CN=ballast, for mutual TLS

#include <string>

namespace ballast::testing {

struct TestPki {
    TestPki();
    ~TestPki();
    TestPki(const TestPki&) = delete;
    TestPki& operator=(const TestPki&) = delete;

    std::string dir;

    std::string ca_pem;            // the CA's certificate
    std::string other_ca_pem;      // another CA's certificate
    std::string truststore_p12;    // the CA's certificate in PKCS12, password below
    std::string truststore_password = "trust-pass";

    std::string server_chain_pem;  // the server's certificate, then the CA's
    std::string server_key_pem;
    std::string elsewhere_chain_pem;
    std::string elsewhere_key_pem;

    std::string client_pem;            // the client's key (unencrypted) and certificate
    std::string client_encrypted_pem;  // the same, the key encrypted with key_password
    std::string key_password = "key-pass";
    std::string client_p12;            // key and certificate in PKCS12
    std::string keystore_password = "store-pass";
};

}  // namespace ballast::testing
