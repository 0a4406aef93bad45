#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "acmedb_adapter.hpp"

namespace {

dha::sdk::json::Document parse(const char* text) {
  dha::sdk::json::Document d;
  d.Parse(text);
  return d;
}

TEST(AcmeDbAdapter, ReadsTopologyFromTheObject) {
  auto config = parse(R"({"minQuorum": 2})");
  acme::AcmeDbAdapter adapter(dha::sdk::Host{}, config);
  auto object = parse(R"({"metadata": {"name": "orders", "namespace": "tenant-a"},
                          "spec": {"replicas": 3, "quorum": 1}})");
  const auto t = adapter.topology(dha::sdk::ObjectView(object));
  EXPECT_EQ(t.current_replicas, 3);
  EXPECT_EQ(t.quorum_floor, 2);  // the configured minimum wins over the object's smaller value
  EXPECT_TRUE(t.scalable);
  EXPECT_EQ(t.health.name, "acmedb-orders");
}

TEST(AcmeDbAdapter, RefusesShardedClusters) {
  auto config = parse(R"({"minQuorum": 1})");
  acme::AcmeDbAdapter adapter(dha::sdk::Host{}, config);
  auto object = parse(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 3, "sharded": true}})");
  const auto t = adapter.topology(dha::sdk::ObjectView(object));
  EXPECT_FALSE(t.scalable);
  EXPECT_EQ(t.reason, "sharded AcmeDB is not horizontally scalable");
}

TEST(AcmeDbAdapter, ScopesEveryQueryToTheNamespacePlaceholder) {
  auto config = parse(R"({"minQuorum": 1})");
  acme::AcmeDbAdapter adapter(dha::sdk::Host{}, config);
  dha::sdk::QueryRequest request;
  request.namespace_name = "tenant-a";
  request.name = "orders";
  request.metric_types = {"ReadConnections", "ReadCPUUtilization"};
  const auto q = adapter.queries(request);
  ASSERT_EQ(q.driver.size(), 1u);  // CPU is not supported: left out, so the host treats it as unavailable
  EXPECT_NE(q.driver.at("ReadConnections").find(R"(namespace="${namespace}")"), std::string::npos);
  EXPECT_NE(q.lag_query.find(R"(namespace="${namespace}")"), std::string::npos);
}

// The built .so exports the entry point with C linkage, as the host will look it up.
TEST(AcmeDbPlugin, ExportsTheEntryPoint) {
  void* handle = dlopen(ACMEDB_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  auto entry = reinterpret_cast<const dha_plugin_entry* (*)()>(dlsym(handle, "dha_plugin_entry_v1"));
  ASSERT_NE(entry, nullptr);
  const dha_plugin_entry* table = entry();
  EXPECT_EQ(table->abi_major, DHA_ABI_VERSION_MAJOR);
  ASSERT_EQ(table->plugin_count(), 1u);
  EXPECT_STREQ(table->plugin_descriptor(0)->id, "acmedb");
  dlclose(handle);
}

}  // namespace
