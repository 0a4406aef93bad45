#include "dha/kube/informer.hpp"

#include <spdlog/spdlog.h>

#include "dha/kube/work_queue.hpp"

namespace dha::kube {

namespace {

// A cached object lives as long as the cache holds it, so it gets one right-sized memory chunk:
// a plain Document keeps RapidJSON's default 64 KiB pool chunk, which pinned ~64 KiB per
// cached object (10 000 DHAs + their targets + health objects: ~2 GiB of mostly empty chunks).
struct CompactObject {
  explicit CompactObject(std::size_t bytes) : allocator(bytes), doc(&allocator) {}
  rapidjson::MemoryPoolAllocator<> allocator;
  rapidjson::Document doc;
};

ObjectPtr share(rapidjson::Document& doc) {
  // Size() is what the value tree occupies in its own pool: the copy fits in one chunk.
  auto holder = std::make_shared<CompactObject>(doc.GetAllocator().Size() + 64);
  holder->doc.CopyFrom(doc, holder->allocator);
  return ObjectPtr(holder, &holder->doc);
}

}  // namespace

void drop_managed_fields(rapidjson::Document& object) {
  if (object.IsObject() && object.HasMember("metadata") && object["metadata"].IsObject())
    object["metadata"].RemoveMember("managedFields");
}

Informer::Informer(Client& client, ResourceRef collection, InformerOptions options)
    : client_(client), collection_(collection.collection()), options_(std::move(options)) {
  // Fail at construction on a bad selector or path rather than in the background thread.
  if (!options_.label_selector.empty()) (void)LabelSelector::parse(options_.label_selector);
  (void)resource_path(collection_);
}

Informer::~Informer() { stop(); }

void Informer::transform(rapidjson::Document& doc) const {
  if (!options_.transform) return;
  options_.transform(doc);
  // A pool never gives memory back: copy what is left, so share() sizes it by what remains.
  rapidjson::Document tight;
  tight.CopyFrom(doc, tight.GetAllocator());
  doc.Swap(tight);
}

void Informer::add_handler(ResourceEventHandler handler) { handlers_.push_back(std::move(handler)); }

void Informer::start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void Informer::stop() {
  {
    std::lock_guard lock(state_mu_);
    stop_ = true;
  }
  state_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Informer::wait_for_sync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_mu_);
  return state_cv_.wait_for(lock, timeout, [&] { return synced_.load(); });
}

bool Informer::sleep_for(Duration d) {
  std::unique_lock lock(state_mu_);
  state_cv_.wait_for(lock, d, [&] { return stop_.load(); });
  return !stop_.load();
}

ObjectPtr Informer::get(const std::string& key) const {
  std::lock_guard lock(cache_mu_);
  auto it = cache_.find(key);
  return it == cache_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::list() const {
  std::lock_guard lock(cache_mu_);
  std::vector<ObjectPtr> out;
  out.reserve(cache_.size());
  for (const auto& [_, obj] : cache_) out.push_back(obj);
  return out;
}

std::vector<ObjectPtr> Informer::list(const std::string& namespace_, const LabelSelector& selector) const {
  std::vector<ObjectPtr> out;
  std::lock_guard lock(cache_mu_);
  if (!namespace_.empty()) {
    // Keys are "ns/name" in order: one namespace is one contiguous range, not a full scan
    // (the operator lists a namespace's ResourceQuotas on every reconcile).
    const std::string prefix = namespace_ + "/";
    for (auto it = cache_.lower_bound(prefix); it != cache_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
         ++it)
      if (selector.empty() || selector.matches(labels_of(*it->second))) out.push_back(it->second);
    return out;
  }
  for (const auto& [_, obj] : cache_) {
    if (!namespace_.empty() && namespace_of(*obj) != namespace_) continue;
    if (!selector.empty() && !selector.matches(labels_of(*obj))) continue;
    out.push_back(obj);
  }
  return out;
}

std::size_t Informer::size() const {
  std::lock_guard lock(cache_mu_);
  return cache_.size();
}

std::string Informer::last_resource_version() const {
  std::lock_guard lock(cache_mu_);
  return resource_version_;
}

void Informer::relist() {
  ListOptions opts;
  opts.label_selector = options_.label_selector;
  opts.field_selector = options_.field_selector;
  opts.limit = options_.page_size;
  opts.page_bytes = options_.page_bytes;
  // Page by page: each page's items are transformed (and so made small) before the next page
  // is read, so a relist of 50 000 objects never holds them all as received.
  std::map<std::string, ObjectPtr> fresh;
  const std::string snapshot = client_.list_pages(collection_, opts, [&](ListPage& page, bool from_start) {
    if (from_start) fresh.clear();
    for (auto& item : page.list["items"].GetArray()) {
      rapidjson::Document doc;
      doc.CopyFrom(item, doc.GetAllocator());
      transform(doc);
      std::string key = key_of(doc);
      fresh.emplace(std::move(key), share(doc));
    }
  });
  std::map<std::string, ObjectPtr> old;
  {
    std::lock_guard lock(cache_mu_);
    old.swap(cache_);
    cache_.swap(fresh);
    resource_version_ = snapshot;
  }
  ++relists_;
  // Tell handlers what changed while we were not watching. Only this thread writes the cache,
  // so it is read here without the lock (other threads read it under the lock meanwhile).
  for (const auto& [key, obj] : cache_) {
    auto it = old.find(key);
    if (it == old.end()) {
      for (auto& h : handlers_)
        if (h.on_add) h.on_add(obj);
    } else if (resource_version_of(*it->second) != resource_version_of(*obj)) {
      for (auto& h : handlers_)
        if (h.on_update) h.on_update(it->second, obj);
    }
  }
  for (const auto& [key, obj] : old) {
    if (cache_.count(key) == 0) {
      for (auto& h : handlers_)
        if (h.on_delete) h.on_delete(obj);
    }
  }
  if (!synced_.exchange(true)) {
    std::lock_guard lock(state_mu_);
    state_cv_.notify_all();
  }
}

void Informer::apply(WatchEvent&& ev) {
  const std::string rv = resource_version_of(ev.object);
  if (ev.type == WatchEventType::Bookmark) {
    std::lock_guard lock(cache_mu_);
    if (!rv.empty()) resource_version_ = rv;
    return;
  }
  const std::string key = key_of(ev.object);
  transform(ev.object);
  ObjectPtr obj = share(ev.object);
  ObjectPtr old;
  {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) old = it->second;
    if (ev.type == WatchEventType::Deleted) {
      if (it != cache_.end()) cache_.erase(it);
    } else {
      cache_[key] = obj;
    }
    if (!rv.empty()) resource_version_ = rv;
  }
  for (auto& h : handlers_) {
    if (ev.type == WatchEventType::Deleted) {
      if (h.on_delete) h.on_delete(obj);
    } else if (old) {
      if (h.on_update) h.on_update(old, obj);
    } else if (h.on_add) {
      h.on_add(obj);
    }
  }
}

void Informer::watch_once() {
  WatchOptions w;
  w.label_selector = options_.label_selector;
  w.field_selector = options_.field_selector;
  w.resource_version = last_resource_version();
  w.allow_bookmarks = true;
  w.timeout_seconds = options_.watch_timeout_seconds;
  w.idle_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(options_.watch_idle_timeout);
  ++watches_;
  client_.watch(
      collection_, w,
      [this](WatchEvent&& ev) {
        apply(std::move(ev));
        return true;
      },
      &stop_);
}

void Informer::run() {
  const BackoffPolicy backoff{options_.retry_base, options_.retry_cap};
  bool need_list = true;
  int failures = 0;
  while (!stop_.load()) {
    try {
      if (need_list) {
        relist();
        need_list = false;
      }
      const auto started = std::chrono::steady_clock::now();
      watch_once();
      // A watch that ran a while and ended cleanly (server timeout) is healthy: reconnect at
      // once. One the server closes immediately, over and over, must not spin.
      if (std::chrono::steady_clock::now() - started < std::chrono::seconds(1)) {
        ++failures;
        if (!sleep_for(backoff.delay_for(failures))) break;
      } else {
        failures = 0;
      }
    } catch (const ApiError& e) {
      if (e.reason() == Reason::Gone) {
        spdlog::info("informer {}: resourceVersion {} expired, relisting", resource_path(collection_),
                     last_resource_version());
        need_list = true;
        continue;
      }
      ++failures;
      spdlog::warn("informer {}: {} (retry {})", resource_path(collection_), e.what(), failures);
      if (!sleep_for(backoff.delay_for(failures))) break;
    } catch (const std::exception& e) {
      // Malformed event or list: our view may be inconsistent, rebuild it.
      ++failures;
      need_list = true;
      spdlog::warn("informer {}: {} (relisting, retry {})", resource_path(collection_), e.what(), failures);
      if (!sleep_for(backoff.delay_for(failures))) break;
    }
  }
}

}  // namespace dha::kube
