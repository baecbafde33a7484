#pragma once

/// A small line chart as a self-contained SVG file: series over time, a
/// shaded band (AutoMQ's mean +- 10%), and vertical markers where actions
/// happened. No dependencies; any browser opens it.

#include <string>
#include <vector>

namespace ballast::tools {

struct ChartSeries {
    std::string name;
    std::string color;                            // CSS color
    std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

struct ChartMarker {
    double x = 0;
    std::string label;  // short: "5 moves"
};

struct ChartBand {
    double x_from = 0;
    double y_low = 0;
    double y_high = 0;
    std::string label;
};

struct Chart {
    std::string title;
    std::string x_label;
    std::string y_label;
    std::vector<ChartSeries> series;
    std::vector<ChartMarker> markers;
    std::vector<ChartBand> bands;
};

std::string render_svg(const Chart& chart);

}  // namespace ballast::tools
