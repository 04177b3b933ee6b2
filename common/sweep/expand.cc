#include "common/sweep/expand.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace petname::sweep {
namespace {

// Range sizes beyond this are only ever compared against kMaxGridTrials.
constexpr double kMaxRangeSize = 1e15;
constexpr int kDefaultRandomTrials = 10;

// min + i * step without the last-digit noise of binary arithmetic (0.001 + 3 * 0.001 is
// 0.004, not 0.0040000000000000001), kept inside [min, max], rounded for integer parameters.
double GridPoint(const Parameter& p, int64_t i) {
  double x = p.min + static_cast<double>(i) * p.step;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.15g", x);
  x = std::min(std::strtod(buf, nullptr), p.max);
  if (KindOf(p.name) == ValueKind::kInteger) x = std::round(x);
  return x;
}

Value Number(double x) {
  Value v;
  v.number = x;
  return v;
}

// A uniform double in [0, 1) from the top 53 bits (std distributions differ between libraries).
double Uniform(std::mt19937_64* gen) { return static_cast<double>((*gen)() >> 11) * 0x1.0p-53; }

// One random draw for `p` (see ExpandTrials).
Value Draw(const Parameter& p, std::mt19937_64* gen) {
  double u = Uniform(gen);
  if (!p.is_range) {
    auto i = static_cast<size_t>(u * static_cast<double>(p.values.size()));
    return p.values[std::min(i, p.values.size() - 1)];
  }
  bool integer = KindOf(p.name) == ValueKind::kInteger;
  Parameter grid = p;
  if (grid.step <= 0 && integer) grid.step = 1;
  if (p.scale == Scale::kLinear && grid.step > 0) {
    int64_t n = GridSize(grid);
    auto i = static_cast<int64_t>(u * static_cast<double>(n));
    return Number(GridPoint(grid, std::min(i, n - 1)));
  }
  double x = p.scale == Scale::kLog
                 ? std::exp(std::log(p.min) + u * (std::log(p.max) - std::log(p.min)))
                 : p.min + u * (p.max - p.min);
  if (grid.step > 0) {
    auto i = static_cast<int64_t>(std::llround((x - p.min) / grid.step));
    x = GridPoint(grid, std::min(i, GridSize(grid) - 1));
  }
  return Number(std::clamp(x, p.min, p.max));
}

Status CheckExpandable(const SweepSpec& spec) {
  if (spec.parameters.empty())
    return Status::InvalidArgument("spec.parameters: must be a non-empty list");
  double grid = 1;
  for (const Parameter& p : spec.parameters) {
    if (!p.is_range && p.values.empty()) {
      return Status::InvalidArgument("parameter " + p.name + ": no values");
    }
    if (p.is_range && (p.min > p.max || p.step < 0)) {
      return Status::InvalidArgument("parameter " + p.name + ": bad range");
    }
    if (spec.algorithm == Algorithm::kGrid && p.is_range && p.step <= 0) {
      return Status::InvalidArgument("parameter " + p.name + ": a grid range needs a step");
    }
    if (spec.algorithm == Algorithm::kRandom && p.scale == Scale::kLog && p.min <= 0) {
      return Status::InvalidArgument("parameter " + p.name + ": scale log needs min > 0");
    }
    grid *= static_cast<double>(GridSize(p));
  }
  if (spec.algorithm == Algorithm::kGrid && grid > static_cast<double>(kMaxGridTrials)) {
    return Status::InvalidArgument("spec.parameters: the grid is too large");
  }
  return Status::Ok();
}

}  // namespace

int64_t GridSize(const Parameter& p) {
  if (!p.is_range) return static_cast<int64_t>(p.values.size());
  if (p.step <= 0) return 0;
  double r = (p.max - p.min) / p.step;
  r = std::floor(r + 1e-9);
  return static_cast<int64_t>(std::min(r, kMaxRangeSize)) + 1;
}

std::vector<Value> GridValues(const Parameter& p) {
  if (!p.is_range) return p.values;
  std::vector<Value> out;
  int64_t n = GridSize(p);
  for (int64_t i = 0; i < n; ++i) out.push_back(Number(GridPoint(p, i)));
  return out;
}

Status ExpandTrials(const SweepSpec& spec, std::vector<Assignment>* out) {
  PETNAME_RETURN_IF_ERROR(CheckExpandable(spec));
  out->clear();
  if (spec.algorithm == Algorithm::kRandom) {
    int n = spec.max_trial_count > 0 ? spec.max_trial_count : kDefaultRandomTrials;
    std::mt19937_64 gen(static_cast<uint64_t>(spec.seed));
    for (int t = 0; t < n; ++t) {
      Assignment a;
      for (const Parameter& p : spec.parameters) a.emplace_back(p.name, Draw(p, &gen));
      out->push_back(std::move(a));
    }
    return Status::Ok();
  }
  std::vector<std::vector<Value>> values;
  int64_t total = 1;
  for (const Parameter& p : spec.parameters) {
    values.push_back(GridValues(p));
    total *= static_cast<int64_t>(values.back().size());
  }
  if (spec.max_trial_count > 0) total = std::min<int64_t>(total, spec.max_trial_count);
  for (int64_t t = 0; t < total; ++t) {
    Assignment a(spec.parameters.size());
    int64_t rest = t;
    for (size_t k = spec.parameters.size(); k-- > 0;) {
      auto size = static_cast<int64_t>(values[k].size());
      a[k] = {spec.parameters[k].name, values[k][static_cast<size_t>(rest % size)]};
      rest /= size;
    }
    out->push_back(std::move(a));
  }
  return Status::Ok();
}

std::string TrialName(const std::string& sweep_name, int index) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%03d", index);
  return sweep_name + "-" + buf;
}

Json ApplyAssignment(const Json& job_template, const Assignment& assignment) {
  Json job = job_template.is_object() ? job_template : Json::object();
  for (const auto& [path, value] : assignment) {
    Json* node = &job;
    size_t start = 0;
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', start)) {
      Json& child = (*node)[path.substr(start, dot - start)];
      if (!child.is_object()) child = Json::object();
      node = &child;
      start = dot + 1;
    }
    (*node)[path.substr(start)] = value.ToJson();
  }
  return job;
}

std::string DescribeAssignment(const Assignment& assignment) {
  std::string out;
  for (const auto& [name, value] : assignment) {
    if (!out.empty()) out += " ";
    out += name + "=" + value.ToString();
  }
  return out;
}

}  // namespace petname::sweep
