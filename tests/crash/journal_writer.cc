/// The child of the crash test: appends to a journal with sync on, forever,
/// until it is killed. Once the journal is open (recovered) it prints "O";
/// before each append it prints "B first last" (the
/// batch it is about to write); after the append returns it prints "A last"
/// (acknowledged). The parent kills it with SIGKILL at random moments and
/// checks what survived.
///
/// usage: journal_writer JOURNAL_DIR SEED

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "store/journal.h"
#include "tests/support/sample_events.h"

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: journal_writer JOURNAL_DIR SEED\n");
        return 2;
    }
    ballast::store::JournalOptions options;
    options.sync = true;
    auto journal = ballast::store::Journal::open(argv[1], options);
    if (!journal.ok()) {
        std::fprintf(stderr, "journal_writer: %s\n", journal.error().to_string().c_str());
        return 1;
    }
    std::printf("O\n");
    std::fflush(stdout);
    std::mt19937_64 random(std::strtoull(argv[2], nullptr, 10));
    std::uniform_int_distribution<uint64_t> batch_size(1, 64);
    while (true) {
        const uint64_t first = (*journal)->last_seq() + 1;
        const uint64_t count = batch_size(random);
        std::vector<ballast::events::Event> batch = ballast::testing::sample_events(first, count);
        std::printf("B %" PRIu64 " %" PRIu64 "\n", first, first + count - 1);
        std::fflush(stdout);
        auto last = (*journal)->append(batch);
        if (!last.ok()) {
            std::fprintf(stderr, "journal_writer: %s\n", last.error().to_string().c_str());
            return 1;
        }
        std::printf("A %" PRIu64 "\n", *last);
        std::fflush(stdout);
    }
}
