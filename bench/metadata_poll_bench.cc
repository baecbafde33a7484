/// The metadata poller's CPU at steady state on a million-partition cluster: the full poll
/// (Metadata of every topic, every poll) against the incremental one (DescribeCluster,
/// ListPartitionReassignments and a slice of the DescribeTopicPartitions sweep), nothing
/// changing. The cluster is a scripted one in this process (tests/kafka/support/
/// scripted_cluster.h: real loopback socket, its every-topic Metadata answer encoded once),
/// so the figure is the CPU time of the thread that polls (CLOCK_THREAD_CPUTIME_ID): the
/// poller's own work, decoding and diffing included, the scripted broker's left out. The
/// process's CPU time is printed too, broker included.
///
///   build/bench/metadata_poll_bench [--topics 10000] [--partitions 100] [--polls 60]
///
/// One JSON line a mode: cpu_ms_per_poll (mean over the polls after the first),
/// core_share_at_1s (the same as a share of one core, polling once a second), the partitions
/// the polls read, and wall ms per poll.

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapters/kafka/metadata/cluster_view.h"
#include "adapters/kafka/metadata/metadata_poller.h"
#include "tests/kafka/support/scripted_cluster.h"

namespace {

using namespace ballast;

double cpu_ms(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

void run(const char* mode, testing::ScriptedCluster& cluster, int64_t sweep_ms, int polls, int64_t partitions) {
    kafka::metadata::ClusterView view;
    kafka::metadata::MetadataPollerOptions options;
    options.bootstrap_servers = "127.0.0.1:" + std::to_string(cluster.port());
    options.client.bootstrap_servers = {{"127.0.0.1", cluster.port()}};
    options.poll_interval_ms = 1000;
    options.sweep_ms = sweep_ms;
    options.call_timeout_ms = 60'000;
    kafka::metadata::MetadataPoller poller(options, [] { return int64_t{0}; }, &view);
    size_t events = 0;
    if (!poller.attach([&](std::vector<events::Event> batch) { events += batch.size(); }).ok()) std::abort();
    const double first_start = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
    if (!poller.poll_once().ok()) std::abort();
    const double first_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - first_start;
    const size_t first_events = events;

    const int64_t served = cluster.partitions_served();
    const double thread_start = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
    const double process_start = cpu_ms(CLOCK_PROCESS_CPUTIME_ID);
    const auto wall_start = std::chrono::steady_clock::now();
    for (int i = 0; i < polls; i++) {
        if (events::Status s = poller.poll_once(); !s) {
            std::fprintf(stderr, "poll: %s\n", s.error().message.c_str());
            std::abort();
        }
    }
    const double thread_ms = cpu_ms(CLOCK_THREAD_CPUTIME_ID) - thread_start;
    const double process_ms = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - process_start;
    const double wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall_start).count();
    std::printf(
        "{\"mode\":\"%s\",\"partitions\":%lld,\"sweep_ms\":%lld,\"polls\":%d,\"first_poll_cpu_ms\":%.1f,"
        "\"first_poll_events\":%zu,\"events_at_rest\":%zu,\"cpu_ms_per_poll\":%.3f,\"core_share_at_1s\":%.5f,"
        "\"process_cpu_ms_per_poll\":%.3f,\"partitions_read_per_poll\":%.0f,\"wall_ms_per_poll\":%.2f}\n",
        mode, static_cast<long long>(partitions), static_cast<long long>(sweep_ms), polls, first_ms, first_events,
        events - first_events, thread_ms / polls, thread_ms / polls / 1000.0, process_ms / polls,
        static_cast<double>(cluster.partitions_served() - served) / polls, wall_ms / polls);
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    int32_t topics = 10'000;
    int32_t partitions = 100;
    int polls = 60;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--topics")) topics = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--partitions")) partitions = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--polls")) polls = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    // 30 brokers, RF 3: the shape of a large cluster; the answers' size is what counts.
    testing::ScriptedCluster cluster(testing::generated_model(30, topics, partitions, 3));
    const int64_t total = int64_t{topics} * partitions;
    // The old path: a few polls are enough, each reads everything.
    run("full", cluster, 0, std::max(3, polls / 10), total);
    // The new: one whole sweep (60 polls of a 60 s sweep at 1 s).
    run("incremental", cluster, 60'000, polls, total);
    return 0;
}
