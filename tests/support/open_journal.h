#pragma once

/// Opens a real RocksDB journal for a test; a failure to open fails the test
/// (naming why) and gives nullptr. And the other way round: a damaged
/// journal whose open must fail, naming the damage.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "store/journal.h"

namespace ballast::testing {

inline std::unique_ptr<store::Journal> open_journal(const std::string& path,
                                                   store::JournalOptions options = {}) {
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, options);
    EXPECT_TRUE(journal.ok()) << journal.error().to_string();
    return journal.ok() ? std::move(*journal) : nullptr;
}

/// Opens and expects a corruption error that says `what`.
inline void expect_open_fails(const std::string& path, const std::string& what) {
    events::Result<std::unique_ptr<store::Journal>> journal = store::Journal::open(path, {});
    ASSERT_FALSE(journal.ok()) << "opened a damaged journal";
    EXPECT_EQ(journal.error().code, events::ErrorCode::corruption);
    EXPECT_NE(journal.error().message.find(what), std::string::npos)
        << "expected '" << what << "' in: " << journal.error().message;
}

}  // namespace ballast::testing
