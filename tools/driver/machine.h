#pragma once

/// What the process and the machine it runs on are like: memory use, the CPU,
/// the time the hypervisor took from it, the file system under a path. A
/// figure from a storm or a benchmark is only comparable with another taken on
/// a machine alike and as quiet, so the programs that measure record these
/// beside their figures.

#include <cstdint>
#include <string>

namespace ballast::driver {

/// This process's resident memory now and its high-water mark (VmRSS, VmHWM).
struct MemoryUse {
    uint64_t rss_bytes = 0;
    uint64_t peak_rss_bytes = 0;
};
MemoryUse memory_use();

/// CPU time this process used so far, user and system, in seconds.
double process_cpu_s();

/// The machine's CPU time so far, summed over its CPUs, in clock ticks
/// (/proc/stat). `steal` is time a virtual CPU was ready but the hypervisor
/// ran something else: on a shared host it is the neighbours' share.
struct CpuTimes {
    uint64_t busy = 0;   // user, nice, system, irq, softirq
    uint64_t idle = 0;   // idle, iowait
    uint64_t steal = 0;
    uint64_t total() const { return busy + idle + steal; }
};
CpuTimes cpu_times();

/// Percent of the CPU time between two readings that was stolen; 0 when no
/// time passed.
double steal_percent(const CpuTimes& from, const CpuTimes& to);

/// "model name" of the first CPU in /proc/cpuinfo, or "unknown".
std::string cpu_model();

/// CPUs this process may run on (its affinity mask).
int cpu_count();

/// The 1-minute load average, or -1 when it cannot be read.
double load_average_1m();

/// The type of the file system holding `path` ("ext4", "xfs", "tmpfs",
/// "overlay", "btrfs", or its magic number in hex).
std::string filesystem_type(const std::string& path);

/// Milliseconds one thread takes for a fixed piece of integer work (a chain
/// of about a billion cycles: ~0.3 s on a 3 GHz core with nothing beside it):
/// a rough measure of how fast this machine runs now, to tell a slow machine
/// from a slow change.
double calibration_ms();

}  // namespace ballast::driver
