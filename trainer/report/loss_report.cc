#include "trainer/report/loss_report.h"

#include <filesystem>
#include <map>

#include "common/file_util.h"
#include "trainer/report/svg_chart.h"

namespace petname::report {
namespace {

constexpr double kWidth = 1000;
constexpr double kChartHeight = 380;
constexpr char kTrainColor[] = "#1f77b4";
constexpr char kValidationColor[] = "#ff7f0e";

}  // namespace

std::vector<metrics::EpochRecord> LatestPerEpoch(const std::vector<metrics::EpochRecord>& records) {
  std::map<int, metrics::EpochRecord> by_epoch;
  for (const metrics::EpochRecord& record : records) by_epoch[record.epoch] = record;
  std::vector<metrics::EpochRecord> out;
  out.reserve(by_epoch.size());
  for (const auto& [epoch, record] : by_epoch) out.push_back(record);
  return out;
}

std::string RenderLossReport(const std::vector<metrics::EpochRecord>& records,
                             const std::string& title) {
  Series train{"train loss", kTrainColor, {}, {}};
  Series validation{"validation loss", kValidationColor, {}, {}};
  Series validation_by_time{"validation loss", kValidationColor, {}, {}};
  for (const metrics::EpochRecord& r : records) {
    train.x.push_back(r.epoch);
    train.y.push_back(r.train_loss);
    validation.x.push_back(r.epoch);
    validation.y.push_back(r.validation_loss);
    validation_by_time.x.push_back(r.elapsed_seconds);
    validation_by_time.y.push_back(r.validation_loss);
  }
  const Chart by_epoch{"Loss by epoch", "epoch", "loss", {train, validation}};
  const Chart by_time{
      "Time to accuracy", "training wall time (s)", "validation loss", {validation_by_time}};

  const double height = 2 * kChartHeight + 40;
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(int(kWidth)) +
         "\" height=\"" + std::to_string(int(height)) + "\" viewBox=\"0 0 " +
         std::to_string(int(kWidth)) + " " + std::to_string(int(height)) +
         "\" font-family=\"sans-serif\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + std::to_string(int(kWidth / 2)) +
         "\" y=\"24\" text-anchor=\"middle\" font-size=\"18\">" + XmlEscape(title) + "</text>\n";
  svg += RenderChart(by_epoch, 0, 40, kWidth, kChartHeight);
  svg += RenderChart(by_time, 0, 40 + kChartHeight, kWidth, kChartHeight);
  return svg + "</svg>\n";
}

Status WriteLossReport(const std::string& checkpoint_dir, const std::string& output_path) {
  const std::string log_path =
      (std::filesystem::path(checkpoint_dir) / metrics::kMetricsLogName).string();
  std::vector<metrics::EpochRecord> records;
  PETNAME_RETURN_IF_ERROR(metrics::ReadMetricsLog(log_path, &records));
  records = LatestPerEpoch(records);
  if (records.empty()) return Status::FailedPrecondition(log_path + " holds no epochs yet");
  const metrics::EpochRecord& last = records.back();
  const std::string title = "petname: " + std::to_string(records.size()) + " epochs, " +
                            std::to_string(last.world_size) + " rank(s)";
  return WriteFileAtomically(output_path, RenderLossReport(records, title));
}

}  // namespace petname::report
