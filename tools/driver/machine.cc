#include "tools/driver/machine.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/vfs.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace ballast::driver {

double process_cpu_s() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

MemoryUse memory_use() {
    MemoryUse use;
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) use.rss_bytes = std::stoull(line.substr(6)) * 1024;
        if (line.rfind("VmHWM:", 0) == 0) use.peak_rss_bytes = std::stoull(line.substr(6)) * 1024;
    }
    return use;
}

CpuTimes cpu_times() {
    CpuTimes times;
    std::ifstream stat("/proc/stat");
    std::string label;
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (stat >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal && label == "cpu") {
        times.busy = user + nice + system + irq + softirq;
        times.idle = idle + iowait;
        times.steal = steal;
    }
    return times;
}

double steal_percent(const CpuTimes& from, const CpuTimes& to) {
    if (to.total() <= from.total()) return 0;
    return 100.0 * static_cast<double>(to.steal - from.steal) / static_cast<double>(to.total() - from.total());
}

std::string cpu_model() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const size_t colon = line.find(':');
        if (colon == std::string::npos) break;
        const size_t start = line.find_first_not_of(' ', colon + 1);
        return start == std::string::npos ? "unknown" : line.substr(start);
    }
    return "unknown";
}

int cpu_count() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

double load_average_1m() {
    double load = -1;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &load) != 1) load = -1;
        std::fclose(f);
    }
    return load;
}

std::string filesystem_type(const std::string& path) {
    struct statfs info {};
    if (statfs(path.c_str(), &info) != 0) return "unknown";
    switch (static_cast<uint64_t>(info.f_type)) {
        case 0xEF53: return "ext4";
        case 0x58465342: return "xfs";
        case 0x01021994: return "tmpfs";
        case 0x794C7630: return "overlay";
        case 0x9123683E: return "btrfs";
        default: break;
    }
    std::ostringstream hex;
    hex << "0x" << std::hex << static_cast<uint64_t>(info.f_type);
    return hex.str();
}

double calibration_ms() {
    // A dependent chain of multiplies and shifts the compiler cannot fold or
    // vectorize: it measures a core's speed, not the memory's or the cache's.
    const auto start = std::chrono::steady_clock::now();
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (uint32_t i = 0; i < 200'000'000; i++) {
        x ^= x >> 29;
        x *= 0xBF58476D1CE4E5B9ull;
    }
    const auto end = std::chrono::steady_clock::now();
    volatile uint64_t sink = x;
    (void)sink;
    return std::chrono::duration<double, std::milli>(end - start).count();
}

}  // namespace ballast::driver
