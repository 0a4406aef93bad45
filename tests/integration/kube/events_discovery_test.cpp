// Event aggregation and kind → resource discovery against the server.
#include "dha/kube/discovery.hpp"
#include "dha/kube/event_recorder.hpp"
#include "kube_fixture.hpp"
#include "tcp_proxy.hpp"

namespace dha::kube::test {
namespace {

using KubeEventsAndDiscovery = KubeTest;

std::vector<ObjectPtr> events_for(Client& c, const std::string& ns, const std::string& object_name) {
  std::vector<ObjectPtr> out;
  auto list = c.list_all(resources::events(ns));
  for (auto& e : list.list["items"].GetArray())
    if (string_at(e, {"involvedObject", "name"}) == object_name)
      out.push_back(std::make_shared<const rapidjson::Document>(copy_json(e)));
  return out;
}

TEST_F(KubeEventsAndDiscovery, IdenticalEventsAggregateIntoACount) {
  const auto w = client_->create(widgets(), widget("w", 1));
  EventRecorder events(*client_, "db-autoscaler", "pod-a");
  const auto ref = ObjectReference::of(w);
  EXPECT_EQ(ref.kind, "Widget");
  ASSERT_TRUE(events.record(ref, EventType::Normal, "ScaledUp", "1 -> 2"));
  ASSERT_TRUE(events.record(ref, EventType::Normal, "ScaledUp", "1 -> 2"));
  ASSERT_TRUE(events.record(ref, EventType::Normal, "ScaledUp", "1 -> 2"));
  ASSERT_TRUE(events.record(ref, EventType::Warning, "StuckScaling", "4 pods not ready"));

  auto evs = events_for(*client_, "default", "w");
  ASSERT_EQ(evs.size(), 2u);
  std::map<std::string, int> counts;
  for (const auto& e : evs) counts[string_at(*e, {"reason"})] = (*e)["count"].GetInt();
  EXPECT_EQ(counts["ScaledUp"], 3);
  EXPECT_EQ(counts["StuckScaling"], 1);
  for (const auto& e : evs) {
    EXPECT_EQ(string_at(*e, {"involvedObject", "uid"}), uid_of(w));
    EXPECT_EQ(string_at(*e, {"source", "component"}), "db-autoscaler");
  }

  // The Event expired server-side: the next identical one starts a new series.
  client_->remove(resources::events("default").named(name_of(*evs[0])));
  const std::string removed_reason = string_at(*evs[0], {"reason"});
  const std::string removed_message = string_at(*evs[0], {"message"});
  ASSERT_TRUE(events.record(ref, removed_reason == "ScaledUp" ? EventType::Normal : EventType::Warning, removed_reason,
                            removed_message));
  evs = events_for(*client_, "default", "w");
  ASSERT_EQ(evs.size(), 2u);
}

TEST_F(KubeEventsAndDiscovery, AFloodOfEventsOnOneObjectCostsTheSpamFilterBurstOfRequests) {
  const auto w = client_->create(widgets(), widget("spammed", 1));
  const auto other = client_->create(widgets(), widget("quiet", 1));
  EventRecorder events(*client_, "db-autoscaler", "pod-a");
  cluster_->clear_audit();
  int written = 0;
  // 150 spec writes, each with its own message (a new invalid value each time).
  for (int i = 0; i < 150; ++i)
    written +=
        events.record(ObjectReference::of(w), EventType::Warning, "InvalidSpec", "maxReplicas " + std::to_string(i))
            ? 1
            : 0;
  EXPECT_EQ(written, 25);
  EXPECT_EQ(events.dropped(), 125u);
  std::size_t event_requests = 0;
  for (const auto& e : cluster_->audit())
    if (e.path.find("/events") != std::string::npos) ++event_requests;
  EXPECT_EQ(event_requests, 25u);
  EXPECT_EQ(events_for(*client_, "default", "spammed").size(), 25u);
  EXPECT_TRUE(events.record(ObjectReference::of(other), EventType::Normal, "Scaled", "1 -> 2"))
      << "another object's budget";
}

TEST_F(KubeEventsAndDiscovery, RecordingIntoAMissingServerIsReportedNotThrown) {
  const auto w = client_->create(widgets(), widget("w", 1));
  testsupport::TcpProxy proxy(server_port());  // the server goes away as the recorder's client sees it
  Client via_proxy(config_via(proxy.port()));
  EventRecorder events(via_proxy, "db-autoscaler");
  proxy.down();
  EXPECT_FALSE(events.record(ObjectReference::of(w), EventType::Normal, "X", "y"));
}

TEST_F(KubeEventsAndDiscovery, ResolvesKindsToPluralsAndRefreshesOnMiss) {
  Discovery d(*client_, Duration::zero());
  const auto cm = d.resolve("", "v1", "ConfigMap");
  EXPECT_EQ(cm.plural, "configmaps");
  EXPECT_TRUE(cm.namespaced);
  const auto w = d.resolve("test.dha.io", "v1", "Widget");
  EXPECT_EQ(w.plural, "widgets");
  EXPECT_TRUE(w.has_status);
  EXPECT_TRUE(w.has_scale);
  EXPECT_EQ(d.ref_for("test.dha.io/v1", "Widget", "t", "x"), (ResourceRef{"test.dha.io", "v1", "widgets", "t", "x"}));
  EXPECT_EQ(d.ref_for("v1", "Namespace", "ignored", "t"), (ResourceRef{"", "v1", "namespaces", "", "t"}));
  const int fetches = d.fetch_count();
  d.resolve("", "v1", "ConfigMap");
  EXPECT_EQ(d.fetch_count(), fetches) << "a known kind is served from the cache";

  try {
    d.resolve("test.dha.io", "v1", "Gadget");
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::NotFound);
  }
  // A CRD installed after start is found on the next miss.
  install_crd(R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.dha.io}
spec:
  group: test.dha.io
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)");
  const auto g = d.resolve("test.dha.io", "v1", "Gadget");
  EXPECT_EQ(g.plural, "gadgets");
  EXPECT_FALSE(g.namespaced);
  EXPECT_THROW(d.resolve("nope.example.com", "v1", "Thing"), ApiError);
}

TEST_F(KubeEventsAndDiscovery, MissRefreshIsRateLimitedPerGroupVersion) {
  FakeClock clock;
  Discovery d(*client_, std::chrono::seconds(10), clock);
  d.resolve("", "v1", "ConfigMap");
  const int fetches = d.fetch_count();
  EXPECT_THROW(d.resolve("", "v1", "NoSuchKind"), ApiError);
  EXPECT_THROW(d.resolve("", "v1", "NoSuchKind"), ApiError);
  EXPECT_EQ(d.fetch_count(), fetches) << "misses within the interval use the cache";
  clock.advance(std::chrono::seconds(10));
  EXPECT_THROW(d.resolve("", "v1", "NoSuchKind"), ApiError);
  EXPECT_EQ(d.fetch_count(), fetches + 1);
}

}  // namespace
}  // namespace dha::kube::test
