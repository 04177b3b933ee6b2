#include "trainer/report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace petname::report {
namespace {

constexpr double kMarginLeft = 64;
constexpr double kMarginRight = 16;
constexpr double kMarginTop = 32;
constexpr double kMarginBottom = 48;

std::string Num(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", value);
  return buf;
}

std::string TickLabel(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", std::abs(value) < 1e-12 ? 0.0 : value);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

void DataRanges(const Chart& chart, Range* x, Range* y) {
  for (const Series& s : chart.series) {
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      x->lo = std::min(x->lo, s.x[i]);
      x->hi = std::max(x->hi, s.x[i]);
      y->lo = std::min(y->lo, s.y[i]);
      y->hi = std::max(y->hi, s.y[i]);
    }
  }
  if (x->lo > x->hi) *x = Range{0, 1};
  if (y->lo > y->hi) *y = Range{0, 1};
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) {
    const double pad = std::abs(lo) > 0 ? std::abs(lo) * 0.1 : 1.0;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(target, 1);
  if (!std::isfinite(raw) || raw <= 0) return {lo, hi};
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  const double first = std::floor(lo / step), last = std::ceil(hi / step);
  for (double k = first; k <= last; k += 1) ticks.push_back(k * step);
  return ticks;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderChart(const Chart& chart, double left, double top, double width, double height) {
  Range xr, yr;
  DataRanges(chart, &xr, &yr);
  const std::vector<double> xt = NiceTicks(xr.lo, xr.hi, 6);
  const std::vector<double> yt = NiceTicks(yr.lo, yr.hi, 5);
  const double x0 = left + kMarginLeft, x1 = left + width - kMarginRight;
  const double y0 = top + height - kMarginBottom, y1 = top + kMarginTop;
  const auto px = [&](double v) {
    return x0 + (v - xt.front()) / (xt.back() - xt.front()) * (x1 - x0);
  };
  const auto py = [&](double v) {
    return y0 - (v - yt.front()) / (yt.back() - yt.front()) * (y0 - y1);
  };

  std::string svg = "<g class=\"chart\">\n";
  svg += "<text x=\"" + Num((x0 + x1) / 2) + "\" y=\"" + Num(top + 20) +
         "\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">" +
         XmlEscape(chart.title) + "</text>\n";
  for (double t : yt) {
    svg += "<line x1=\"" + Num(x0) + "\" y1=\"" + Num(py(t)) + "\" x2=\"" + Num(x1) + "\" y2=\"" +
           Num(py(t)) + "\" stroke=\"#ddd\"/>\n";
    svg += "<text x=\"" + Num(x0 - 6) + "\" y=\"" + Num(py(t) + 4) +
           "\" text-anchor=\"end\" font-size=\"11\">" + TickLabel(t) + "</text>\n";
  }
  for (double t : xt) {
    svg += "<line x1=\"" + Num(px(t)) + "\" y1=\"" + Num(y0) + "\" x2=\"" + Num(px(t)) +
           "\" y2=\"" + Num(y0 + 5) + "\" stroke=\"#333\"/>\n";
    svg += "<text x=\"" + Num(px(t)) + "\" y=\"" + Num(y0 + 18) +
           "\" text-anchor=\"middle\" font-size=\"11\">" + TickLabel(t) + "</text>\n";
  }
  svg += "<rect x=\"" + Num(x0) + "\" y=\"" + Num(y1) + "\" width=\"" + Num(x1 - x0) +
         "\" height=\"" + Num(y0 - y1) + "\" fill=\"none\" stroke=\"#333\"/>\n";
  svg += "<text x=\"" + Num((x0 + x1) / 2) + "\" y=\"" + Num(top + height - 10) +
         "\" text-anchor=\"middle\" font-size=\"12\">" + XmlEscape(chart.x_label) + "</text>\n";
  svg += "<text transform=\"translate(" + Num(left + 16) + "," + Num((y0 + y1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" + XmlEscape(chart.y_label) +
         "</text>\n";

  double legend_y = y1 + 16;
  for (const Series& s : chart.series) {
    std::string points, markers;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      points += Num(px(s.x[i])) + "," + Num(py(s.y[i])) + " ";
      markers += "<circle cx=\"" + Num(px(s.x[i])) + "\" cy=\"" + Num(py(s.y[i])) +
                 "\" r=\"3\" fill=\"" + XmlEscape(s.color) + "\"/>\n";
    }
    svg += "<polyline class=\"series\" data-name=\"" + XmlEscape(s.name) + "\" points=\"" + points +
           "\" fill=\"none\" stroke=\"" + XmlEscape(s.color) + "\" stroke-width=\"2\"/>\n";
    svg += markers;
    svg += "<line x1=\"" + Num(x1 - 150) + "\" y1=\"" + Num(legend_y) + "\" x2=\"" + Num(x1 - 126) +
           "\" y2=\"" + Num(legend_y) + "\" stroke=\"" + XmlEscape(s.color) +
           "\" stroke-width=\"2\"/>\n";
    svg += "<text x=\"" + Num(x1 - 120) + "\" y=\"" + Num(legend_y + 4) + "\" font-size=\"12\">" +
           XmlEscape(s.name) + "</text>\n";
    legend_y += 18;
  }
  return svg + "</g>\n";
}

}  // namespace petname::report
