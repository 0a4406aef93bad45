// Every query of every engine plugin in this repository, loaded as the host loads it, passes the
// host's tenancy check for hostile target names — so the check and the plugins agree, and a
// plugin change that drops a namespace matcher fails here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "tenancy/namespace_scope.hpp"
#include "tenancy/query_template.hpp"

namespace dha::tenancy {
namespace {

namespace json = sdk::json;

TEST(PluginQueries, EveryEngineQueryIsScopedToTheTargetNamespace) {
  const std::vector<std::string> files{DHA_PLUGIN_FILES};
  ASSERT_EQ(files.size(), 4u);
  const std::vector<TargetLabels> targets{
      {"tenant-a", "db", "postgres-db"},
      {"tenant-a", R"(x"} or vector(1) or foo{a=")", "r"},
      {"tenant-a", "x\\", "y\n"},
  };
  int checked = 0;
  for (const auto& file : files) {
    plugin_host::PluginRegistry registry;
    registry.load_file(file);
    for (const auto& info : registry.plugins()) {
      auto instance = registry.create(info.id);
      ASSERT_NE(instance->engine(), nullptr) << file;
      const auto kinds = instance->call(instance->engine()->targets);
      ASSERT_TRUE(kinds.ok()) << kinds.error;
      const json::Document kinds_doc = json::parse(kinds.output, "targets");
      for (const sdk::TargetKind& kind : sdk::targets_from_json(kinds_doc)) {
        for (const TargetLabels& t : targets) {
          const sdk::QueryRequest request{t.namespace_name, t.name,    t.release,
                                          kind.api_group,   kind.kind, {"ReadConnections", "ReadCPUUtilization"}};
          const auto r = instance->call(instance->engine()->queries, request.to_json());
          ASSERT_TRUE(r.ok()) << r.error;
          const json::Document doc = json::parse(r.output, "queries");
          const sdk::Queries q = sdk::Queries::from_json(doc);
          EXPECT_EQ(q.driver.size(), 2u) << info.id << " " << kind.kind;
          std::vector<std::string> all{q.lag_query, q.write_activity, q.ready_estimate};
          for (const auto& [type, tmpl] : q.driver) all.push_back(tmpl);
          if (q.grouped) {  // namespace-wide queries: checked the same, and they name no target
            std::vector<std::string> grouped{q.grouped->lag_query, q.grouped->write_activity, q.grouped_ready_estimate};
            for (const auto& [type, tmpl] : q.grouped->driver) grouped.push_back(tmpl);
            for (const std::string& tmpl : grouped) EXPECT_TRUE(is_namespace_wide(tmpl)) << info.id << ": " << tmpl;
            all.insert(all.end(), grouped.begin(), grouped.end());
          }
          for (const std::string& tmpl : all) {
            if (tmpl.empty()) continue;  // no signal (Redis lag)
            const ScopedQuery scoped = render_scoped_query(tmpl, t);
            EXPECT_TRUE(scoped.ok()) << info.id << " " << kind.kind << ": " << scoped.refusal << "\n" << tmpl;
            EXPECT_EQ(namespace_scope_violation(scoped.query, "tenant-b").empty(), false)
                << "the same query must not pass for another namespace";
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GE(checked, 4 * 3 * 3);
}

}  // namespace
}  // namespace dha::tenancy
