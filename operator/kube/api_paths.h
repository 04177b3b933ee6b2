// The paths and messages of the API server's core resources, shared by every controller.
#pragma once

#include <string>

#include "operator/kube/rest_client.h"

namespace petname::kube {

// "HTTP 422: <the server's message>" for logs and events.
std::string ApiMessage(const Response& response);
// The collection path of `kind` ("Pod", "Service", "Secret") in namespace `ns`.
std::string CorePath(const std::string& ns, const std::string& kind);

}  // namespace petname::kube
