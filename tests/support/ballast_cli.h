#pragma once

/// Running the `ballast` binary the build made (BALLAST_BIN, set by meson)
/// as an operator would, for the command-line tests.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace ballast::testing {

struct CliOutcome {
    int exit_code = -1;  // -1: not run, or killed by a signal
    std::string out;     // stdout and stderr together
};

/// Runs `ballast ARGS` through the shell, capturing both streams.
inline CliOutcome ballast(const std::string& args) {
    const char* bin = std::getenv("BALLAST_BIN");
    EXPECT_NE(bin, nullptr) << "set BALLAST_BIN to the ballast binary";
    CliOutcome run;
    if (!bin) return run;
    const std::string command = std::string(bin) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        ADD_FAILURE() << "popen failed: " << command;
        return run;
    }
    char buffer[4096];
    size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) run.out.append(buffer, n);
    const int status = pclose(pipe);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace ballast::testing
