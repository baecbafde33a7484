#include "tools/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ballast::tools {

namespace {

constexpr double width = 900;
constexpr double height = 480;
constexpr double left = 70;
constexpr double right = 170;  // room for the legend
constexpr double top = 50;
constexpr double bottom = 60;

std::string escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string num(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}

/// Axis labels: "120", "2.5".
std::string label(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

/// A "nice" step for about `ticks` intervals over `range` (1, 2 or 5 x 10^k).
double nice_step(double range, int ticks) {
    if (range <= 0) return 1;
    const double raw = range / ticks;
    const double power = std::pow(10, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (raw <= m * power) return m * power;
    }
    return 10 * power;
}

}  // namespace

std::string render_svg(const Chart& chart) {
    double x_max = 0;
    double y_max = 0;
    for (const ChartSeries& s : chart.series) {
        for (const auto& [x, y] : s.points) {
            x_max = std::max(x_max, x);
            y_max = std::max(y_max, y);
        }
    }
    for (const ChartBand& b : chart.bands) y_max = std::max(y_max, b.y_high);
    if (x_max <= 0) x_max = 1;
    const double y_step = nice_step(y_max * 1.1, 6);
    y_max = std::ceil(y_max * 1.1 / y_step) * y_step;
    if (y_max <= 0) y_max = 1;
    const double x_step = nice_step(x_max, 8);
    const double plot_w = width - left - right;
    const double plot_h = height - top - bottom;
    auto px = [&](double x) { return left + x / x_max * plot_w; };
    auto py = [&](double y) { return top + plot_h - y / y_max * plot_h; };

    std::string out;
    out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(width) + "\" height=\"" + num(height) +
           "\" viewBox=\"0 0 " + num(width) + " " + num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    out += "<text x=\"" + num(width / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" font-weight=\"bold\">" +
           escape(chart.title) + "</text>\n";
    // Bands under everything else.
    for (const ChartBand& b : chart.bands) {
        out += "<rect x=\"" + num(px(b.x_from)) + "\" y=\"" + num(py(b.y_high)) + "\" width=\"" +
               num(px(x_max) - px(b.x_from)) + "\" height=\"" + num(py(b.y_low) - py(b.y_high)) +
               "\" fill=\"#2e7d32\" fill-opacity=\"0.12\"/>\n";
        out += "<text x=\"" + num(px(x_max) - 4) + "\" y=\"" + num(py(b.y_high) - 4) +
               "\" text-anchor=\"end\" fill=\"#2e7d32\">" + escape(b.label) + "</text>\n";
    }
    // Grid and axes.
    for (double y = 0; y <= y_max + 1e-9; y += y_step) {
        out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(py(y)) + "\" y2=\"" +
               num(py(y)) + "\" stroke=\"#e0e0e0\"/>\n";
        out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(py(y) + 4) + "\" text-anchor=\"end\">" + label(y) +
               "</text>\n";
    }
    for (double x = 0; x <= x_max + 1e-9; x += x_step) {
        out += "<text x=\"" + num(px(x)) + "\" y=\"" + num(top + plot_h + 18) + "\" text-anchor=\"middle\">" +
               label(x) + "</text>\n";
    }
    out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left) + "\" y1=\"" + num(top) + "\" y2=\"" +
           num(top + plot_h) + "\" stroke=\"black\"/>\n";
    out += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + plot_w) + "\" y1=\"" + num(top + plot_h) + "\" y2=\"" +
           num(top + plot_h) + "\" stroke=\"black\"/>\n";
    out += "<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(height - 15) + "\" text-anchor=\"middle\">" +
           escape(chart.x_label) + "</text>\n";
    out += "<text transform=\"translate(18," + num(top + plot_h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
           escape(chart.y_label) + "</text>\n";
    // Markers: where actions happened.
    for (const ChartMarker& m : chart.markers) {
        out += "<line x1=\"" + num(px(m.x)) + "\" x2=\"" + num(px(m.x)) + "\" y1=\"" + num(top) + "\" y2=\"" +
               num(top + plot_h) + "\" stroke=\"#9e9e9e\" stroke-dasharray=\"4 3\"/>\n";
        out += "<text x=\"" + num(px(m.x) + 3) + "\" y=\"" + num(top + 12) + "\" fill=\"#616161\">" + escape(m.label) +
               "</text>\n";
    }
    // Series and legend.
    double legend_y = top + 10;
    for (const ChartSeries& s : chart.series) {
        std::string path;
        for (const auto& [x, y] : s.points) path += (path.empty() ? "M" : " L") + num(px(x)) + " " + num(py(y));
        out += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"2\"/>\n";
        out += "<line x1=\"" + num(width - right + 20) + "\" x2=\"" + num(width - right + 45) + "\" y1=\"" +
               num(legend_y) + "\" y2=\"" + num(legend_y) + "\" stroke=\"" + s.color + "\" stroke-width=\"3\"/>\n";
        out += "<text x=\"" + num(width - right + 52) + "\" y=\"" + num(legend_y + 4) + "\">" + escape(s.name) +
               "</text>\n";
        legend_y += 20;
    }
    out += "</svg>\n";
    return out;
}

}  // namespace ballast::tools
