/// KRaft's metadata log as a Fetch answer brings it: the first byte picks the reader (even:
/// `LogDecoder` over the rest, batches and the records in them; odd: the rest as one
/// framed metadata record, which a mutation rarely reaches behind a batch's CRC). Whatever
/// the bytes, the answer is records or an error naming what failed; every record decoded
/// encodes again into bytes that decode to the same record.

#include "adapters/kafka/metadata_log/log_decoder.h"
#include "adapters/kafka/metadata_log/metadata_records.h"
#include "tests/fuzz/fuzz_support.h"

using namespace ballast;
using namespace ballast::kafka::metadata_log;

namespace {

void expect_round_trip(const MetadataRecord& record) {
    Result<std::vector<uint8_t>> encoded = encode_record(record);
    fuzz::expect(encoded.ok(), "a decoded record does not encode: " +
                                   (encoded.ok() ? std::string() : encoded.error().message));
    Result<DecodedRecord> again = decode_record(*encoded);
    fuzz::expect(again.ok(), "an encoded record does not decode");
    fuzz::expect(std::holds_alternative<MetadataRecord>(*again) &&
                     std::get<MetadataRecord>(*again) == record,
                 "a record decodes to another value after encoding");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const fuzz::Aligned input(data + 1, size - 1);
    if (data[0] % 2 == 0) {
        LogDecoder decoder;
        std::vector<MetadataEntry> entries;
        Result<size_t> used = decoder.decode(input.bytes, entries);
        if (!used.ok()) {
            fuzz::expect(!used.error().message.empty(), "a decoder's error says nothing");
            return 0;
        }
        fuzz::expect(*used <= input.bytes.size(), "used more bytes than given");
        int64_t previous = -1;
        for (const MetadataEntry& entry : entries) {
            fuzz::expect(entry.offset > previous, "entries out of offset order");
            previous = entry.offset;
            expect_round_trip(entry.record);
        }
        return 0;
    }
    Result<DecodedRecord> decoded = decode_record(input.bytes);
    if (!decoded.ok()) {
        fuzz::expect(!decoded.error().message.empty(), "a decoder's error says nothing");
        return 0;
    }
    if (const auto* record = std::get_if<MetadataRecord>(&*decoded)) expect_round_trip(*record);
    return 0;
}
