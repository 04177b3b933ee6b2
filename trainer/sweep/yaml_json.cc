#include "trainer/sweep/yaml_json.h"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace petname::sweep {
namespace {

using Json = nlohmann::json;

// A plain (unquoted) scalar as YAML 1.2's core schema types it.
Json PlainScalar(const std::string& text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  char* end = nullptr;
  errno = 0;
  const long long integer = std::strtoll(text.c_str(), &end, 10);
  if (errno == 0 && *end == '\0') return static_cast<int64_t>(integer);
  errno = 0;
  const double real = std::strtod(text.c_str(), &end);
  if (errno == 0 && *end == '\0' && text.find_first_of("xXnN") == std::string::npos) return real;
  return text;
}

// The values in `value`, itself included.
size_t CountValues(const Json& value) {
  size_t n = 1;
  if (value.is_structured()) {
    for (const Json& item : value) n += CountValues(item);
  }
  return n;
}

// Builds the JSON from the parser's events: the nodes still open form a stack, a finished one
// goes into the node below it (or becomes the root), and an anchored one is kept for its aliases.
class Builder : public YAML::EventHandler {
 public:
  explicit Builder(size_t alias_budget) : alias_budget_(alias_budget), budget_left_(alias_budget) {}

  Json TakeRoot() { return std::move(root_); }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override {
    if (AwaitsKey()) return SetKey("null");
    Finish(nullptr, anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (AwaitsKey()) throw YAML::ParserException(mark, "a mapping key must not be an alias");
    const auto it = anchored_.find(anchor);
    if (it == anchored_.end()) {
      throw YAML::ParserException(mark, "an alias inside the node it refers to (a cycle)");
    }
    const auto& [value, count] = it->second;
    if (count > budget_left_) {
      throw YAML::ParserException(
          mark, "aliases expand to more than " + std::to_string(alias_budget_) + " values");
    }
    budget_left_ -= count;
    Finish(value, YAML::NullAnchor);
  }

  void OnScalar(const YAML::Mark&, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (AwaitsKey()) {
      if (anchor != YAML::NullAnchor) anchored_[anchor] = {Json(value), 1};
      return SetKey(value);
    }
    // A quoted scalar has the non-specific tag "!": it stays text.
    Finish(tag == "!" ? Json(value) : PlainScalar(value), anchor);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(Json::array(), anchor, mark);
  }
  void OnSequenceEnd() override { Close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(Json::object(), anchor, mark);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct OpenNode {
    Json value;
    YAML::anchor_t anchor;
    bool has_key = false;  // a mapping: its next value's key is `key`
    std::string key;
  };

  bool AwaitsKey() const {
    return !open_.empty() && open_.back().value.is_object() && !open_.back().has_key;
  }

  void SetKey(std::string key) {
    open_.back().key = std::move(key);
    open_.back().has_key = true;
  }

  void Open(Json value, YAML::anchor_t anchor, const YAML::Mark& mark) {
    if (AwaitsKey()) throw YAML::ParserException(mark, "a mapping key must be a scalar");
    open_.push_back({std::move(value), anchor, false, ""});
  }

  void Close() {
    OpenNode node = std::move(open_.back());
    open_.pop_back();
    Finish(std::move(node.value), node.anchor);
  }

  // Places the finished `value` into the node below it, or makes it the root.
  void Finish(Json value, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) anchored_[anchor] = {value, CountValues(value)};
    if (open_.empty()) {
      root_ = std::move(value);
    } else if (open_.back().value.is_array()) {
      open_.back().value.push_back(std::move(value));
    } else {
      open_.back().value[open_.back().key] = std::move(value);
      open_.back().has_key = false;
    }
  }

  const size_t alias_budget_;
  size_t budget_left_;
  std::vector<OpenNode> open_;
  std::map<YAML::anchor_t, std::pair<Json, size_t>> anchored_;  // finished, with their counts
  Json root_;
};

}  // namespace

Status YamlToJson(const std::string& text, size_t alias_budget, nlohmann::json* out) {
  std::istringstream in(text);
  Builder builder(alias_budget);
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(builder);
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument("YAML error at line " + std::to_string(e.mark.line + 1) + ": " +
                                   e.msg);
  }
  *out = builder.TakeRoot();
  return Status::Ok();
}

}  // namespace petname::sweep
