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

// Lists that expire (410) at some page are started over this many times in all before the
// list counts as failed (then the informer backs off and lists again).
constexpr int kMaxListAttempts = 3;

}  // namespace

void DropSpec(Json* obj) {
  if (obj->is_object()) obj->erase("spec");
}

Informer::Informer(RestClient* client, std::string path, std::string label_selector,
                   Handler handler, Transform transform)
    : client_(client),
      path_(std::move(path)),
      selector_(std::move(label_selector)),
      handler_(std::move(handler)),
      transform_(std::move(transform)),
      rng_(std::random_device{}()) {}

void Informer::Stop() { stop_.store(true); }

void Informer::Shape(Json* obj) const {
  StripManagedFields(obj);
  if (transform_) transform_(obj);
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
    failures_ = 0;
    while (!stop_.load() && !client_->shut_down()) {
      WatchEnd end = Watch(&rv);
      if (end == WatchEnd::kExpired) {
        spdlog::info("watch {}: resourceVersion {} expired (410); relisting", path_, rv);
        break;
      }
      if (end == WatchEnd::kFailed) {
        WaitBackoff();
      } else {
        failures_ = 0;
      }
    }
  }
}

Status Informer::ListPages(std::map<std::string, Json>* fresh, std::string* resource_version,
                           bool* expired) {
  std::string cont;
  int page = 0;
  do {
    std::string url = path_ + "?limit=500";
    if (!selector_.empty()) url += "&labelSelector=" + Encode(selector_);
    if (!cont.empty()) url += "&continue=" + Encode(cont);
    Response resp;
    PETNAME_RETURN_IF_ERROR(client_->Do("GET", url, nullptr, &resp));
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
    auto items = resp.body.find("items");
    if (items != resp.body.end() && items->is_array()) {
      for (Json& item : *items) {
        Shape(&item);
        std::string key = Key(item);
        (*fresh)[key] = std::move(item);
      }
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

  std::vector<Json> gone;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, obj] : cache_) {
      if (!fresh.count(key)) gone.push_back(obj);
    }
    cache_ = fresh;
  }
  ++lists_;
  synced_.store(true);
  for (const Json& obj : gone) handler_(obj);
  for (const auto& [key, obj] : fresh) handler_(obj);
  return Status::Ok();
}

Informer::WatchEnd Informer::Watch(std::string* resource_version) {
  std::uniform_int_distribution<int> timeout(300, 600);
  std::string url = path_ + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=" +
                    std::to_string(timeout(rng_)) + "&resourceVersion=" + Encode(*resource_version);
  if (!selector_.empty()) url += "&labelSelector=" + Encode(selector_);
  bool expired = false;
  bool error_event = false;
  int code = 0;
  Status s = client_->Stream(
      url,
      [&](const std::string& line) {
        Json ev = Json::parse(line, nullptr, false);
        if (!ev.is_object()) return true;
        const std::string type = ev.value("type", "");
        Json& obj = ev["object"];
        if (type == "ERROR") {
          expired = IsExpired(obj);
          error_event = !expired;
          return false;
        }
        std::string rv = ResourceVersion(obj);
        if (!rv.empty()) *resource_version = rv;
        if (type != "BOOKMARK") Apply(type, std::move(obj));
        return !stop_.load();
      },
      &code);
  if (!s.ok()) {
    if (!client_->shut_down()) spdlog::warn("{}", s.message());
    return WatchEnd::kFailed;
  }
  if (code == 410 || expired) return WatchEnd::kExpired;
  if (code != 200 || error_event) {
    spdlog::warn("watch {}: HTTP {}{}", path_, code, error_event ? " with an ERROR event" : "");
    return WatchEnd::kFailed;
  }
  return WatchEnd::kEnded;
}

void Informer::Apply(const std::string& type, Json obj) {
  Shape(&obj);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (type == "DELETED") {
      cache_.erase(Key(obj));
    } else {
      cache_[Key(obj)] = obj;
    }
  }
  handler_(obj);
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

size_t Informer::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_.size();
}

}  // namespace petname::kube
