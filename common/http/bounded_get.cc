#include "common/http/bounded_get.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/http/bounded_stream.h"

namespace petname {
namespace {

constexpr size_t kMaxHeadBytes = 8192;

// cpp-httplib's client, made to run one exchange over a stream it is given.
class StreamClient : public httplib::ClientImpl {
 public:
  StreamClient(const std::string& host, int port) : ClientImpl(host, port) {
    set_decompress(false);
  }

  bool Exchange(httplib::Stream& stream, httplib::Request& req, httplib::Response& res,
                httplib::Error& error) {
    return process_request(stream, req, res, /*close_connection=*/true, error);
  }
};

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

bool ParsePort(const std::string& text, int* port) {
  if (text.empty() || text.size() > 5) return false;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *port = value;
  return value >= 1 && value <= 65535;
}

// The socket address of a numeric host; false when it is not an IPv4 or IPv6 address.
bool Address(const HttpUrl& url, sockaddr_storage* out, socklen_t* len) {
  auto* v4 = reinterpret_cast<sockaddr_in*>(out);
  if (inet_pton(AF_INET, url.host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(url.port));
    *len = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(out);
  if (inet_pton(AF_INET6, url.host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(url.port));
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

}  // namespace

Status ParseHttpUrl(const std::string& url, HttpUrl* out) {
  const std::string scheme = "http://";
  auto bad = [&url] { return Status::InvalidArgument("'" + url + "' is not http://IP:PORT/PATH"); };
  if (url.compare(0, scheme.size(), scheme) != 0) return bad();
  const size_t slash = url.find('/', scheme.size());
  const std::string authority = url.substr(scheme.size(), slash - scheme.size());
  out->path = slash == std::string::npos ? "/" : url.substr(slash);
  size_t colon = authority.rfind(':');
  if (colon == std::string::npos) return bad();
  std::string host = authority.substr(0, colon);
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') return bad();
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    return bad();
  }
  out->host = host;
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (!ParsePort(authority.substr(colon + 1), &out->port) || !Address(*out, &addr, &len)) {
    return bad();
  }
  return Status::Ok();
}

Status BoundedGet(const std::string& url, const GetLimits& limits, GetResult* out) {
  HttpUrl parsed;
  PETNAME_RETURN_IF_ERROR(ParseHttpUrl(url, &parsed));
  sockaddr_storage addr{};
  socklen_t len = 0;
  Address(parsed, &addr, &len);
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  Socket sock(socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (sock.fd() < 0) return Status::Unavailable(url + ": socket: " + std::strerror(errno));
  BoundedStream stream(sock.fd(),
                       StreamBounds{deadline, deadline, kMaxHeadBytes, limits.max_body_bytes});
  const std::string within = " within " + std::to_string(limits.timeout.count()) + " ms";
  if (connect(sock.fd(), reinterpret_cast<const sockaddr*>(&addr), len) != 0) {
    if (errno != EINPROGRESS) return Status::Unavailable(url + ": " + std::strerror(errno));
    if (!stream.is_writable()) return Status::Unavailable(url + ": no connection" + within);
    int error = 0;
    socklen_t size = sizeof(error);
    getsockopt(sock.fd(), SOL_SOCKET, SO_ERROR, &error, &size);
    if (error != 0) return Status::Unavailable(url + ": " + std::strerror(error));
  }
  StreamClient client(parsed.host, parsed.port);
  httplib::Request req;
  req.method = "GET";
  req.path = parsed.path;
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool done = client.Exchange(stream, req, res, error);
  out->bytes_read = stream.bytes_read();
  if (!done) {
    if (stream.expired()) return Status::Unavailable(url + ": no complete answer" + within);
    if (stream.over_limit()) {
      return Status::Unavailable(url + ": answer over " + std::to_string(kMaxHeadBytes) +
                                 " bytes of headers or " + std::to_string(limits.max_body_bytes) +
                                 " bytes of body");
    }
    return Status::Unavailable(url + ": " + httplib::to_string(error));
  }
  out->status = res.status;
  out->body = std::move(res.body);
  return Status::Ok();
}

}  // namespace petname
