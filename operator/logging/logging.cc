#include "operator/logging/logging.h"

#include <random>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "common/time_util.h"

namespace petname::logging {
namespace {

thread_local std::string t_job;
thread_local std::string t_reconcile_id;

class LineFormatter : public spdlog::formatter {
 public:
  explicit LineFormatter(Format format) : format_(format) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string text(msg.payload.data(), msg.payload.size());
    std::string level(spdlog::level::to_string_view(msg.level).data(),
                      spdlog::level::to_string_view(msg.level).size());
    std::string line;
    if (format_ == Format::kJson) {
      nlohmann::ordered_json j;
      j["ts"] = Rfc3339(msg.time, 3);
      j["level"] = level;
      j["msg"] = text;
      if (!t_job.empty()) j["job"] = t_job;
      if (!t_reconcile_id.empty()) j["reconcileID"] = t_reconcile_id;
      line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else {
      line = Rfc3339(msg.time, 3) + " " + level + " " + text;
      if (!t_job.empty()) line += " job=" + t_job;
      if (!t_reconcile_id.empty()) line += " reconcileID=" + t_reconcile_id;
    }
    line += "\n";
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(format_);
  }

 private:
  const Format format_;
};

}  // namespace

Status ParseFormat(const std::string& name, Format* out) {
  if (name == "text") {
    *out = Format::kText;
  } else if (name == "json") {
    *out = Format::kJson;
  } else {
    return Status::InvalidArgument("log format '" + name + "' is not text or json");
  }
  return Status::Ok();
}

std::unique_ptr<spdlog::formatter> MakeFormatter(Format format) {
  return std::make_unique<LineFormatter>(format);
}

void Install(Format format, const std::string& level) {
  auto logger = spdlog::stderr_logger_mt("operator");
  logger->set_formatter(MakeFormatter(format));
  logger->set_level(spdlog::level::from_str(level));
  spdlog::set_default_logger(logger);
}

ReconcileScope::Tags ReconcileScope::Current() { return {t_job, t_reconcile_id}; }

ReconcileScope::ReconcileScope(const std::string& key, const std::string& reconcile_id) {
  t_job = key;
  t_reconcile_id = reconcile_id;
}

ReconcileScope::~ReconcileScope() {
  t_job.clear();
  t_reconcile_id.clear();
}

std::string RandomUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[37];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace petname::logging
