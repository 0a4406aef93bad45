// The embedded API server's store of watch events: what a watcher resuming from a
// resourceVersion is given, after writes of several kinds and after the history is compacted.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "object_store.hpp"

namespace dha::testing::apiserver {
namespace {

ObjectPtr object_named(const std::string& name) {
  return std::make_shared<const JsonDoc>(parse_json(R"({"metadata":{"name":")" + name + R"("}})"));
}

std::vector<uint64_t> versions_since(const ObjectStore& store, uint64_t since, const std::string& key) {
  std::vector<WatchEvent> events;
  if (!store.events_since(since, key, events)) return {0};
  std::vector<uint64_t> out;
  for (const auto& e : events) out.push_back(e.resource_version);
  return out;
}

// Writes a, b, a, b, a at resourceVersions 1001..1005 (two kinds, alternating).
void alternating_writes(ObjectStore& store) {
  for (int i = 0; i < 5; ++i) {
    const std::string key = i % 2 == 0 ? "/a" : "/b";
    store.put(key, "ns", "x", object_named("x"), store.next_rv(), i < 2 ? "ADDED" : "MODIFIED");
  }
}

TEST(ObjectStoreEvents, ResumingGivesEveryLaterEventOfTheKindInOrder) {
  ObjectStore store(100);
  alternating_writes(store);
  struct Case {
    uint64_t since;
    std::string key;
    std::vector<uint64_t> want;
  };
  const std::vector<Case> cases = {
      {1000, "/a", {1001, 1003, 1005}},
      {1000, "/b", {1002, 1004}},
      {1001, "/a", {1003, 1005}},  // the event at `since` itself was seen
      {1002, "/a", {1003, 1005}},  // `since` is another kind's event
      {1004, "/b", {}},
      {1005, "/a", {}},
      {9999, "/a", {}},  // beyond the newest
      {1000, "/c", {}},  // a kind never written
  };
  for (const auto& c : cases)
    EXPECT_EQ(versions_since(store, c.since, c.key), c.want) << "since " << c.since << " " << c.key;
}

TEST(ObjectStoreEvents, ACompactedVersionIsGoneAndTheRestStillResumes) {
  ObjectStore store(2);  // keeps 1004 and 1005
  alternating_writes(store);
  EXPECT_EQ(store.oldest_available_rv(), 1003u);
  EXPECT_EQ(versions_since(store, 1000, "/a"), std::vector<uint64_t>{0}) << "history no longer reaches back";
  EXPECT_EQ(versions_since(store, 1003, "/a"), std::vector<uint64_t>{1005});
  EXPECT_EQ(versions_since(store, 1003, "/b"), std::vector<uint64_t>{1004});
}

TEST(ObjectStoreEvents, AWriteOutOfVersionOrderIsRefusedBeforeItChangesAnything) {
  ObjectStore store(100);
  alternating_writes(store);
  EXPECT_THROW(store.put("/a", "ns", "x", object_named("late"), 1003, "MODIFIED"), std::logic_error);
  EXPECT_EQ(versions_since(store, 1000, "/a"), (std::vector<uint64_t>{1001, 1003, 1005}));
  EXPECT_EQ(store.get("/a", "ns", "x")->operator[]("metadata")["name"], "x");
}

}  // namespace
}  // namespace dha::testing::apiserver
