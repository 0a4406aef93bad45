#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dha/decide/decide.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/event_recorder.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"
#include "dha/status_writer/unpersisted_state.hpp"
#include "host/self_metrics.hpp"

// The built-in status writer: everything a reconcile reports about a DHA goes through here —
// status (conditions, lastDecision with its gate trace, observedGeneration, the decision state),
// events, and the per-DHA gauges and counters — and so does the recovery of a status write
// that failed. The pipeline says what happened; this decides how it reads.
namespace dha::status {

// What observe could not read, naming the object or query: the cause a freeze's condition
// message and Warning event give.
struct Causes {
  std::vector<std::string> health;
  std::vector<std::string> metrics;
};

// One reconcile's view of a DHA's status, from open() to the outcome.
struct Report {
  const rapidjson::Value* dha = nullptr;  // the DHA as read; outlives the report
  std::string ns;
  std::string name;
  std::int64_t now = 0;
  std::int64_t generation = 0;
  model::DhaStatus stored;    // status as read: what a status write compares against
  model::DhaStatus previous;  // stored, plus the decision state a failed status write lost
  model::DhaStatus next;      // what this reconcile will write
  // Status fields that could not be read: written back as stored, and the DHA does not scale.
  std::vector<model::UnreadableField> unreadable;
};

class StatusWriter {
 public:
  StatusWriter(kube::Client& client, kube::EventRecorder& events, op::SelfMetrics& metrics)
      : client_(client), events_(events), metrics_(metrics) {}

  // Reads the DHA's status field by field (an unreadable field is listed in the report; the
  // others are kept) and puts back what an earlier failed write lost.
  Report open(const rapidjson::Value& dha, std::int64_t now);

  // The reconcile stopped before deciding: ScalingActive and AbleToScale False with the reason
  // and message, a Warning event when they are new, status written, gauges frozen. `spec` is
  // null when the spec itself is what is wrong.
  void stopped(Report& report, const std::string& reason, const std::string& message,
               std::optional<std::int32_t> current, const model::DhaSpec* spec = nullptr);

  // Events around carrying a decision out. The conflict event is sent once per conflict (the
  // latch is ScalingLimited=OwnershipConflict in status, so a restart does not repeat it).
  void ownership_conflict(const Report& report, const decide::Decision& d, const std::string& marker);
  void scaled(const Report& report, const decide::Decision& d, const std::string& target_kind,
              const std::string& target_name);
  // The patch failed: nothing is persisted (the state moves only once the patch is in).
  void patch_failed(const Report& report, const decide::Decision& d, const std::string& error);

  // The decision is carried out (or needed nothing): the dry-run event, status (a freeze's
  // message with its causes; an ownership conflict as the AbleToScale reason, above any other),
  // a Warning event when a failure is new, gauges. `observation` gives currentMetrics the
  // metrics that read when another failed (the decision then used none); null: only the
  // decision's.
  void decided(Report& report, const model::DhaSpec& spec, const decide::Decision& d, const Causes& causes = {},
               const model::Observation* observation = nullptr);

  // The DHA is gone: drop what is kept for it.
  void forget(const std::string& ns, const std::string& name);

 private:
  void event(const rapidjson::Value& dha, kube::EventType type, const std::string& reason, const std::string& message);
  // A Warning for a failing condition, once per reason and message (HPA sends one per change too).
  void warn_if_new(const Report& report, const model::Condition& now_failing);

  kube::Client& client_;
  kube::EventRecorder& events_;
  op::SelfMetrics& metrics_;
  UnpersistedStates unpersisted_;
};

}  // namespace dha::status
