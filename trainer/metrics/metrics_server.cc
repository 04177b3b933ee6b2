#include "trainer/metrics/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace petname::metrics {
namespace {

constexpr int kReadTimeoutMs = 2000;
constexpr size_t kMaxRequestBytes = 8192;

// Reads until the end of the request headers; false on timeout, error or oversize.
bool ReadRequest(int fd, std::string* request) {
  char buf[1024];
  while (request->find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kReadTimeoutMs) <= 0) return false;
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) return false;
    request->append(buf, static_cast<size_t>(n));
    if (request->size() > kMaxRequestBytes) return false;
  }
  return true;
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string Response(const std::string& status, const std::string& type, const std::string& body) {
  return "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

}  // namespace

Status MetricsServer::Start(
    const std::string& address, int port,
    const std::vector<std::shared_ptr<prometheus::Collectable>>& collectables,
    std::unique_ptr<MetricsServer>* out) {
  const std::string where = address + ":" + std::to_string(port);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (port < 0 || port > 65535 || inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    return Status::InvalidArgument("cannot serve metrics on " + where +
                                   ": not an IPv4 address and port");
  }
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return Status::Unavailable("cannot serve metrics: socket: " + std::string(strerror(errno)));
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string error = strerror(errno);
    close(fd);
    return Status::Unavailable("cannot serve metrics on " + where + ": " + error);
  }
  const int stop = eventfd(0, EFD_CLOEXEC);
  if (stop < 0) {
    close(fd);
    return Status::Unavailable("cannot serve metrics: eventfd: " + std::string(strerror(errno)));
  }
  out->reset(new MetricsServer(fd, stop, ntohs(addr.sin_port), collectables));
  return Status::Ok();
}

MetricsServer::MetricsServer(int listen_fd, int stop_fd, int port,
                             std::vector<std::shared_ptr<prometheus::Collectable>> collectables)
    : listen_fd_(listen_fd),
      stop_fd_(stop_fd),
      port_(port),
      collectables_(std::move(collectables)),
      thread_([this] { Serve(); }) {}

MetricsServer::~MetricsServer() {
  const uint64_t one = 1;
  const ssize_t written = write(stop_fd_, &one, sizeof(one));  // an eventfd write cannot block
  (void)written;
  thread_.join();
  close(listen_fd_);
  close(stop_fd_);
}

void MetricsServer::Serve() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    Answer(fd);
    close(fd);
  }
}

void MetricsServer::Answer(int fd) const {
  std::string request;
  if (!ReadRequest(fd, &request)) return;
  const std::string line = request.substr(0, request.find("\r\n"));
  if (line.rfind("GET /metrics ", 0) != 0 && line.rfind("GET /metrics?", 0) != 0) {
    WriteAll(fd, Response("404 Not Found", "text/plain", "see /metrics\n"));
    return;
  }
  std::vector<prometheus::MetricFamily> families;
  for (const auto& collectable : collectables_) {
    for (auto& family : collectable->Collect()) families.push_back(std::move(family));
  }
  WriteAll(fd, Response("200 OK", "text/plain; version=0.0.4; charset=utf-8",
                        prometheus::TextSerializer().Serialize(families)));
}

int PortForLocalRank(int base_port, int local_rank) {
  return base_port == 0 ? 0 : base_port + local_rank;
}

}  // namespace petname::metrics
