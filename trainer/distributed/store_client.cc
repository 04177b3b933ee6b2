#include "trainer/distributed/store_client.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trainer/distributed/peer_check.h"

namespace petname::dist {
namespace {

using Clock = StoreClient::Clock;

// Waits until `fd` is ready for `events` or `deadline` passes; false on the deadline.
bool Await(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const int64_t left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60000)));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return true;  // the next read or write says what failed
  }
}

// A connected non-blocking socket to host:port, or -1 with *why.
int ConnectTcp(const std::string& host, int port, Clock::time_point deadline, std::string* why) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &result);
  if (rc != 0) {
    *why = gai_strerror(rc);
    return -1;
  }
  *why = "no address";
  int fd = -1;
  for (addrinfo* a = result; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int err = connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      socklen_t len = sizeof(err);
      err = Await(fd, POLLOUT, deadline) ? (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len), err)
                                         : ETIMEDOUT;
    }
    if (err != 0) {
      *why = std::strerror(err);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(result);
  return fd;
}

}  // namespace

StoreClient::StoreClient(int fd, std::string where, store::ClientSession session)
    : fd_(fd), where_(std::move(where)), session_(std::move(session)) {}

StoreClient::~StoreClient() {
  if (fd_ >= 0) close(fd_);
}

Status StoreClient::Broken(const std::string& why) {
  broken_ = why;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return Status::Unavailable("rendezvous store " + where_ + ": " + why);
}

Status StoreClient::Receive(size_t n, Clock::time_point deadline) {
  char buf[65536];
  while (in_.size() < n) {
    if (!Await(fd_, POLLIN, deadline)) return Broken("no answer before the deadline");
    const ssize_t got = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (got == 0) return Broken("the store closed the connection");
    if (got < 0) return Broken(std::strerror(errno));
    in_.append(buf, static_cast<size_t>(got));
  }
  return Status::Ok();
}

Status StoreClient::Send(const std::string& data, Clock::time_point deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    if (!Await(fd_, POLLOUT, deadline)) return Broken("could not send before the deadline");
    const ssize_t n =
        send(fd_, data.data() + sent, data.size() - sent, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (n < 0) return Broken(std::strerror(errno));
    sent += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status StoreClient::Connect(const std::string& host, int port, const std::string& secret,
                            Clock::time_point deadline, std::unique_ptr<StoreClient>* out) {
  const std::string where = host + ":" + std::to_string(port);
  std::string nonce, why;
  PETNAME_RETURN_IF_ERROR(NewNonce(&nonce));
  const int fd = ConnectTcp(host, port, deadline, &why);
  if (fd < 0) return Status::Unavailable(why);
  std::unique_ptr<StoreClient> client(
      new StoreClient(fd, where, store::ClientSession(secret, nonce)));
  std::string hello;
  PETNAME_RETURN_IF_ERROR(client->Receive(store::kGreetingBytes, deadline));
  if (!client->session_.Hello(client->in_.substr(0, store::kGreetingBytes), &hello, &why)) {
    return Status::FailedPrecondition(where + ": " + why);
  }
  client->in_.erase(0, store::kGreetingBytes);
  PETNAME_RETURN_IF_ERROR(client->Send(hello, deadline));
  PETNAME_RETURN_IF_ERROR(client->Receive(store::kAnswerBytes, deadline));
  switch (client->session_.Accept(client->in_.substr(0, store::kAnswerBytes))) {
    case store::ClientSession::Answer::kRefused:
      return Status::FailedPrecondition(
          "the store on " + where +
          " refused this rank: its PETNAME_RENDEZVOUS_SECRET is not the one rank 0 has");
    case store::ClientSession::Answer::kUnproven:
      return Status::FailedPrecondition("the peer on " + where +
                                        " did not prove the job's rendezvous secret: it is not "
                                        "this job's rendezvous store");
    case store::ClientSession::Answer::kProven:
      break;
  }
  client->in_.erase(0, store::kAnswerBytes);
  *out = std::move(client);
  return Status::Ok();
}

Status StoreClient::Call(const store::Request& request, Clock::time_point deadline,
                         store::Reply* reply) {
  if (fd_ < 0) return Status::Unavailable("rendezvous store " + where_ + ": " + broken_);
  PETNAME_RETURN_IF_ERROR(Send(session_.SealRequest(request), deadline));
  for (;;) {
    std::string why;
    switch (session_.OpenReply(&in_, reply, &why)) {
      case store::Channel::Result::kMessage:
        return Status::Ok();
      case store::Channel::Result::kBad:
        return Broken(why);
      case store::Channel::Result::kNeedMore:
        break;
    }
    PETNAME_RETURN_IF_ERROR(Receive(in_.size() + 1, deadline));
  }
}

}  // namespace petname::dist
