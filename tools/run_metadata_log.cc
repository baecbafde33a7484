#include "tools/run_metadata_log.h"

namespace ballast::tools {

events::Result<MetadataSource> metadata_source(const events::Config& config, const std::string& controllers) {
    const std::string chosen = config.get_string("ballast.metadata.source");
    if (chosen == "poll") return MetadataSource::poll;
    if (chosen == "kraft") {
        if (controllers.empty()) {
            return events::make_error(events::ErrorCode::invalid_argument,
                                      "ballast.metadata.source=kraft reads KRaft's metadata log from the "
                                      "controllers: give them with --bootstrap-controller HOST:PORT[,...]");
        }
        return MetadataSource::kraft;
    }
    return controllers.empty() ? MetadataSource::poll : MetadataSource::kraft;
}

events::Result<ResumedLog> resume_from_journal(const store::Journal& journal) {
    ResumedLog resumed;
    resumed.whole = journal.first_seq() <= 1;
    kafka::metadata::LogTranslator translator;
    const events::Status walked =
        journal.scan(journal.first_seq(), journal.last_seq(), [&](uint64_t, std::span<const uint8_t> bytes) {
            const events::fb::Event& event = events::view(bytes);
            if (events::header(event).source != events::Source::kafka_metadata_log) return true;
            translator.apply_journaled(events::from_flatbuffer(event));
            resumed.events_read++;
            return true;
        });
    if (!walked) return walked.error();
    resumed.picture = translator.picture();
    return resumed;
}

}  // namespace ballast::tools
