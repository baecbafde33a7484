#pragma once

/// Opens a real RocksDB journal for a test; a failure to open fails the test
/// (naming why) and gives nullptr.

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

}  // namespace ballast::testing
