// RestClient: HTTP(S) access to one kube-apiserver over cpprestsdk, with the RestConfig's TLS
// (tls_material.h: verification on unless the config disables it explicitly) and credentials
// (client certificate, bearer token, token file re-read every minute so rotated tokens are
// picked up).
//
// Every request attempt first takes a token from the client-side QPS/burst bucket. Do() retries
// as retry_policy.h decides: 429 and 5xx with Retry-After for every verb after the server's
// delay, other 5xx and connection errors for idempotent verbs only, with jittered exponential
// backoff (100 ms doubling to 2 s), at most `retry.max_retries` times; the last answer is
// returned as is. Shutdown() cancels requests in flight (including watch streams) and makes
// later ones fail fast. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include <cpprest/http_client.h>
#include <nlohmann/json.hpp>

#include "common/status.h"
#include "operator/kube/rest_config.h"
#include "operator/kube/retry_policy.h"
#include "operator/kube/token_bucket.h"

namespace petname::kube {

struct ClientOptions {
  double qps = 20;  // <= 0 lifts the limit
  int burst = 30;
  RetryPolicy retry;
  std::chrono::seconds request_timeout{30};
  std::chrono::seconds watch_timeout{15 * 60};  // inactivity limit of a watch stream
  // Called after every request attempt with the verb (WATCH for streams), the API server's
  // HOST:PORT, the HTTP code (0: no answer) and the seconds until the answer's headers (for
  // metrics). Optional.
  std::function<void(const std::string& verb, const std::string& host, int code, double seconds)>
      on_request;
  // Called before each retry with the verb, HOST:PORT and the code that caused it (0: no
  // answer), for client-go's rest_client_request_retries_total. Optional.
  std::function<void(const std::string& verb, const std::string& host, int code)> on_retry;
};

struct Response {
  int code = 0;
  nlohmann::json body;   // parsed JSON, or null when the body was empty or not JSON
  bool retried = false;  // an earlier attempt was retried: a POST's effect may have landed
};

struct TlsMaterial;

class RestClient {
 public:
  // InvalidArgument when the CA, client certificate or key PEM cannot be parsed.
  static Status Create(RestConfig config, ClientOptions options, std::unique_ptr<RestClient>* out);

  // Sends `method` to `path` (with query string) and waits for the answer. `body` may be null.
  // `content_type` matters for PATCH (e.g. application/merge-patch+json). OK with resp->code set
  // when the server answered (its last answer when no retry is left); Unavailable when the last
  // attempt got no answer (or on shutdown).
  Status Do(const std::string& method, const std::string& path, const nlohmann::json* body,
            Response* resp, const std::string& content_type = "application/json");

  // GETs the object at `path` as its metadata only (PartialObjectMetadata: name, uid, labels,
  // ownerReferences, ...), as Do("GET") does: what the operator reads of a Secret, never its data.
  Status GetMetadata(const std::string& path, Response* resp);

  // GETs the list at `path` (a collection, with its query string), as Do("GET") does, handing
  // each element of the answer's "items" to on_item as soon as it is parsed (list_body.h), so
  // that no list is ever held whole. On a 200, resp->body is the rest of the list (kind,
  // metadata with resourceVersion and continue); otherwise the server's answer. Not retried once
  // an item was handed out (the connection broke mid-list): the caller lists again.
  Status List(const std::string& path, const std::function<void(nlohmann::json item)>& on_item,
              Response* resp);

  // GETs `path` as a stream and calls on_line for each line of a 200 answer until the server
  // ends it or on_line returns false. For other codes *code is set and the body is ignored.
  // No retries: the caller (the informer) decides. Unavailable on connection errors/shutdown.
  Status Stream(const std::string& path, const std::function<bool(const std::string&)>& on_line,
                int* code);

  void Shutdown();
  bool shut_down() const { return shut_down_.load(); }

 private:
  RestClient(RestConfig config, ClientOptions options, const std::shared_ptr<TlsMaterial>& tls);
  // How one attempt's answer is asked for (`accept`) and read: `read` fills resp->body once the
  // answer's headers arrived, and clears *retryable when a failure after that point must not be
  // retried.
  struct Reading {
    std::string accept = "application/json";
    std::function<void(web::http::http_response& r, Response* resp, bool* retryable)> read;
  };

  web::http::http_request NewRequest(const std::string& method, const std::string& path,
                                     const std::string& accept = "application/json");
  // Do() with `reading` for the answers.
  Status Send(const std::string& method, const std::string& path, const nlohmann::json* body,
              const std::string& content_type, const Reading& reading, Response* resp);
  std::string Token();

  const RestConfig config_;
  const ClientOptions options_;
  const std::string host_;  // HOST:PORT of config_.server, for on_request
  TokenBucket bucket_;
  std::unique_ptr<web::http::client::http_client> client_;
  std::unique_ptr<web::http::client::http_client> watch_client_;
  pplx::cancellation_token_source cancel_;
  std::atomic<bool> shut_down_{false};
  std::mutex token_mu_;
  std::string token_;
  std::chrono::steady_clock::time_point token_read_;
};

}  // namespace petname::kube
