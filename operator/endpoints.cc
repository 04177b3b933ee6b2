#include "operator/endpoints.h"

#include <utility>

namespace petname {

Status ParseBindAddress(const std::string& bind, BindAddress* out) {
  *out = BindAddress{};
  if (bind == "0") {
    out->disabled = true;
    return Status::Ok();
  }
  Status invalid =
      Status::InvalidArgument("bind address '" + bind + "' is not HOST:PORT, :PORT or 0");
  const size_t colon = bind.rfind(':');
  if (colon == std::string::npos || colon + 1 == bind.size() || bind.size() - colon > 6 ||
      bind.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return invalid;
  }
  out->port = std::stoi(bind.substr(colon + 1));
  if (out->port > 65535) return invalid;
  out->host = colon == 0 ? "0.0.0.0" : bind.substr(0, colon);
  if (out->host.size() > 2 && out->host.front() == '[' && out->host.back() == ']') {
    out->host = out->host.substr(1, out->host.size() - 2);
  }
  return Status::Ok();
}

Status ServeEndpoint(const std::string& bind, std::map<std::string, HttpServer::Handler> routes,
                     std::unique_ptr<HttpServer>* out) {
  BindAddress address;
  PETNAME_RETURN_IF_ERROR(ParseBindAddress(bind, &address));
  if (address.disabled) return Status::Ok();
  return HttpServer::Start(address.host, address.port, std::move(routes), out);
}

}  // namespace petname
