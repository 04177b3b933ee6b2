// ReadList: a Kubernetes list answer ({"kind": ..., "metadata": {...}, "items": [...]}) parsed as
// it is read, each element of "items" handed out as soon as it is complete, so that a list is
// never held whole in memory: at any time one item plus the rest of the answer (kind, metadata)
// is. The informers list through it (rest_client.h, RestClient::List). Pure: any std::istream.
#pragma once

#include <functional>
#include <istream>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace petname::kube {

// Reads `in` to its end. OK when it holds one JSON object: every element of its top-level
// "items" array went to on_item, in order, and *rest holds the object without them ("items" an
// empty array when it was one). InvalidArgument when `in` is not one JSON object (the items handed
// out before the fault stay handed out). Exceptions thrown by `in`'s buffer propagate.
Status ReadList(std::istream& in, const std::function<void(nlohmann::json item)>& on_item,
                nlohmann::json* rest);

}  // namespace petname::kube
