/// What a broker sends inside SaslAuthenticate during SCRAM, as the client
/// reads it: the first byte picks the reader, the rest is the message.
///   0: the server-first message (`parse_scram_server_first`)
///   1: the server-final message, checked by a client that sent its proof for
///      RFC 7677's conversation (`verify_server_final`)
///   2: base64 as SCRAM's attributes carry it
/// Whatever the bytes: a value or an error that says what is wrong. The
/// PBKDF2 of a real client-final is left out: it costs milliseconds a run and
/// reads nothing the parse did not.

#include <memory>

#include "adapters/kafka/wire/scram.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;
using namespace ballast::kafka::wire;

namespace {

const ScramClient& after_proof() {
    static const std::unique_ptr<ScramClient> client = [] {
        auto made = std::make_unique<ScramClient>(ScramHash::sha256, "user", "pencil",
                                                  "rOprNGfwEbeRWgbNEkqO");
        const auto final_message = made->client_final(
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096");
        fuzz::expect(final_message.ok(), "RFC 7677's server-first message refused");
        return made;
    }();
    return *client;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const std::string_view text = fuzz::as_text(data + 1, size - 1);
    switch (data[0] % 3) {
        case 0: {
            const auto first = parse_scram_server_first(text);
            if (!first.ok()) {
                fuzz::expect(!first.error().message.empty(), "a server-first error says nothing");
                break;
            }
            fuzz::expect(!first->nonce.empty() && !first->salt.empty() && first->iterations > 0,
                         "an accepted server-first message without nonce, salt or iterations");
            break;
        }
        case 1: {
            const events::Status verified = after_proof().verify_server_final(text);
            if (!verified.ok()) {
                fuzz::expect(!verified.error().message.empty(), "a server-final error says nothing");
                // Only the server's own text may come back (an e= value).
                fuzz::expect(text.find("pencil") != std::string::npos ||
                                 verified.error().message.find("pencil") == std::string::npos,
                             "an error carries the password");
            }
            break;
        }
        default: {
            const auto decoded = base64_decode(text);
            if (!decoded.ok()) break;
            const auto again = base64_decode(base64_encode(*decoded));
            fuzz::expect(again.ok() && *again == *decoded, "base64 does not decode what it encodes");
            break;
        }
    }
    return 0;
}
