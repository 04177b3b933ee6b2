#include "operator/kube/rest_client.h"

#include <array>
#include <istream>
#include <optional>
#include <random>
#include <stdexcept>
#include <streambuf>
#include <thread>

#include <cpprest/containerstream.h>
#include <spdlog/spdlog.h>

#include "common/backoff.h"
#include "common/file_util.h"
#include "operator/kube/list_body.h"
#include "operator/kube/retry_policy.h"
#include "operator/kube/time.h"
#include "operator/kube/tls_material.h"

namespace petname::kube {
namespace {

using web::http::client::http_client;

// HOST:PORT of a server URL (HOST alone when the URL names no port), as client-go's host label.
std::string HostPort(const std::string& server) {
  const web::uri uri(server);
  return uri.port() > 0 ? uri.host() + ":" + std::to_string(uri.port()) : uri.host();
}

void SleepUnlessShutDown(std::chrono::milliseconds d, const std::atomic<bool>& shut_down) {
  auto until = std::chrono::steady_clock::now() + d;
  while (!shut_down.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(
        std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
  }
}

// Reads a whole answer into resp->body (null when it is empty or not JSON).
void ReadWhole(web::http::http_response& r, Response* resp, bool* /*retryable*/) {
  std::string text = r.extract_utf8string(true).get();
  resp->body = nlohmann::json::parse(text, nullptr, false);
  if (resp->body.is_discarded()) resp->body = nullptr;
}

// A std::streambuf over an answer's body, pulled 64 KiB at a time as it arrives. Failures of the
// connection are thrown by underflow().
class BodyBuffer : public std::streambuf {
 public:
  explicit BodyBuffer(const concurrency::streams::istream& body) : body_(body) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const size_t n = body_.streambuf().getn(chunk_.data(), chunk_.size()).get();
    if (n == 0) return traits_type::eof();
    char* begin = reinterpret_cast<char*>(chunk_.data());
    setg(begin, begin, begin + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  concurrency::streams::istream body_;
  std::array<uint8_t, size_t{64} * 1024> chunk_{};
};

// Reports one request attempt to ClientOptions::on_request when it goes out of scope: with the
// HTTP code once Answered(), else with code 0.
class RequestTimer {
 public:
  using Hook = std::function<void(const std::string&, const std::string&, int, double)>;
  RequestTimer(const Hook& hook, std::string verb, const std::string& host)
      : hook_(hook),
        verb_(std::move(verb)),
        host_(host),
        start_(std::chrono::steady_clock::now()) {}
  ~RequestTimer() {
    if (hook_ && !reported_) hook_(verb_, host_, 0, Seconds());
  }
  RequestTimer(const RequestTimer&) = delete;
  RequestTimer& operator=(const RequestTimer&) = delete;
  void Answered(int code) {
    if (hook_) hook_(verb_, host_, code, Seconds());
    reported_ = true;
  }

 private:
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  const Hook& hook_;
  const std::string verb_;
  const std::string& host_;
  const std::chrono::steady_clock::time_point start_;
  bool reported_ = false;
};

}  // namespace

Status RestClient::Create(RestConfig config, ClientOptions options,
                          std::unique_ptr<RestClient>* out) {
  std::shared_ptr<TlsMaterial> tls;
  Status s = ParseTls(config, &tls);
  if (!s.ok()) return Status::InvalidArgument(config.server + ": " + s.message());
  out->reset(new RestClient(std::move(config), std::move(options), tls));
  return Status::Ok();
}

RestClient::RestClient(RestConfig config, ClientOptions options,
                       const std::shared_ptr<TlsMaterial>& tls)
    : config_(std::move(config)),
      options_(std::move(options)),
      host_(HostPort(config_.server)),
      bucket_(options_.qps, options_.burst),
      client_(std::make_unique<http_client>(
          config_.server, HttpClientConfig(config_, options_.request_timeout, tls))),
      watch_client_(std::make_unique<http_client>(
          config_.server, HttpClientConfig(config_, options_.watch_timeout, tls))),
      token_(config_.token),
      token_read_(std::chrono::steady_clock::now()) {}

std::string RestClient::Token() {
  std::lock_guard<std::mutex> lock(token_mu_);
  auto now = std::chrono::steady_clock::now();
  if (!config_.token_file.empty() &&
      (token_.empty() || now - token_read_ > std::chrono::minutes(1))) {
    std::string fresh;
    if (ReadFile(config_.token_file, &fresh).ok()) {
      while (!fresh.empty() && (fresh.back() == '\n' || fresh.back() == '\r')) fresh.pop_back();
      token_ = fresh;
    }
    token_read_ = now;
  }
  return token_;
}

web::http::http_request RestClient::NewRequest(const std::string& method, const std::string& path,
                                               const std::string& accept) {
  web::http::http_request req(method);
  req.set_request_uri(path);
  req.headers().add("Accept", accept);
  req.headers().add("User-Agent", "petname-operator/" PETNAME_VERSION);
  std::string token = Token();
  if (!token.empty()) req.headers().add("Authorization", "Bearer " + token);
  return req;
}

Status RestClient::Do(const std::string& method, const std::string& path,
                      const nlohmann::json* body, Response* resp, const std::string& content_type) {
  return Send(method, path, body, content_type, Reading{"application/json", ReadWhole}, resp);
}

Status RestClient::GetMetadata(const std::string& path, Response* resp) {
  return Send("GET", path, nullptr, "application/json",
              Reading{"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", ReadWhole},
              resp);
}

Status RestClient::List(const std::string& path,
                        const std::function<void(nlohmann::json item)>& on_item, Response* resp) {
  Reading reading;
  reading.read = [&](web::http::http_response& r, Response* out, bool* retryable) {
    if (r.status_code() != 200) return ReadWhole(r, out, retryable);
    BodyBuffer buffer(r.body());
    std::istream in(&buffer);
    Status s = ReadList(
        in,
        [&](nlohmann::json item) {
          // Items went out: a retry would hand them out again, so a failure is the caller's.
          *retryable = false;
          on_item(std::move(item));
        },
        &out->body);
    if (!s.ok()) throw std::runtime_error(s.message());
  };
  return Send("GET", path, nullptr, "application/json", reading, resp);
}

Status RestClient::Send(const std::string& method, const std::string& path,
                        const nlohmann::json* body, const std::string& content_type,
                        const Reading& reading, Response* resp) {
  Backoff backoff(std::chrono::milliseconds(100), std::chrono::seconds(2), std::random_device{}());
  Attempt attempt{method, 0, std::nullopt, 0};
  std::string error;
  for (;; ++attempt.retries) {
    if (shut_down_.load()) return Status::Unavailable("client shut down");
    bucket_.Wait();
    web::http::http_request req = NewRequest(method, path, reading.accept);
    if (body != nullptr) req.set_body(body->dump(), content_type);
    RequestTimer timer(options_.on_request, method, host_);
    error.clear();
    bool retryable = true;
    attempt.code = 0;
    attempt.retry_after.reset();
    try {
      web::http::http_response r = client_->request(req, cancel_.get_token()).get();
      timer.Answered(r.status_code());
      resp->code = r.status_code();
      reading.read(r, resp, &retryable);
      attempt.code = resp->code;
      auto header = r.headers().find("Retry-After");
      std::chrono::seconds after{};
      if (header != r.headers().end() && ParseRetryAfter(header->second, NowUnix(), &after)) {
        attempt.retry_after = after;
      }
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty() && !retryable) break;
    std::optional<std::chrono::milliseconds> delay =
        RetryDelay(attempt, options_.retry, backoff.Next());
    if (!delay) break;
    spdlog::debug("{} {}: {}; retry {} in {} ms", method, path,
                  error.empty() ? "HTTP " + std::to_string(attempt.code) : error,
                  attempt.retries + 1, delay->count());
    if (options_.on_retry) options_.on_retry(method, host_, attempt.code);
    SleepUnlessShutDown(*delay, shut_down_);
  }
  resp->retried = attempt.retries > 0;
  if (attempt.code == 0) return Status::Unavailable(method + " " + path + ": " + error);
  return Status::Ok();
}

Status RestClient::Stream(const std::string& path,
                          const std::function<bool(const std::string&)>& on_line, int* code) {
  if (shut_down_.load()) return Status::Unavailable("client shut down");
  bucket_.Wait();
  RequestTimer timer(options_.on_request, "WATCH", host_);
  try {
    web::http::http_response r =
        watch_client_->request(NewRequest("GET", path), cancel_.get_token()).get();
    *code = r.status_code();
    timer.Answered(*code);
    if (*code != 200) {
      r.content_ready().wait();
      return Status::Ok();
    }
    concurrency::streams::istream in = r.body();
    while (true) {
      concurrency::streams::container_buffer<std::string> line;
      size_t n = in.read_line(line).get();
      if (n == 0 && in.is_eof()) return Status::Ok();
      if (n > 0 && !on_line(line.collection())) return Status::Ok();
    }
  } catch (const std::exception& e) {
    return Status::Unavailable("watch " + path + ": " + e.what());
  }
}

void RestClient::Shutdown() {
  shut_down_.store(true);
  cancel_.cancel();
}

}  // namespace petname::kube
