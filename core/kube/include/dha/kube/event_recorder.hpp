#pragma once
// core/v1 Events with count aggregation: recording the same (object, type, reason, message)
// again PATCHes the existing Event's count and lastTimestamp instead of creating a new one
// (client-go's EventCorrelator, without the spam filter). Events are best effort: a failure is
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

  EventRecorder(Client& client, std::string component, std::string host = {}, const Clock& clock = SystemClock::instance());

  // Returns false when the Event could not be written (already logged).
  bool record(const ObjectReference& involved, EventType type, std::string_view reason, std::string_view message);

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
  std::mutex mu_;
  std::map<std::string, Seen> seen_;
  std::uint64_t next_order_ = 0;
};

// metav1.Time text: "2026-11-30T01:02:03Z".
std::string format_time(std::chrono::system_clock::time_point t);

}  // namespace dha::kube
