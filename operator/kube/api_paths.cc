#include "operator/kube/api_paths.h"

#include "operator/kube/object.h"

namespace petname::kube {

std::string ApiMessage(const Response& r) {
  std::string msg = StringAt(r.body, "/message");
  return "HTTP " + std::to_string(r.code) + (msg.empty() ? "" : ": " + msg);
}

std::string CorePath(const std::string& ns, const std::string& kind) {
  std::string plural = kind == "Pod" ? "pods" : kind == "Secret" ? "secrets" : "services";
  return ns.empty() ? "/api/v1/" + plural : "/api/v1/namespaces/" + ns + "/" + plural;
}

}  // namespace petname::kube
