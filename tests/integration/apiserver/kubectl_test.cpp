// kubectl 1.32 as the client: the flows the issue's "Done when" lists, against a real
// TLS server on loopback.

#include "test_support.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

namespace dha::testing::test {
namespace {

constexpr const char* kDha = R"(apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata:
  name: pg-reads
  namespace: default
spec:
  targetRef: {kind: Postgres, name: db1}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: ReadConnections
    target: {averageValue: "100"}
)";

constexpr const char* kPostgres = R"(apiVersion: apps.cozystack.io/v1alpha1
kind: Postgres
metadata:
  name: db1
  namespace: default
spec:
  replicas: 3
  quorum: {maxSyncReplicas: 1}
)";

class KubectlTest : public ApiServerTest {
 protected:
  void apply_dha_crd() {
    auto r = kubectl("apply -f " + dha_crd_path());
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
};

TEST_F(KubectlTest, ApplyCrdAndObjectThenGetShowsPrinterColumns) {
  apply_dha_crd();
  auto applied = kubectl("apply -f -", kDha);
  ASSERT_EQ(applied.exit_code, 0) << applied.output;
  EXPECT_NE(applied.output.find("databasehorizontalautoscaler.autoscaling.cozystack.io/pg-reads created"),
            std::string::npos)
      << applied.output;
  auto get = kubectl("get dha");
  ASSERT_EQ(get.exit_code, 0) << get.output;
  // Printer columns (docs/behaviour.md#printer-columns), in order, then the values of this object.
  auto header = get.output.substr(0, get.output.find('\n'));
  std::vector<std::string> columns = {"NAME", "TARGET", "METRICS", "MIN", "MAX", "CURRENT", "DESIRED", "REASON"};
  std::size_t pos = 0;
  for (const auto& c : columns) {
    auto found = header.find(c, pos);
    ASSERT_NE(found, std::string::npos) << "column " << c << " missing or out of order in: " << header;
    pos = found + c.size();
  }
  EXPECT_NE(get.output.find("pg-reads"), std::string::npos);
  EXPECT_EQ(get.output.find("Warning"), std::string::npos) << get.output;
  // Applying the same manifest again is a no-op for kubectl and the server.
  auto again = kubectl("apply -f -", kDha);
  EXPECT_NE(again.output.find("unchanged"), std::string::npos) << again.output;
}

TEST_F(KubectlTest, CelRuleRejectsMaxBelowMin) {
  apply_dha_crd();
  std::string bad = kDha;
  bad.replace(bad.find("maxReplicas: 5"), 14, "maxReplicas: 2");
  bad.replace(bad.find("minReplicas: 2"), 14, "minReplicas: 3");
  auto r = kubectl("apply -f -", bad);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("maxReplicas must be greater than or equal to minReplicas"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("is invalid"), std::string::npos) << r.output;
}

TEST_F(KubectlTest, InvalidObjectGets422NamingTheField) {
  apply_dha_crd();
  std::string bad = kDha;
  bad.replace(bad.find("maxReplicas: 5"), 14, "maxReplicas: 1");
  auto r = kubectl("apply -f -", bad);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(
                "spec.maxReplicas: Invalid value: 1: spec.maxReplicas in body should be greater than or equal to 2"),
            std::string::npos)
      << r.output;
  auto missing =
      kubectl("create -f -", std::string(kDha).replace(std::string(kDha).find("  minReplicas: 2\n"), 16, ""));
  EXPECT_NE(missing.output.find("spec.minReplicas: Required value"), std::string::npos) << missing.output;
}

TEST_F(KubectlTest, PatchMergeChangesSpecAndBumpsGeneration) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  auto before = kubectl("get postgres db1 -o jsonpath={.metadata.generation}/{.metadata.resourceVersion}");
  auto patched = kubectl("patch postgres db1 --type merge -p '{\"spec\":{\"replicas\":5}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.output;
  EXPECT_NE(patched.output.find("patched"), std::string::npos);
  auto after =
      kubectl("get postgres db1 -o jsonpath={.spec.replicas}/{.metadata.generation}/{.spec.quorum.maxSyncReplicas}");
  EXPECT_EQ(after.output, "5/2/1") << before.output;
  // A status-only write does not touch generation (status subresource).
  auto status = kubectl("patch postgres db1 --subresource status --type merge -p '{\"status\":{\"ready\":true}}'");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_EQ(kubectl("get postgres db1 -o jsonpath={.metadata.generation}/{.status.ready}").output, "2/true");
  // A JSON patch too.
  auto json_patch =
      kubectl("patch postgres db1 --type json -p '[{\"op\":\"replace\",\"path\":\"/spec/replicas\",\"value\":4}]'");
  ASSERT_EQ(json_patch.exit_code, 0) << json_patch.output;
  EXPECT_EQ(kubectl("get pg db1 -o jsonpath={.spec.replicas}").output, "4");
}

TEST_F(KubectlTest, DeleteWithFinalizerWaitsForTheLastFinalizer) {
  std::string held = kPostgres;
  held.replace(held.find("  namespace: default\n"), 21,
               "  namespace: default\n  finalizers: [autoscaling.cozystack.io/finalizer]\n");
  ASSERT_EQ(kubectl("apply -f -", held).exit_code, 0);
  auto del = kubectl("delete postgres db1 --wait=false");
  ASSERT_EQ(del.exit_code, 0) << del.output;
  auto marked = kubectl("get postgres db1 -o jsonpath={.metadata.deletionTimestamp}");
  ASSERT_EQ(marked.exit_code, 0) << marked.output;
  EXPECT_FALSE(marked.output.empty()) << "deletionTimestamp must be set while a finalizer remains";
  auto release = kubectl("patch postgres db1 --type merge -p '{\"metadata\":{\"finalizers\":null}}'");
  ASSERT_EQ(release.exit_code, 0) << release.output;
  auto gone = kubectl("get postgres db1");
  EXPECT_NE(gone.exit_code, 0);
  EXPECT_NE(gone.output.find("postgreses.apps.cozystack.io \"db1\" not found"), std::string::npos) << gone.output;
}

TEST_F(KubectlTest, DeleteWithoutFinalizerWaitsAndReturns) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  auto del = kubectl("delete postgres db1 --timeout=10s");  // waits with a watch until gone
  ASSERT_EQ(del.exit_code, 0) << del.output;
  EXPECT_NE(del.output.find("deleted"), std::string::npos);
}

TEST_F(KubectlTest, StaleReplaceGetsConflict) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  auto stale = kubectl("get postgres db1 -o yaml");
  ASSERT_EQ(kubectl("patch postgres db1 --type merge -p '{\"spec\":{\"replicas\":4}}'").exit_code, 0);
  auto r = kubectl("replace -f -", stale.output);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("Operation cannot be fulfilled on postgreses.apps.cozystack.io \"db1\": the object has been "
                          "modified; please apply your changes to the latest version and try again"),
            std::string::npos)
      << r.output;
}

TEST_F(KubectlTest, WatchSeesAddedModifiedDeletedInOrder) {
  auto watcher = std::async(std::launch::async, [this] {
    return kubectl(
        "get postgreses --watch --output-watch-events -o "
        "custom-columns=E:.type,N:.object.metadata.name,R:.object.spec.replicas --no-headers --request-timeout=4s");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // kubectl discovery + LIST + WATCH
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  ASSERT_EQ(kubectl("patch postgres db1 --type merge -p '{\"spec\":{\"replicas\":7}}'").exit_code, 0);
  ASSERT_EQ(kubectl("delete postgres db1").exit_code, 0);
  auto out = watcher.get().output;
  auto added = out.find("ADDED");
  auto modified = out.find("MODIFIED");
  auto deleted = out.find("DELETED");
  ASSERT_NE(added, std::string::npos) << out;
  ASSERT_NE(modified, std::string::npos) << out;
  ASSERT_NE(deleted, std::string::npos) << out;
  EXPECT_LT(added, modified);
  EXPECT_LT(modified, deleted);
}

TEST_F(KubectlTest, ScaleSubresourceOfCnpgCluster) {
  auto created = kubectl(
      "apply -f -", "apiVersion: postgresql.cnpg.io/v1\nkind: Cluster\nmetadata: {name: pg}\nspec: {instances: 2}\n");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  auto scaled = kubectl("scale cluster pg --replicas=4");
  ASSERT_EQ(scaled.exit_code, 0) << scaled.output;
  EXPECT_EQ(kubectl("get cluster pg -o jsonpath={.spec.instances}/{.metadata.generation}").output, "4/2");
  auto scale = kubectl("get --raw /apis/postgresql.cnpg.io/v1/namespaces/default/clusters/pg/scale");
  EXPECT_NE(scale.output.find("\"kind\":\"Scale\""), std::string::npos) << scale.output;
  EXPECT_NE(scale.output.find("\"replicas\":4"), std::string::npos) << scale.output;
}

TEST_F(KubectlTest, DescribeExplainAndNamespaces) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  auto describe = kubectl("describe postgres db1");
  ASSERT_EQ(describe.exit_code, 0) << describe.output;
  EXPECT_NE(describe.output.find("Replicas:"), std::string::npos) << describe.output;
  auto explain = kubectl("explain cluster.spec.instances");
  ASSERT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_NE(explain.output.find("FIELD: instances <integer>"), std::string::npos) << explain.output;
  auto ns = kubectl("apply -f -", "apiVersion: v1\nkind: Namespace\nmetadata: {name: tenant-a}\n");
  ASSERT_EQ(ns.exit_code, 0) << ns.output;
  auto all = kubectl("get namespaces");
  EXPECT_NE(all.output.find("tenant-a"), std::string::npos);
  EXPECT_NE(all.output.find("Active"), std::string::npos);
}

TEST_F(KubectlTest, EditThroughAnEditorScript) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  std::string editor = dir + "/editor.sh";
  write_file(editor, "#!/bin/sh\nsed -i 's/replicas: 3/replicas: 6/' \"$1\"\n");
  std::filesystem::permissions(editor, std::filesystem::perms::owner_all);
  auto r = run_command("EDITOR=" + editor + " HOME=" + dir + " /usr/bin/kubectl --kubeconfig " + kubeconfig +
                       " --cache-dir " + dir + "/cache edit postgres db1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(kubectl("get postgres db1 -o jsonpath={.spec.replicas}").output, "6");
}

TEST_F(KubectlTest, TypedGeneratorsSendingProtobufWork) {
  // kubectl's `create <kind>` generators send application/vnd.kubernetes.protobuf.
  auto ns = kubectl("create namespace tenant-b");
  ASSERT_EQ(ns.exit_code, 0) << ns.output;
  auto cm = kubectl("create configmap settings -n tenant-b --from-literal=mode=fast --from-literal=size=3");
  ASSERT_EQ(cm.exit_code, 0) << cm.output;
  EXPECT_EQ(kubectl("get configmap settings -n tenant-b -o jsonpath={.data.mode}/{.data.size}").output, "fast/3");
  auto secret = kubectl("create secret generic creds -n tenant-b --from-literal=password=s3cret");
  ASSERT_EQ(secret.exit_code, 0) << secret.output;
  EXPECT_EQ(kubectl("get secret creds -n tenant-b -o jsonpath={.data.password}").output, "czNjcmV0");
  auto quota = kubectl("create quota q -n tenant-b --hard=count/postgreses.apps.cozystack.io=4");
  ASSERT_EQ(quota.exit_code, 0) << quota.output;
  EXPECT_EQ(
      kubectl("get quota q -n tenant-b -o 'jsonpath={.status.hard.count/postgreses\\.apps\\.cozystack\\.io}'").output,
      "4");
  auto labels = kubectl("get namespace tenant-b -o 'jsonpath={.metadata.labels.kubernetes\\.io/metadata\\.name}'");
  EXPECT_EQ(labels.output, "tenant-b");
}

TEST_F(KubectlTest, ServerSideApplyCreatesThenMerges) {
  auto first = kubectl("apply --server-side -f -", kPostgres);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("serverside-applied"), std::string::npos) << first.output;
  std::string changed = kPostgres;
  changed.replace(changed.find("replicas: 3"), 11, "replicas: 5");
  auto second = kubectl("apply --server-side -f -", changed);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_EQ(kubectl("get pg db1 -o jsonpath={.spec.replicas}/{.spec.quorum.maxSyncReplicas}").output, "5/1");
}

TEST_F(KubectlTest, GetWatchPrintsTableRows) {
  ASSERT_EQ(kubectl("apply -f -", kPostgres).exit_code, 0);
  auto watcher = std::async(std::launch::async, [this] { return kubectl("get postgres -w --request-timeout=3s"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_EQ(kubectl("patch postgres db1 --type merge -p '{\"spec\":{\"replicas\":8}}'").exit_code, 0);
  auto out = watcher.get().output;
  EXPECT_NE(out.find("REPLICAS"), std::string::npos) << out;
  EXPECT_NE(out.find("db1"), std::string::npos) << out;
  EXPECT_NE(out.find("8"), std::string::npos) << out;
}

}  // namespace
}  // namespace dha::testing::test
