// A minimal line chart rendered as an SVG fragment: linear axes with round tick values,
// one polyline (with point markers) per series, a legend and axis titles. Pure string
// building; no plotting library.
#pragma once

#include <string>
#include <vector>

namespace petname::report {

struct Series {
  std::string name;
  std::string color;      // any SVG colour, e.g. "#1f77b4"
  std::vector<double> x;  // same length as y; points with a non-finite x or y are skipped
  std::vector<double> y;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
};

// Round tick values covering [lo, hi] (about `target` of them, spaced 1, 2 or 5 × 10^k).
// A degenerate range is widened around its value.
std::vector<double> NiceTicks(double lo, double hi, int target);

// Renders `chart` as an SVG <g> element occupying a width × height box whose top-left
// corner is at (left, top) of the enclosing SVG.
std::string RenderChart(const Chart& chart, double left, double top, double width, double height);

// Escapes &, <, >, " and ' for use in SVG text and attributes.
std::string XmlEscape(const std::string& text);

}  // namespace petname::report
