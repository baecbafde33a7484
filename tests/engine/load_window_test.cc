/// A partition's load over its window of samples (actors/load_window.h):
/// the mean weighs every sample once, a percentile reads the slices, slices
/// older than the window drop out, a reconfigured window starts over, and
/// without a window the sample is the load.

#include <gtest/gtest.h>

#include "actors/load_window.h"

namespace ballast::actors {
namespace {

constexpr int64_t window_ms = 80'000;  // slices of 10 s
const uint32_t width_ms = LoadWindow::bucket_ms_of(window_ms);

struct Load {
    double in = 0;
    double out = 0;
};

/// Feeds `rates` one sample every `every_ms` from `start_ms`; the load after the last.
Load feed(LoadWindow& w, int32_t percentile, const std::vector<double>& rates, int64_t start_ms = 1'000'000,
          int64_t every_ms = 10'000) {
    Load load;
    for (size_t i = 0; i < rates.size(); i++) {
        w.take(width_ms, percentile, start_ms + static_cast<int64_t>(i) * every_ms, rates[i], 2 * rates[i], &load.in,
               &load.out);
    }
    return load;
}

TEST(LoadWindow, WithoutAWindowTheNewestSampleIsTheLoad) {
    LoadWindow w;
    feed(w, 0, {100, 200});
    double in = 0, out = 0;
    w.take(0, 0, 2'000'000, 12'345.678, 9.5, &in, &out);
    EXPECT_EQ(in, 12'345.678);
    EXPECT_EQ(out, 9.5);
    EXPECT_EQ(w.used(), 0u) << "a window switched off forgets its slices";
}

TEST(LoadWindow, TheMeanWeighsEverySampleOnce) {
    LoadWindow w;
    // Three samples in one slice, one in the next: (10 + 20 + 30 + 100) / 4.
    Load load;
    for (auto [t, r] : std::vector<std::pair<int64_t, double>>{{0, 10}, {3'000, 20}, {6'000, 30}, {10'000, 100}}) {
        w.take(width_ms, 0, 1'000'000 + t, r, 2 * r, &load.in, &load.out);
    }
    EXPECT_DOUBLE_EQ(load.in, 40);
    EXPECT_DOUBLE_EQ(load.out, 80);
    EXPECT_EQ(w.used(), 2u);
}

TEST(LoadWindow, TheMedianIgnoresABurstAndALullShorterThanHalfTheWindow) {
    LoadWindow burst;
    EXPECT_DOUBLE_EQ(feed(burst, 50, {100, 100, 100, 900, 900, 900, 100, 100}).in, 100);
    LoadWindow lull;
    EXPECT_DOUBLE_EQ(feed(lull, 50, {100, 100, 0, 0, 0, 100, 100, 100}).in, 100);
    // The mean only dilutes them.
    LoadWindow mean;
    EXPECT_DOUBLE_EQ(feed(mean, 0, {100, 100, 100, 900, 900, 900, 100, 100}).in, 400);
}

TEST(LoadWindow, AChangeLongerThanHalfTheWindowIsTheMedian) {
    LoadWindow w;
    EXPECT_DOUBLE_EQ(feed(w, 50, {100, 100, 100, 300, 300, 300, 300, 300}).in, 300);
}

TEST(LoadWindow, MaxIsTheBusiestSliceAndPercentilesTakeTheNearestRank) {
    LoadWindow w;
    const std::vector<double> rates = {50, 10, 80, 20, 70, 30, 60, 40};
    EXPECT_DOUBLE_EQ(feed(w, 100, rates).in, 80);
    LoadWindow p75;
    EXPECT_DOUBLE_EQ(feed(p75, 75, rates).in, 60) << "6th of 8 sorted";
    LoadWindow p90;
    EXPECT_DOUBLE_EQ(feed(p90, 90, rates).in, 80) << "ceil(7.2) = 8th of 8";
}

TEST(LoadWindow, SlicesOlderThanTheWindowDropOut) {
    LoadWindow w;
    feed(w, 0, {1'000, 1'000});
    // A sample 200 s later: both old slices are more than 8 slices back.
    const Load load = feed(w, 0, {10}, 1'000'000 + 210'000);
    EXPECT_DOUBLE_EQ(load.in, 10);
    // Eight slices exactly: the oldest of them stays in.
    LoadWindow edge;
    feed(edge, 0, {80});
    EXPECT_DOUBLE_EQ(feed(edge, 0, {0}, 1'000'000 + 70'000).in, 40);
    EXPECT_DOUBLE_EQ(feed(edge, 0, {0}, 1'000'000 + 80'000).in, 0);
}

TEST(LoadWindow, MoreSlicesThanItHoldsKeepTheNewest) {
    LoadWindow w;
    std::vector<double> rates;
    for (int i = 0; i < 20; i++) rates.push_back(i);
    // The last eight samples, 12-19: mean 15.5.
    EXPECT_DOUBLE_EQ(feed(w, 0, rates).in, 15.5);
    EXPECT_EQ(w.used(), LoadWindow::buckets);
}

TEST(LoadWindow, AReconfiguredWindowStartsOver) {
    LoadWindow w;
    feed(w, 0, {1'000, 1'000, 1'000});
    double in = 0, out = 0;
    w.take(LoadWindow::bucket_ms_of(160'000), 0, 1'000'000 + 30'000, 10, 10, &in, &out);
    EXPECT_DOUBLE_EQ(in, 10);
    EXPECT_EQ(w.used(), 1u);
}

}  // namespace
}  // namespace ballast::actors
