#pragma once

/// What the configuration's tests share: a substring check and the message
/// of a failed set or load, compared as text where the wording is part of
/// the contract with the user.

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "events/config.h"

namespace ballast::events {

/// Substring check that prints both texts on failure (gmock's HasSubstr
/// without linking gmock).
inline ::testing::AssertionResult contains(const std::string& text, std::string_view part) {
    if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

/// The message of a failed set, or "ok" when it succeeded: tests compare text
/// exactly where the wording is part of the contract with the user.
inline std::string set_message(Config& config, std::string_view key, std::string_view value) {
    Status status = config.set(key, value);
    return status.ok() ? "ok" : status.error().message;
}

inline std::string load_message(Config& config, std::string_view text,
                                std::string_view origin = "f.properties") {
    Status status = config.load_properties_text(text, origin);
    return status.ok() ? "ok" : status.error().message;
}

}  // namespace ballast::events
