// A controller wired like the operator's: primaries (Widgets) enqueue themselves, secondaries
// (ConfigMaps standing in for target and health objects) enqueue their owners via OwnerIndex.
#include <mutex>

#include "dha/kube/controller.hpp"
#include "kube_fixture.hpp"

namespace dha::kube::test {
namespace {

using KubeControllerWiring = KubeTest;

TEST_F(KubeControllerWiring, SecondaryChangesReconcileTheOwner) {
  OwnerIndex owners;
  std::mutex mu;
  std::vector<std::string> reconciled;
  Informer primaries(*client_, widgets(""));
  Informer secondaries(*client_, configmaps(""));
  Controller c("widgets", [&](const std::string& key) -> ReconcileResult {
    {
      std::lock_guard lock(mu);
      reconciled.push_back(key);
    }
    // What the operator does: record which objects this primary depends on.
    const auto obj = primaries.get(key);
    if (!obj) {
      owners.remove_owner(key);
      return Done{};
    }
    const std::string health = string_at(*obj, {"spec", "color"});
    owners.set(key, {secondary_key(secondaries.resource(), namespace_of(*obj), health)});
    return Done{};
  });
  c.watch(primaries);
  c.watch_secondary(secondaries, [&](const rapidjson::Value& obj) {
    return owners.owners_of(secondary_key(secondaries.resource(), obj));
  });
  primaries.start();
  secondaries.start();
  ASSERT_TRUE(primaries.wait_for_sync(std::chrono::seconds(10)));
  ASSERT_TRUE(secondaries.wait_for_sync(std::chrono::seconds(10)));
  c.start();

  auto count = [&](const std::string& key) {
    std::lock_guard lock(mu);
    return std::count(reconciled.begin(), reconciled.end(), key);
  };
  auto w = widget("w", 1);
  w["spec"].AddMember("color", "health-w", w.GetAllocator());
  client_->create(widgets(), w);
  client_->create(widgets(), widget("unrelated", 1));
  ASSERT_TRUE(eventually([&] { return count("default/w") >= 1 && count("default/unrelated") >= 1; }));

  const auto before = count("default/w");
  const auto unrelated_before = count("default/unrelated");
  client_->create(configmaps(), configmap("health-w"));
  ASSERT_TRUE(eventually([&] { return count("default/w") > before; }))
      << "health object change did not reach its owner";
  client_->merge_patch(configmaps().named("health-w"), R"({"data":{"k":"changed"}})");
  ASSERT_TRUE(eventually([&] { return count("default/w") > before + 1; }));
  client_->create(configmaps(), configmap("somebody-elses"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(count("default/unrelated"), unrelated_before) << "an unrelated secondary must not reconcile other owners";
  c.stop();
}

}  // namespace
}  // namespace dha::kube::test
