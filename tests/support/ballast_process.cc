#include "tests/support/ballast_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

extern char** environ;

namespace ballast::testing {

namespace {

const char* ballast_binary() {
    const char* bin = std::getenv("BALLAST_BIN");
    if (bin == nullptr) {
        std::fprintf(stderr, "BALLAST_BIN is not set (meson sets it to the ballast binary)\n");
        std::abort();
    }
    return bin;
}

}  // namespace

BallastProcess::BallastProcess(const std::vector<std::string>& args, std::string log_path)
    : _log_path(std::move(log_path)) {
    std::vector<std::string> argv_text{ballast_binary()};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, _log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (posix_spawn(&_pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) _pid = -1;
    posix_spawn_file_actions_destroy(&actions);
}

BallastProcess::~BallastProcess() {
    if (_pid > 0) kill();
}

bool BallastProcess::running() {
    if (_pid <= 0) return false;
    int status = 0;
    if (::waitpid(_pid, &status, WNOHANG) == _pid) {
        _pid = -1;
        _exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return false;
    }
    return true;
}

int BallastProcess::terminate() {
    if (_pid <= 0) return -1;
    ::kill(_pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(_pid, &status, WNOHANG) == _pid) {
            _pid = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    kill();
    return -1;
}

void BallastProcess::kill() {
    if (_pid <= 0) return;
    ::kill(_pid, SIGKILL);
    int status = 0;
    ::waitpid(_pid, &status, 0);
    _pid = -1;
}

std::string BallastProcess::log() const {
    std::ifstream in(_log_path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool BallastProcess::wait_for_log(const std::string& text, int64_t timeout_ms, size_t count) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const std::string all = log();
        size_t found = 0;
        for (size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + 1)) found++;
        if (found >= count) return true;
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

std::vector<nlohmann::json> journal_events(const std::string& journal) {
    const std::string command = std::string(ballast_binary()) + " log show --json --journal '" + journal + "'";
    FILE* pipe = ::popen(command.c_str(), "r");
    std::vector<nlohmann::json> out;
    if (pipe == nullptr) return out;
    std::string text;
    char buffer[65536];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) text.append(buffer, got);
    ::pclose(pipe);
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) out.push_back(nlohmann::json::parse(text.substr(start, end - start)));
        start = end + 1;
    }
    return out;
}

}  // namespace ballast::testing
