// The SCRAM client against RFC 7677's SHA-256 example, exactly, and against a
// SHA-512 conversation Kafka's own ScramFormatter computed (tests/kafka/vectors/);
// then every way a server's message can be wrong, each refused with a reason.

#include <gtest/gtest.h>

#include <set>

#include "adapters/kafka/wire/scram.h"
#include "tests/kafka/support/kafka_vectors.h"

// A namespace of its own: the unity build joins the suite's files, and each keeps
// its own helpers.
namespace ballast::kafka::wire::scram_test {
namespace {

using events::Result;
using events::Status;
using testing::kafka_vectors;

std::string vector_text(const std::string& name) {
    const std::vector<uint8_t>& bytes = kafka_vectors().at(name);
    return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> bytes_of(std::string_view text) {
    return std::vector<uint8_t>(text.begin(), text.end());
}

// RFC 7677 section 3.
constexpr const char* rfc_client_first = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* rfc_server_first =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* rfc_client_final =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* rfc_server_final = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

TEST(Scram, Rfc7677Sha256ExampleExactly) {
    ScramClient client(ScramHash::sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
    EXPECT_EQ(client.client_first(), rfc_client_first);
    Result<std::string> final_message = client.client_final(rfc_server_first);
    ASSERT_TRUE(final_message.ok()) << final_message.error().to_string();
    EXPECT_EQ(*final_message, rfc_client_final);
    Status verified = client.verify_server_final(rfc_server_final);
    EXPECT_TRUE(verified.ok()) << verified.error().to_string();
}

// Kafka's ScramFormatter, given the RFC's inputs, writes the RFC's messages: the vectors
// and the RFC agree, so the SHA-512 vector below is as good a reference.
TEST(Scram, KafkasFormatterAgreesWithTheRfc) {
    EXPECT_EQ(vector_text("scram.rfc7677.client_first"), rfc_client_first);
    EXPECT_EQ(vector_text("scram.rfc7677.server_first"), rfc_server_first);
    EXPECT_EQ(vector_text("scram.rfc7677.client_final"), rfc_client_final);
    EXPECT_EQ(vector_text("scram.rfc7677.server_final"), rfc_server_final);
}

TEST(Scram, Sha512AgainstKafkasScramFormatterWithAnEscapedName) {
    ScramClient client(ScramHash::sha512, "ballast,ops=admin", "correct horse battery",
                       "fyko+d2lbbFgONRv9qkxdawL");
    EXPECT_EQ(client.client_first(), vector_text("scram.sha512.client_first"));
    EXPECT_EQ(client.client_first(), "n,,n=ballast=2Cops=3Dadmin,r=fyko+d2lbbFgONRv9qkxdawL");
    Result<std::string> final_message = client.client_final(vector_text("scram.sha512.server_first"));
    ASSERT_TRUE(final_message.ok()) << final_message.error().to_string();
    EXPECT_EQ(*final_message, vector_text("scram.sha512.client_final"));
    EXPECT_TRUE(client.verify_server_final(vector_text("scram.sha512.server_final")).ok());
}

TEST(Scram, SaslNamesEscapeCommaAndEquals) {
    EXPECT_EQ(scram_sasl_name("plain"), "plain");
    EXPECT_EQ(scram_sasl_name("a,b=c"), "a=2Cb=3Dc");
    EXPECT_EQ(scram_sasl_name("=,"), "=3D=2C");
    EXPECT_EQ(scram_sasl_name(""), "");
}

TEST(Scram, Base64AsRfc4648) {
    const std::pair<const char*, const char*> cases[] = {
        {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"},
    };
    for (const auto& [plain, encoded] : cases) {
        EXPECT_EQ(base64_encode(bytes_of(plain)), encoded);
        Result<std::vector<uint8_t>> decoded = base64_decode(encoded);
        ASSERT_TRUE(decoded.ok()) << encoded;
        EXPECT_EQ(*decoded, bytes_of(plain));
    }
    const std::vector<uint8_t> all = [] {
        std::vector<uint8_t> bytes;
        for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<uint8_t>(i));
        return bytes;
    }();
    EXPECT_EQ(*base64_decode(base64_encode(all)), all);

    EXPECT_EQ(base64_decode("Zg=").error().message, "base64 of 3 characters: not a multiple of 4");
    EXPECT_EQ(base64_decode("Z,==").error().message, "base64: character 1 is not base64");
    EXPECT_EQ(base64_decode("Zg==Zg==").error().message, "base64: character 2 is not base64");
    EXPECT_EQ(base64_decode("Z=g=").error().message, "base64: character 1 is not base64");
}

TEST(Scram, RandomNoncesArePrintableAndDiffer) {
    std::set<std::string> seen;
    for (int i = 0; i < 20; ++i) {
        Result<std::string> nonce = random_scram_nonce();
        ASSERT_TRUE(nonce.ok());
        EXPECT_EQ(nonce->size(), 32u);
        EXPECT_EQ(nonce->find(','), std::string::npos);
        seen.insert(*nonce);
    }
    EXPECT_EQ(seen.size(), 20u);
}

std::string client_final_error(const std::string& server_first,
                               ScramHash hash = ScramHash::sha256) {
    ScramClient client(hash, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
    Result<std::string> answer = client.client_final(server_first);
    EXPECT_FALSE(answer.ok()) << server_first;
    return answer.ok() ? "" : answer.error().message;
}

TEST(Scram, ServerFirstMessagesThatAreRefused) {
    EXPECT_EQ(client_final_error("r=someoneElse123,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"),
              "SCRAM server-first message: the server's nonce does not extend ours");
    // Exactly our nonce: the server added nothing of its own.
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"),
              "SCRAM server-first message: the server's nonce does not extend ours");
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1000"),
              "SCRAM server-first message: the server asks for 1000 iterations; SCRAM-SHA-256 "
              "needs 4096 to 65536");
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=999999999",
                                 ScramHash::sha512),
              "SCRAM server-first message: the server asks for 999999999 iterations; "
              "SCRAM-SHA-512 needs 4096 to 65536");
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=12ab"),
              "SCRAM server-first message: the iteration count is not a positive number");
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqOx,s=not*,i=4096"),
              "SCRAM server-first message: salt: base64: character 3 is not base64");
    EXPECT_EQ(client_final_error("r=rOprNGfwEbeRWgbNEkqOx,s=,i=4096"),
              "SCRAM server-first message: empty salt");
    EXPECT_EQ(client_final_error("s=W22ZaJ0SNY7soEsUEjb6gQ==,r=rOprNGfwEbeRWgbNEkqOx,i=4096"),
              "SCRAM server-first message: expected r=<nonce>,s=<salt>,i=<iterations>");
    EXPECT_EQ(client_final_error("m=must,r=rOprNGfwEbeRWgbNEkqOx,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"),
              "SCRAM server-first message: the server requires an extension (m=) that SCRAM "
              "clients do not know");
    EXPECT_EQ(client_final_error("garbage"),
              "SCRAM server-first message: attribute 1 is not of the form x=value");
    EXPECT_EQ(client_final_error(""),
              "SCRAM server-first message: attribute 1 is not of the form x=value");
    // Extensions after the iteration count are allowed (RFC 5802 5.1) and ignored.
    ScramClient client(ScramHash::sha256, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");
    EXPECT_TRUE(client.client_final(std::string(rfc_server_first) + ",x=later").ok());
}

TEST(Scram, ServerFinalMessagesThatAreRefused) {
    auto after_proof = [] {
        auto client = std::make_unique<ScramClient>(ScramHash::sha256, "user", "pencil",
                                                    "rOprNGfwEbeRWgbNEkqO");
        EXPECT_TRUE(client->client_final(rfc_server_first).ok());
        return client;
    };
    EXPECT_EQ(after_proof()->verify_server_final("e=invalid-proof").error().message,
              "the server refused the proof: invalid-proof");
    // A signature the password does not produce: the server is not who it claims to be.
    EXPECT_EQ(after_proof()
                  ->verify_server_final("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
                  .error()
                  .message,
              "the server's signature does not match: it does not know the password (it is "
              "not the broker it claims to be)");
    EXPECT_EQ(after_proof()->verify_server_final("v=AAAA").error().message,
              "the server's signature does not match: it does not know the password (it is "
              "not the broker it claims to be)");
    EXPECT_EQ(after_proof()->verify_server_final("x=1").error().message,
              "SCRAM server-final message: expected v=<signature> or e=<error>");
    EXPECT_EQ(after_proof()->verify_server_final("v=***").error().message,
              "SCRAM server-final message: signature: base64 of 3 characters: not a multiple of 4");
}

// No error of the client, for any server message, carries the password.
TEST(Scram, ThePasswordIsInNoError) {
    const std::string password = "pencil";
    for (const char* server_first :
         {"r=x,s=QQ==,i=4096", "r=rOprNGfwEbeRWgbNEkqOx,s=QQ==,i=1", "pencil", "r=pencil"}) {
        ScramClient client(ScramHash::sha256, "user", password, "rOprNGfwEbeRWgbNEkqO");
        Result<std::string> answer = client.client_final(server_first);
        ASSERT_FALSE(answer.ok());
        EXPECT_EQ(answer.error().message.find(password + ","), std::string::npos);
        EXPECT_EQ(answer.error().message.find("=" + password), std::string::npos);
    }
}

}  // namespace
}  // namespace ballast::kafka::wire::scram_test
