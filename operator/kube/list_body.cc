#include "operator/kube/list_body.h"

#include <string>
#include <utility>

namespace petname::kube {

using Json = nlohmann::json;

Status ReadList(std::istream& in, const std::function<void(Json item)>& on_item, Json* rest) {
  // Depths as nlohmann's parser callback counts them: the root object's keys are at depth 1, the
  // elements of its arrays at depth 2.
  std::string top_key;
  bool in_items = false;  // inside the root's "items" array
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    using Event = Json::parse_event_t;
    if (depth == 1 && event == Event::key) {
      top_key = parsed.get<std::string>();
    } else if (depth == 1 && (event == Event::array_start || event == Event::array_end)) {
      in_items = event == Event::array_start && top_key == "items";
    } else if (depth == 2 && in_items &&
               (event == Event::object_end || event == Event::array_end || event == Event::value)) {
      on_item(std::move(parsed));
      return false;  // not kept in the items array
    }
    return true;
  };
  Json out = Json::parse(in, callback, /*allow_exceptions=*/false);
  if (out.is_discarded() || !out.is_object()) {
    return Status::InvalidArgument("the list answer is not one JSON object");
  }
  *rest = std::move(out);
  return Status::Ok();
}

}  // namespace petname::kube
