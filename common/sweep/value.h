// The parameters a sweep may vary (spec.h) and the values they take: which fields of a job
// spec, of what kind, and a value's JSON and text forms. Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace petname::sweep {

using Json = nlohmann::json;

// The job-spec fields a sweep may vary, as dotted paths into a PetNameTrainingJob spec.
// Integer-valued: replicas, resources.gpusPerReplica, training.batchSizePerReplica,
// training.epochs, training.warmupSteps. Real: training.learningRate. Text: training.precision
// (fp32 | bf16), training.lrSchedule (constant | cosine).
const std::vector<std::string>& KnownParameters();

enum class ValueKind { kInteger, kReal, kText };
// The kind of a known parameter; kText for unknown names (callers check KnownParameters first).
ValueKind KindOf(const std::string& parameter);

// One value of a parameter. Integers and reals are held in `number`; text in `text`.
struct Value {
  double number = 0;
  std::string text;
  bool is_text = false;

  // JSON form: a number (integers without a fraction) or a string.
  Json ToJson() const;
  // Reads the JSON form back into *out; false (and *out untouched) for any other JSON.
  static bool FromJson(const Json& j, Value* out);
  // "0.004", "4096", "bf16": the shortest text that reads back as the same value.
  std::string ToString() const;
  bool operator==(const Value& other) const;
};

// Whether `x` is an integer that a double holds exactly (at most 2^53 in magnitude); larger
// magnitudes count as non-integers.
bool IsWholeNumber(double x);

}  // namespace petname::sweep
