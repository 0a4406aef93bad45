#include <gtest/gtest.h>

#include <optional>

#include "dha/sdk/workload_monitor.hpp"

namespace dha::sdk {
namespace {

struct Case {
  const char* name;
  const char* object;
  std::optional<Health> want;  // nullopt: DHA_FAILED_PRECONDITION (the host freezes, HealthUnknown)
};

TEST(SdkWorkloadMonitor, HealthReadingFailsClosed) {
  const Case cases[] = {
      {"operational with count", R"({"status": {"operational": true, "availableReplicas": 3}})", Health{true, 3}},
      {"not operational", R"({"status": {"operational": false, "availableReplicas": 1}})", Health{false, 1}},
      {"zero count omitted by omitempty", R"({"status": {"operational": false}})", Health{false, 0}},
      {"nil operational reads true", R"({"status": {"availableReplicas": 2}})", Health{true, 2}},
      {"float count truncated", R"({"status": {"operational": true, "availableReplicas": 2.7}})", Health{true, 2}},
      {"no status yet", R"({"metadata": {"name": "x"}})", std::nullopt},
      {"empty status", R"({"status": {}})", std::nullopt},
      {"status not an object", R"({"status": "ready"})", std::nullopt},
      {"operational as string", R"({"status": {"operational": "true", "availableReplicas": 1}})", std::nullopt},
      {"count as string", R"({"status": {"operational": true, "availableReplicas": "1"}})", std::nullopt},
  };
  for (const auto& c : cases) {
    const json::Document doc = json::parse(c.object, "object");
    if (c.want) {
      EXPECT_EQ(read_workload_monitor_health(doc), *c.want) << c.name;
    } else {
      try {
        (void)read_workload_monitor_health(doc);
        ADD_FAILURE() << c.name << ": expected FAILED_PRECONDITION";
      } catch (const Error& e) {
        EXPECT_EQ(e.status(), DHA_FAILED_PRECONDITION) << c.name;
      }
    }
  }
}

}  // namespace
}  // namespace dha::sdk
