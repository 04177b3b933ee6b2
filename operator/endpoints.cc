#include "operator/endpoints.h"

namespace petname {

Endpoint::~Endpoint() { Stop(); }

Status Endpoint::Start(const std::string& bind, std::map<std::string, Handler> routes) {
  if (bind == "0") return Status::Ok();
  size_t colon = bind.rfind(':');
  if (colon == std::string::npos || colon + 1 == bind.size() ||
      bind.find_first_not_of("0123456789", colon + 1) != std::string::npos) {
    return Status::InvalidArgument("bind address '" + bind + "' is not HOST:PORT, :PORT or 0");
  }
  std::string host = colon == 0 ? "0.0.0.0" : bind.substr(0, colon);
  routes_ = std::move(routes);
  try {
    listener_ = std::make_unique<web::http::experimental::listener::http_listener>(
        "http://" + host + ":" + bind.substr(colon + 1));
    listener_->support(web::http::methods::GET, [this](const web::http::http_request& req) {
      auto it = routes_.find(req.relative_uri().path());
      if (it == routes_.end()) {
        req.reply(web::http::status_codes::NotFound, "not found\n");
        return;
      }
      auto [code, body] = it->second();
      req.reply(code, body, "text/plain; version=0.0.4");
    });
    listener_->open().wait();
  } catch (const std::exception& e) {
    listener_.reset();
    return Status::Unavailable("cannot listen on " + bind + ": " + e.what());
  }
  return Status::Ok();
}

void Endpoint::Stop() {
  if (listener_ == nullptr) return;
  try {
    listener_->close().wait();
  } catch (const std::exception&) {
    // closing a listener that failed mid-way: nothing left to release
  }
  listener_.reset();
}

}  // namespace petname
