// Watch: a chunked stream of {"type","object"} lines starting after a resourceVersion, with
// bookmarks, timeoutSeconds, selectors, and 410 Expired once history no longer reaches back.

#include "object_meta.hpp"
#include "selectors.hpp"
#include "server_state.hpp"

#include <chrono>
#include <deque>

namespace dha::testing::apiserver {

namespace {

using Clock = std::chrono::steady_clock;

std::string event_line(const char* type, const std::string& object_json) {
  return std::string("{\"type\":\"") + type + "\",\"object\":" + object_json + "}\n";
}

std::string expired_status(uint64_t requested, uint64_t oldest) {
  ApiError error(410, "Expired",
                 "too old resource version: " + std::to_string(requested) + " (" + std::to_string(oldest + 1) + ")");
  return status_json(error);
}

class WatchStream : public ResponseStream {
 public:
  WatchStream(ServerState& state, ResourceRequest rr, const HttpRequest& request)
      : state_(state),
        rr_(std::move(rr)),
        labels_(LabelSelector::parse(request.param("labelSelector"))),
        fields_(FieldSelector::parse(request.param("fieldSelector"), *rr_.type)),
        table_(wants_table(request)) {
    bookmark_interval_ = state_.options.watch_bookmark_interval;
    bookmarks_ = request.flag("allowWatchBookmarks");
    std::string timeout = request.param("timeoutSeconds");
    if (!timeout.empty() && timeout.find_first_not_of("0123456789") == std::string::npos)
      deadline_ = Clock::now() + std::chrono::seconds(std::stoll(timeout));
    else
      deadline_ = Clock::now() + std::chrono::hours(24 * 365);
    bool send_initial = request.flag("sendInitialEvents");
    std::string rv_text = request.param("resourceVersion");
    // Called with state.mu held (see open_watch).
    if (rv_text.empty() || rv_text == "0" || send_initial) {
      // Start with the current state as ADDED events, as kube-apiserver does.
      for (const auto& obj : state_.store.list(rr_.type->key(), rr_.ns))
        if (matches(*obj)) pending_.push_back(render("ADDED", *obj));
      // kube-apiserver marks the end of the current state with a bookmark whenever bookmarks
      // are allowed, asked for with sendInitialEvents or not.
      if (send_initial || bookmarks_) initial_end_bookmark_ = true;
      last_rv_ = state_.store.current_rv();
    } else {
      if (rv_text.find_first_not_of("0123456789") != std::string::npos || rv_text.size() > 19)
        throw bad_request("invalid resource version: " + rv_text);
      last_rv_ = std::stoull(rv_text);
      if (last_rv_ < state_.store.oldest_available_rv()) {
        pending_.push_back(event_line("ERROR", expired_status(last_rv_, state_.store.oldest_available_rv())));
        finished_after_pending_ = true;
      }
    }
    if (initial_end_bookmark_) pending_.push_back(bookmark(true));
    *silenced_ = state_.silenced_resources.count(rr_.type->resource_with_group()) != 0;
  }

  std::weak_ptr<bool> silence_flag() const { return silenced_; }

  bool next(std::string& chunk) override {
    std::unique_lock lock(state_.mu);
    while (pending_.empty() && !*silenced_) {
      if (finished_after_pending_ || state_.stopping || Clock::now() >= deadline_) return false;
      std::vector<WatchEvent> events;
      if (!state_.store.events_since(last_rv_, rr_.type->key(), events)) {
        pending_.push_back(event_line("ERROR", expired_status(last_rv_, state_.store.oldest_available_rv())));
        finished_after_pending_ = true;
        break;
      }
      for (const auto& e : events) {
        last_rv_ = e.resource_version;
        if (!rr_.ns.empty() && e.ns != rr_.ns) continue;
        queue_event(e);
      }
      if (!pending_.empty()) break;
      // Without bookmarks only an event, the deadline or stop() wakes us (all notify or time out).
      auto wake = bookmarks_ ? std::min(deadline_, last_bookmark_ + bookmark_interval_) : deadline_;
      if (state_.store.changes_of(rr_.type->key())
                  .wait_until(lock, std::min(wake, Clock::now() + std::chrono::seconds(1))) ==
              std::cv_status::timeout &&
          Clock::now() < wake) {
        chunk.clear();  // idle: let the server check the connection
        return true;
      }
      if (bookmarks_ && Clock::now() >= last_bookmark_ + bookmark_interval_) {
        last_rv_ = std::max(last_rv_, state_.store.current_rv());
        pending_.push_back(bookmark(false));
        last_bookmark_ = Clock::now();
      }
    }
    if (*silenced_) {
      // Nothing more reaches the client, not even the end at its deadline; the server still
      // looks at the connection once a second, and ends the stream when the client has gone.
      state_.store.changes_of(rr_.type->key()).wait_for(lock, std::chrono::seconds(1));
      if (state_.stopping) return false;
      chunk.clear();
      return true;
    }
    chunk = std::move(pending_.front());
    pending_.pop_front();
    return true;
  }

 private:
  // A write that moves an object across the watch's selectors is seen as it would be by a
  // watcher of just the matching set: entering is ADDED, leaving is DELETED (with the object
  // as it was, at the write's resourceVersion), as kube-apiserver's watch cache sends them.
  void queue_event(const WatchEvent& e) {
    bool now_matches = matches(*e.object);
    bool matched_before = e.previous && matches(*e.previous);
    if (e.type == "MODIFIED" && now_matches && !matched_before) {
      pending_.push_back(render("ADDED", *e.object));
    } else if (e.type == "MODIFIED" && !now_matches && matched_before) {
      auto gone = clone(*e.previous);
      set_resource_version(*gone, e.resource_version);
      pending_.push_back(render("DELETED", *gone));
    } else if (now_matches || (e.type == "DELETED" && matched_before)) {
      pending_.push_back(render(e.type.c_str(), *e.object));
    }
  }

  bool matches(const Json& obj) const {
    return labels_.matches(at_path(obj, {"metadata", "labels"})) && fields_.matches(obj);
  }

  std::string render(const char* type, const Json& obj) {
    if (table_) {
      // Column definitions go with the first event only, as kube-apiserver sends them.
      auto rows = render_table(*rr_.type, *rr_.version, {clone(obj)}, "", "", !sent_columns_);
      sent_columns_ = true;
      return event_line(type, rows);
    }
    return event_line(type, render_object(obj, rr_.api_version()));
  }

  std::string bookmark(bool initial_end) {
    std::string rv = std::to_string(std::max(last_rv_, state_.store.current_rv()));
    std::string annotations = initial_end ? ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}" : "";
    return event_line("BOOKMARK", "{\"kind\":\"" + rr_.type->kind + "\",\"apiVersion\":\"" + rr_.api_version() +
                                      "\",\"metadata\":{\"resourceVersion\":\"" + rv + "\"" + annotations + "}}");
  }

  ServerState& state_;
  ResourceRequest rr_;
  LabelSelector labels_;
  FieldSelector fields_;
  bool table_ = false;
  bool sent_columns_ = false;
  bool bookmarks_ = false;
  bool initial_end_bookmark_ = false;
  bool finished_after_pending_ = false;
  uint64_t last_rv_ = 0;
  Clock::time_point deadline_;
  // Not reset by next(): the wake-ups that let the server check the connection must not
  // postpone the bookmark, or a quiet watch with an interval over a second never gets one.
  Clock::time_point last_bookmark_ = Clock::now();
  std::chrono::milliseconds bookmark_interval_{5000};
  std::deque<std::string> pending_;
  std::shared_ptr<bool> silenced_ = std::make_shared<bool>(false);  // guarded by state_.mu
};

}  // namespace

std::shared_ptr<ResponseStream> open_watch(ServerState& state, const ResourceRequest& rr, const HttpRequest& request) {
  auto stream = std::make_shared<WatchStream>(state, rr, request);
  std::erase_if(state.watch_silence, [](const auto& entry) { return entry.second.expired(); });
  state.watch_silence.emplace_back(rr.type->resource_with_group(), stream->silence_flag());
  return stream;
}

}  // namespace dha::testing::apiserver
