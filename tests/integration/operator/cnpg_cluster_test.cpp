// A CloudNativePG Cluster as the target, scaled through its /scale subresource (builtin.scale):
// the marker on the Cluster itself, spec.instances changed by a patch of .../clusters/db/scale,
// health read from the Cluster's own status (no WorkloadMonitor). The test plays the CNPG
// operator (it sets status.instances and readyInstances) and its exporter.
#include <fmt/format.h>

#include "dha/kube/json.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

constexpr const char* kClusterPath = "/apis/postgresql.cnpg.io/v1/namespaces/tenant-a/clusters/db";

class CnpgClusterTest : public OperatorWorld {
 protected:
  // The chart grants clusters and clusters/scale only with cnpg.enabled.
  CnpgClusterTest() { chart_args_ = {"--set", "cnpg.enabled=true"}; }

  kube::ResourceRef cluster_ref() const { return {"postgresql.cnpg.io", "v1", "clusters", kNamespace, kApp}; }

  void create_cnpg_cluster(int instances) {
    admin_->create(
        cluster_ref().collection(),
        kube::parse_json(fmt::format(R"({{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster",)"
                                     R"("metadata":{{"name":"{}","namespace":"{}"}},"spec":{{"instances":{}}}}})",
                                     kApp, kNamespace, instances)));
    set_ready_instances(instances);
  }

  // What the CNPG operator reports once `ready` instances run.
  void set_ready_instances(int ready) {
    auto c = admin_->get(cluster_ref());
    auto& a = c.GetAllocator();
    c.RemoveMember("status");
    rapidjson::Document status = kube::parse_json(fmt::format(
        R"({{"instances":{0},"readyInstances":{0},"phase":"Cluster in healthy state","currentPrimary":"db-1",)"
        R"("selector":"cnpg.io/cluster=db"}})",
        ready));
    c.AddMember("status", rapidjson::Value(status, a), a);
    admin_->update_status(cluster_ref(), c);
  }

  int instances() {
    auto c = admin_->get(cluster_ref());
    const auto* n = kube::find_path(c, {"spec", "instances"});
    return n != nullptr && n->IsInt() ? n->GetInt() : -1;
  }

  std::string cluster_annotation(const char* name) {
    auto c = admin_->get(cluster_ref());
    const auto* annotations = kube::find_path(c, {"metadata", "annotations"});
    if (annotations == nullptr || !annotations->IsObject() || !annotations->HasMember(name)) return {};
    return (*annotations)[name].GetString();
  }

  // The exporter's series of a bare Cluster: its pods carry cnpg.io/cluster, not the
  // cozystack application labels.
  void set_cluster_load(double connections) {
    const auto ts = testing::unix_millis_now();
    vm_->import_prometheus(
        fmt::format("cnpg_backends_total{{namespace=\"{0}\",pod=\"db-2\",state=\"active\"}} {1} {2}\n"
                    "kube_pod_labels{{namespace=\"{0}\",pod=\"db-2\",label_cnpg_io_cluster=\"{3}\","
                    "label_cnpg_io_instance_role=\"replica\"}} 1 {2}\n"
                    "kube_pod_labels{{namespace=\"{0}\",pod=\"db-1\",label_cnpg_io_cluster=\"{3}\","
                    "label_cnpg_io_instance_role=\"primary\"}} 1 {2}\n",
                    kNamespace, connections, ts, kApp));
  }

  // Successful writes to the Cluster and its subresources, "METHOD path body".
  std::vector<testing::AuditEntry> cluster_writes() {
    std::vector<testing::AuditEntry> out;
    for (auto& e : cluster_->audit())
      if (e.method != "GET" && e.path.rfind(kClusterPath, 0) == 0 && e.path != std::string(kClusterPath) + "/status" &&
          e.status < 300)
        out.push_back(e);
    return out;
  }
};

TEST_F(CnpgClusterTest, ScalesAClusterThroughItsScaleSubresourceOneStepAtATime) {
  create_cnpg_cluster(2);
  set_cluster_load(250);  // 250 connections / target 100 -> 3 read replicas + primary = 4
  DhaOptions o;
  o.api_group = "postgresql.cnpg.io";
  o.kind = "Cluster";
  create_dha(o);
  start_operator();

  ASSERT_TRUE(eventually([&] { return instances() == 3; }, 30s)) << "no scale to 3";
  EXPECT_EQ(cluster_annotation("autoscaling.cozystack.io/managed-by"), kDha);
  // Single-flight on the Cluster's own readyInstances.
  EXPECT_TRUE(holds_for([&] { return instances() == 3; }, 3s));
  EXPECT_TRUE(eventually([&] { return condition("AbleToScale") == "ScaleInFlight"; }, 10s));
  set_ready_instances(3);
  ASSERT_TRUE(eventually([&] { return instances() == 4; }, 30s)) << "no scale to 4";
  set_ready_instances(4);
  const auto settled = wait_for_dha(
      [](const rapidjson::Value& d) {
        return status_int_of(d, "currentReplicas") == 4 && condition_of(d, "AbleToScale") == "Ready";
      },
      20s);
  ASSERT_TRUE(settled.reached) << settled.describe();
  EXPECT_TRUE(holds_for([&] { return instances() == 4; }, 2s));

  // Each step: the marker and the applied count on the Cluster, then the count through /scale.
  const auto writes = cluster_writes();
  std::vector<std::string> seen;
  for (const auto& w : writes)
    seen.push_back(w.method + " " + w.path.substr(std::string(kClusterPath).size()) + " " + w.body);
  ASSERT_EQ(writes.size(), 4u) << ::testing::PrintToString(seen);
  for (const auto& w : writes) EXPECT_EQ(w.username, kOperatorA) << w.path;
  EXPECT_EQ(writes[0].path, kClusterPath);
  EXPECT_NE(writes[0].body.find("\"autoscaling.cozystack.io/applied-replicas\":\"3\""), std::string::npos)
      << writes[0].body;
  EXPECT_EQ(writes[1].method + " " + writes[1].path, std::string("PATCH ") + kClusterPath + "/scale");
  EXPECT_NE(writes[1].body.find("\"replicas\":3"), std::string::npos) << writes[1].body;
  EXPECT_EQ(writes[3].path, std::string(kClusterPath) + "/scale");
  EXPECT_NE(writes[3].body.find("\"replicas\":4"), std::string::npos) << writes[3].body;
  // The /scale write carries the resourceVersion the marker patch just left, so a change made
  // between the two is refused rather than written over.
  for (std::size_t i : {std::size_t{1}, std::size_t{3}}) {
    const std::string marker_read_at =
        kube::string_at(kube::parse_json(writes[i - 1].body), {"metadata", "resourceVersion"});
    const std::string scale_at = kube::string_at(kube::parse_json(writes[i].body), {"metadata", "resourceVersion"});
    ASSERT_FALSE(scale_at.empty()) << "a /scale write without a resourceVersion: " << writes[i].body;
    EXPECT_GT(std::stoll(scale_at), std::stoll(marker_read_at))
        << "the version the marker patch left, not the one it was sent on: " << writes[i].body;
  }

  EXPECT_EQ(events("Scaled"),
            (std::vector<std::string>{
                "scaled Cluster/db replicas 2 -> 3; reason: ReadConnections 250/100 per read replica above target",
                "scaled Cluster/db replicas 3 -> 4; reason: ReadConnections 125/100 per read replica above target"}));
  EXPECT_EQ(status_int("lastAppliedReplicas"), 4);
}

}  // namespace
}  // namespace dha::optest
