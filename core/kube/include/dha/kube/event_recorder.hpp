#pragma once
// core/v1 Events with count aggregation: recording the same (object, type, reason, message)
// again PATCHes the existing Event's count and lastTimestamp instead of creating a new one
// (client-go's EventCorrelator), and a per-object spam filter in front of both (EventSpamFilter:
// a burst, then one per interval; what it drops is logged at debug level and counted in
// dropped()). Events are best effort: a failure is
// logged, never thrown — a reconcile must not fail because an Event could not be written.
// Thread-safe.
//
//   EventRecorder events(client, "db-autoscaler");
//   events.record(ObjectReference::of(dha), EventType::Normal, "ScaledUp", "3 -> 4: cpu above target");

#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/event_spam_filter.hpp"

namespace dha::kube {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;
  static ObjectReference of(const rapidjson::Value& obj);
};

enum class EventType { Normal, Warning };

class EventRecorder {
 public:
  static constexpr std::size_t kMaxTracked = 4096;  // aggregation memory; oldest forgotten first
  static constexpr std::size_t kMaxMessage = 1024;

  EventRecorder(Client& client, std::string component, std::string host = {},
                const Clock& clock = SystemClock::instance(), EventSpamFilterOptions spam = {});

  // Returns false when the Event was not written: the spam filter held it back, or the write
  // failed (logged).
  bool record(const ObjectReference& involved, EventType type, std::string_view reason, std::string_view message);
  // Events the spam filter held back so far.
  std::size_t dropped() const;

 private:
  struct Seen {
    std::string event_name;
    std::string event_namespace;
    int count = 0;
    std::string first_timestamp;
    std::uint64_t order = 0;
  };
  bool create(const ObjectReference& involved, EventType type, std::string_view reason, const std::string& message,
              Seen& seen, const std::string& now);

  Client& client_;
  const std::string component_;
  const std::string host_;
  const Clock& clock_;
  mutable std::mutex mu_;
  EventSpamFilter spam_;
  std::map<std::string, Seen> seen_;
  std::uint64_t next_order_ = 0;
};

// metav1.Time text: "2026-11-30T01:02:03Z".
std::string format_time(std::chrono::system_clock::time_point t);

}  // namespace dha::kube
