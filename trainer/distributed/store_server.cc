#include "trainer/distributed/store_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <vector>

#include "trainer/distributed/peer_check.h"
#include "trainer/distributed/store_listener.h"
#include "trainer/distributed/store_protocol.h"
#include "trainer/distributed/store_table.h"

namespace petname::dist {
namespace {

using Clock = std::chrono::steady_clock;
using store::Code;
using store::Listen;
using store::Op;
using store::PeerName;
using store::Reply;
using store::Request;
using store::ServerSession;

constexpr auto kNever = Clock::time_point::max();
// What one connection may have received and not yet used: one whole message.
constexpr size_t kMaxPending = store::kLengthBytes + store::kMaxBodyBytes + store::kMacBytes;

struct Connection {
  Connection(int f, std::string p, std::string i, const std::string& secret, std::string nonce)
      : fd(f), peer(std::move(p)), ip(std::move(i)), session(secret, std::move(nonce)) {}

  int fd;
  std::string peer;  // ADDRESS:PORT
  std::string ip;    // the key of the per-address count
  ServerSession session;
  std::string in;                           // received, not yet used
  std::string out;                          // to send
  Clock::time_point deadline = kNever;      // of the handshake, or of a message begun
  Clock::time_point out_deadline = kNever;  // for `out` to be taken
  bool waiting = false;                     // on `wait` (kWait), until wait_deadline
  Request wait;
  Clock::time_point wait_deadline = kNever;
  bool closed = false;
};

}  // namespace

struct StoreServer::Loop {
  explicit Loop(const StoreServerOptions& o) : options(o), table(o.max_bytes), refusals(o.log) {}

  void Run();
  void Accept(Clock::time_point now);
  // Reads what `c` sent; closes it at the end of its stream.
  void Receive(Connection& c);
  void Send(Connection& c, Clock::time_point now);
  // Answers what `c` has sent, as long as it is not waiting.
  void Serve(Connection& c, Clock::time_point now);
  // Answers every waiting connection whose keys now exist.
  void Wake(Clock::time_point now);
  // The deadlines of `c` that have passed.
  void Expire(Connection& c, Clock::time_point now);
  void Respond(Connection& c, const Reply& reply, Clock::time_point now);
  // Closes `c`; a refusal when `why` is not empty (after sending what c.out holds, if it can).
  void Close(Connection& c, const std::string& why = "");

  const StoreServerOptions options;
  store::Table table;
  int listening = -1;
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::list<Connection> connections;  // in the order accepted
  size_t handshaking = 0;
  size_t proven = 0;
  std::map<std::string, size_t> per_peer;  // handshaking, by address
  store::RefusalLog refusals;
};

void StoreServer::Loop::Close(Connection& c, const std::string& why) {
  if (c.closed) return;
  c.closed = true;
  if (!why.empty() && !c.out.empty()) {
    (void)!send(c.fd, c.out.data(), c.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  }
  close(c.fd);
  if (c.session.authenticated()) {
    --proven;
  } else {
    --handshaking;
    if (--per_peer[c.ip] == 0) per_peer.erase(c.ip);
  }
  if (!why.empty()) refusals.Record(c.peer, why);
}

void StoreServer::Loop::Receive(Connection& c) {
  char buf[65536];
  const size_t room = std::min(sizeof(buf), kMaxPending - std::min(kMaxPending, c.in.size()));
  if (room == 0) return;
  const ssize_t got = recv(c.fd, buf, room, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (got <= 0) {
    Close(c);
    return;
  }
  c.in.append(buf, static_cast<size_t>(got));
}

void StoreServer::Loop::Send(Connection& c, Clock::time_point now) {
  const ssize_t sent = send(c.fd, c.out.data(), c.out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (sent < 0) {
    Close(c);
    return;
  }
  c.out.erase(0, static_cast<size_t>(sent));
  c.out_deadline = c.out.empty() ? kNever : now + options.message_timeout;
}

void StoreServer::Loop::Respond(Connection& c, const Reply& reply, Clock::time_point now) {
  if (c.out.empty()) c.out_deadline = now + options.message_timeout;
  c.out += c.session.SealReply(reply);
}

void StoreServer::Loop::Serve(Connection& c, Clock::time_point now) {
  // Replies not taken hold back the next request (so `out` stays within one reply or so).
  while (!c.closed && !c.waiting && c.out.size() < store::kMaxBodyBytes) {
    Request request;
    std::string answer, why;
    const ServerSession::Event event = c.session.Feed(&c.in, &answer, &request, &why);
    c.out += answer;
    switch (event) {
      case ServerSession::Event::kNeedMore:
        if (c.session.authenticated()) {
          c.deadline = c.in.empty() ? kNever : std::min(c.deadline, now + options.message_timeout);
        }
        return;
      case ServerSession::Event::kRefused:
        Close(c, why);
        return;
      case ServerSession::Event::kAuthenticated:
        --handshaking;
        if (--per_peer[c.ip] == 0) per_peer.erase(c.ip);
        ++proven;
        c.deadline = kNever;
        if (proven > options.max_connections) {
          Close(c, "the store already holds " + std::to_string(options.max_connections) +
                       " connections");
        }
        continue;
      case ServerSession::Event::kRequest:
        break;
    }
    c.deadline = kNever;  // the message is whole; a partial next one sets it again
    const Reply reply = table.Apply(request);
    if (request.op == Op::kWait && reply.code == Code::kMissing) {
      c.waiting = true;
      c.wait = std::move(request);
      c.wait_deadline = c.wait.number > 0 ? now + std::chrono::milliseconds(c.wait.number) : kNever;
      return;
    }
    Respond(c, reply, now);
  }
}

void StoreServer::Loop::Wake(Clock::time_point now) {
  for (Connection& c : connections) {
    if (c.closed || !c.waiting || !table.Ready(c.wait.keys)) continue;
    c.waiting = false;
    Respond(c, Reply{}, now);
    Serve(c, now);
  }
}

void StoreServer::Loop::Expire(Connection& c, Clock::time_point now) {
  if (c.closed) return;
  if (c.waiting && now >= c.wait_deadline) {
    c.waiting = false;
    Respond(c, Reply{Code::kTimeout, "", 0}, now);
    Serve(c, now);
  }
  const auto seconds = [](std::chrono::milliseconds d) {
    return std::to_string(std::chrono::duration<double>(d).count()).substr(0, 4) + " s";
  };
  if (now >= c.deadline) {
    Close(c, c.session.authenticated()
                 ? "a message did not arrive whole within " + seconds(options.message_timeout)
                 : "no handshake within " + seconds(options.handshake_timeout));
  } else if (now >= c.out_deadline) {
    Close(c, "it did not take its replies within " + seconds(options.message_timeout));
  }
}

void StoreServer::Loop::Accept(Clock::time_point now) {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    const int fd =
        accept4(listening, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    std::string ip, nonce;
    std::string peer = PeerName(addr, &ip);
    if (!NewNonce(&nonce).ok()) {
      close(fd);
      return;
    }
    Connection& c = connections.emplace_back(fd, std::move(peer), std::move(ip), options.secret,
                                             std::move(nonce));
    ++handshaking;
    c.deadline = now + options.handshake_timeout;
    if (++per_peer[c.ip] > options.max_per_peer) {
      Close(c, "more than " + std::to_string(options.max_per_peer) +
                   " connections from its address are in their handshake");
      continue;
    }
    if (handshaking > options.max_handshaking) {  // the oldest still in its handshake makes room
      for (Connection& old : connections) {
        if (old.closed || old.session.authenticated()) continue;
        Close(old, "closed to make room: more than " + std::to_string(options.max_handshaking) +
                       " connections were in their handshake");
        break;
      }
    }
    if (c.closed) continue;
    c.out = c.session.Greeting();
    c.out_deadline = c.deadline;
    Send(c, now);
  }
}

void StoreServer::Loop::Run() {
  std::vector<pollfd> fds;
  std::vector<Connection*> polled;
  while (!stopping) {
    fds.assign({pollfd{wake[0], POLLIN, 0}, pollfd{listening, POLLIN, 0}});
    polled.clear();
    auto next = kNever;
    for (Connection& c : connections) {
      const int events = (c.out.empty() ? 0 : POLLOUT) | (c.in.size() < kMaxPending ? POLLIN : 0);
      fds.push_back(pollfd{c.fd, static_cast<short>(events), 0});
      polled.push_back(&c);
      next = std::min({next, c.deadline, c.out_deadline, c.waiting ? c.wait_deadline : kNever});
    }
    int wait_ms = -1;
    if (next != kNever) {
      wait_ms = static_cast<int>(std::clamp<int64_t>(
          std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count(), 0, 60000));
    }
    if (poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) break;
    const auto now = Clock::now();
    for (size_t i = 0; i < polled.size(); ++i) {
      Connection& c = *polled[i];
      const short revents = fds[i + 2].revents;
      if ((revents & POLLOUT) != 0) Send(c, now);
      if ((revents & (POLLIN | POLLHUP | POLLERR)) != 0 && !c.closed) Receive(c);
      Serve(c, now);
    }
    Wake(now);
    for (Connection& c : connections) {
      Expire(c, now);
      if (!c.closed && !c.out.empty()) Send(c, now);
    }
    connections.remove_if([](const Connection& c) { return c.closed; });
    if (fds[1].revents != 0) Accept(now);
    connections.remove_if([](const Connection& c) { return c.closed; });
  }
  for (Connection& c : connections) Close(c);
}

Status StoreServer::Start(const StoreServerOptions& options, std::unique_ptr<StoreServer>* out) {
  const std::string where = "port " + std::to_string(options.port);
  const int fd = Listen(options.port);
  if (fd < 0) return Status::Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(fd);
    return Status::Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::string ip;
  const std::string name = PeerName(addr, &ip);
  const int port = std::stoi(name.substr(name.rfind(':') + 1));
  auto loop = std::make_unique<Loop>(options);
  loop->listening = fd;
  loop->wake[0] = wake[0];
  loop->wake[1] = wake[1];
  out->reset(new StoreServer(std::move(loop), port));
  return Status::Ok();
}

StoreServer::StoreServer(std::unique_ptr<Loop> loop, int port)
    : loop_(std::move(loop)), port_(port), thread_([this] { loop_->Run(); }) {}

StoreServer::~StoreServer() {
  loop_->stopping = true;
  const char stop = 0;
  while (write(loop_->wake[1], &stop, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  close(loop_->listening);
  close(loop_->wake[0]);
  close(loop_->wake[1]);
}

StoreRefusals StoreServer::refusals() const { return loop_->refusals.Get(); }

}  // namespace petname::dist
