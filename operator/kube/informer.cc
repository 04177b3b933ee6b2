#include "operator/kube/informer.h"

#include <thread>

#include <cpprest/uri.h>
#include <spdlog/spdlog.h>

#include "common/backoff.h"
#include "operator/kube/object.h"

namespace petname::kube {
namespace {

using Json = nlohmann::json;

std::string Encode(const std::string& v) { return web::uri::encode_data_string(v); }

// managedFields is often half of an object and the operator never reads it.
void StripManagedFields(Json* obj) {
  auto meta = obj->find("metadata");
  if (meta != obj->end() && meta->is_object()) meta->erase("managedFields");
}

bool IsExpired(const Json& status) { return status.is_object() && status.value("code", 0) == 410; }

bool IsEventType(const std::string& type) {
  return type == "ADDED" || type == "MODIFIED" || type == "DELETED" || type == "BOOKMARK" ||
         type == "ERROR";
}

// Lists that expire (410) at some page are started over this many times in all before the
// list counts as failed (then the informer backs off and lists again).
constexpr int kMaxListAttempts = 3;

// Objects asked for per list page. The API server sends a page as one chunk, which the HTTP
// client holds whole while it is parsed (item by item): with one page in flight per process at
// a time (PageTurn), listing holds at most one page, whatever the number or size of the objects
// listed (an object is at most about 1.5 MiB, etcd's default request limit).
constexpr int kPageLimit = 8;

// Taken for each list page: one at a time in the whole process.
std::mutex& PageTurn() {
  static std::mutex turn;
  return turn;
}

}  // namespace

Informer::Informer(RestClient* client, std::string path, std::string label_selector,
                   Handler handler, Transform transform)
    : client_(client),
      path_(std::move(path)),
      selector_(std::move(label_selector)),
      handler_(std::move(handler)),
      transform_(std::move(transform)),
      rng_(std::random_device{}()) {}

void Informer::Stop() { stop_.store(true); }

bool Informer::Shape(Json* obj) const {
  StripManagedFields(obj);
  return !transform_ || transform_(obj);
}

void Informer::WaitBackoff() {
  Backoff b(std::chrono::milliseconds(200), std::chrono::seconds(30), rng_());
  std::chrono::milliseconds d(0);
  for (int i = 0; i <= std::min(failures_, 20); ++i) d = b.Next();
  ++failures_;
  auto until = std::chrono::steady_clock::now() + d;
  while (!stop_.load() && !client_->shut_down() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void Informer::Run() {
  while (!stop_.load() && !client_->shut_down()) {
    std::string rv;
    Status s = ListAll(&rv);
    if (!s.ok()) {
      spdlog::warn("list {}: {}", path_, s.message());
      WaitBackoff();
      continue;
    }
    while (!stop_.load() && !client_->shut_down()) {
      bool received = false;
      const AfterWatch next = DecideAfterWatch(Watch(&rv, &received));
      // The backoff grows over failures that follow each other without a working watch between.
      if (received || next == AfterWatch::kWatchAgain) failures_ = 0;
      if (next == AfterWatch::kWatchAgain) continue;
      if (next == AfterWatch::kRelist) {
        spdlog::info("watch {}: resourceVersion {} expired (410); relisting", path_, rv);
      } else if (!stop_.load() && !client_->shut_down()) {
        spdlog::info("watch {}: failed; relisting after a backoff", path_);
        WaitBackoff();
      }
      break;
    }
  }
}

Status Informer::ListPages(std::map<std::string, Json>* fresh, std::string* resource_version,
                           bool* expired) {
  std::string cont;
  int page = 0;
  do {
    std::string url = path_ + "?limit=" + std::to_string(kPageLimit);
    if (!selector_.empty()) url += "&labelSelector=" + Encode(selector_);
    if (!cont.empty()) url += "&continue=" + Encode(cont);
    Response resp;
    std::lock_guard<std::mutex> turn(PageTurn());
    PETNAME_RETURN_IF_ERROR(client_->List(
        url,
        [&](Json item) {
          if (!Shape(&item)) return;
          std::string key = Key(item);
          (*fresh)[key] = std::move(item);
        },
        &resp));
    ++page;
    if (resp.code == 410) {
      *expired = true;
      return Status::Unavailable("page " + std::to_string(page) + ": HTTP 410 (" +
                                 StringAt(resp.body, "/message") + ")");
    }
    if (resp.code != 200 || !resp.body.is_object()) {
      return Status::Unavailable("HTTP " + std::to_string(resp.code) + ": " +
                                 StringAt(resp.body, "/message"));
    }
    *resource_version = StringAt(resp.body, "/metadata/resourceVersion");
    cont = StringAt(resp.body, "/metadata/continue");
  } while (!cont.empty());
  return Status::Ok();
}

Status Informer::ListAll(std::string* resource_version) {
  std::map<std::string, Json> fresh;
  for (int attempt = 1;; ++attempt) {
    bool expired = false;
    fresh.clear();
    Status s = ListPages(&fresh, resource_version, &expired);
    if (s.ok()) break;
    if (!expired || attempt >= kMaxListAttempts) return s;
    spdlog::info("list {}: {}: the list expired; listing again from the first page", path_,
                 s.message());
  }

  {
    std::lock_guard<std::mutex> lock(mu_);
    cache_.swap(fresh);  // `fresh` now holds the previous cache
  }
  ++lists_;
  synced_.store(true);
  // Only this thread changes the cache: it can be read here without the lock.
  for (const auto& [key, obj] : fresh) {
    if (!cache_.count(key)) handler_(obj);
  }
  fresh.clear();
  for (const auto& [key, obj] : cache_) handler_(obj);
  return Status::Ok();
}

WatchOutcome Informer::Watch(std::string* resource_version, bool* received) {
  std::uniform_int_distribution<int> timeout(300, 600);
  std::string url = path_ + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
                    std::to_string(timeout(rng_)) + "&resourceVersion=" + Encode(*resource_version);
  if (!selector_.empty()) url += "&labelSelector=" + Encode(selector_);
  WatchOutcome out;
  Status s = client_->Stream(
      url,
      [&](const std::string& line) {
        Json ev = Json::parse(line, nullptr, false);
        const std::string type = ev.is_object() && ev.contains("type") && ev["type"].is_string()
                                     ? ev["type"].get<std::string>()
                                     : std::string();
        if (!IsEventType(type) || !ev.contains("object") || !ev["object"].is_object()) {
          out.undecodable = true;
          return false;
        }
        Json& obj = ev["object"];
        if (type == "ERROR") {
          out.expired_event = IsExpired(obj);
          out.error_event = !out.expired_event;
          return false;
        }
        *received = true;
        std::string rv = ResourceVersion(obj);
        if (!rv.empty()) *resource_version = rv;
        if (type != "BOOKMARK") Apply(type, std::move(obj));
        return !stop_.load();
      },
      &out.http_status);
  if (!s.ok()) {
    if (!client_->shut_down()) spdlog::warn("{}", s.message());
    out.stream_failed = true;
  } else if (out.undecodable) {
    spdlog::warn("watch {}: a line that is not a watch event", path_);
  } else if ((out.http_status != 200 && out.http_status != 410) || out.error_event) {
    spdlog::warn("watch {}: HTTP {}{}", path_, out.http_status,
                 out.error_event ? " with an ERROR event" : "");
  }
  return out;
}

void Informer::Apply(const std::string& type, Json obj) {
  const std::string key = Key(obj);
  const bool keep = Shape(&obj) && type != "DELETED";
  if (!keep) {
    Json gone;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = cache_.find(key);
      if (it == cache_.end()) return;  // never cached: nothing changed
      gone = std::move(it->second);
      cache_.erase(it);
    }
    handler_(gone);
    return;
  }
  const Json* cached = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Json& slot = cache_[key];
    slot = std::move(obj);
    cached = &slot;
  }
  // Only this thread changes the cache: the entry stays valid without the lock.
  handler_(*cached);
}

bool Informer::Get(const std::string& key, Json* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(key);
  if (it == cache_.end()) return false;
  *out = it->second;
  return true;
}

std::vector<Json> Informer::List(const std::function<bool(const Json&)>& keep) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Json> out;
  for (const auto& [key, obj] : cache_) {
    if (keep(obj)) out.push_back(obj);
  }
  return out;
}

void Informer::Visit(const std::function<void(const Json&)>& visit) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, obj] : cache_) visit(obj);
}

size_t Informer::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.size();
}

}  // namespace petname::kube
