#pragma once

/// A fresh directory under $TMPDIR (or /tmp) for one test, removed with its
/// contents when the test ends.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ballast::testing {

class TempDir {
public:
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/ballast-test-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) std::abort();
        _path = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(_path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return _path; }
    std::string operator/(const std::string& name) const { return _path + "/" + name; }

private:
    std::string _path;
};

}  // namespace ballast::testing
