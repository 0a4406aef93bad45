// Each verb of the client against the API server over HTTPS (embedded, or real with DHA_TEST_KUBE=real).
#include <fmt/format.h>
#include <algorithm>
#include <thread>

#include "kube_fixture.hpp"

namespace dha::kube::test {
namespace {

using KubeClientVerbs = KubeTest;

TEST_F(KubeClientVerbs, CreateGetUpdateDelete) {
  const auto created = client_->create(configmaps(), configmap("cm1"));
  EXPECT_EQ(name_of(created), "cm1");
  EXPECT_FALSE(resource_version_of(created).empty());
  EXPECT_FALSE(uid_of(created).empty());

  auto got = client_->get(configmaps().named("cm1"));
  EXPECT_EQ(string_at(got, {"data", "k"}), "v");

  got["data"]["k"].SetString("changed", got.GetAllocator());
  const auto updated = client_->update(configmaps().named("cm1"), got);
  EXPECT_EQ(string_at(updated, {"data", "k"}), "changed");
  EXPECT_NE(resource_version_of(updated), resource_version_of(created));

  client_->remove(configmaps().named("cm1"));
  EXPECT_FALSE(client_->get_if_exists(configmaps().named("cm1")).has_value());
}

TEST_F(KubeClientVerbs, TypedErrors) {
  try {
    client_->get(configmaps().named("absent"));
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::NotFound);
    EXPECT_EQ(e.http_status(), 404);
  }
  client_->create(configmaps(), configmap("dup"));
  try {
    client_->create(configmaps(), configmap("dup"));
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::AlreadyExists);
  }
  try {
    client_->remove(configmaps().named("absent"));
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::NotFound);
  }
  // Schema violation on a CRD: 422 Invalid with a cause naming the field.
  try {
    client_->create(widgets(), widget("w-bad", -1));
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Invalid) << e.what();
    ASSERT_FALSE(e.causes().empty());
    EXPECT_NE(e.causes()[0].field.find("replicas"), std::string::npos) << e.causes()[0].field;
  }
  // A malformed patch is refused before it is sent.
  EXPECT_THROW(client_->merge_patch(configmaps().named("dup"), "{not json"), JsonError);
}

TEST_F(KubeClientVerbs, StaleUpdateConflictsAndUpdateWithRetryRecovers) {
  client_->create(widgets(), widget("w", 1));
  auto stale = client_->get(widgets().named("w"));
  client_->merge_patch(widgets().named("w"), R"({"spec":{"color":"red"}})");
  try {
    client_->update(widgets().named("w"), stale);
    FAIL() << "stale update accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Conflict);
    EXPECT_EQ(e.http_status(), 409);
  }

  // A competing writer changes the object between our GET and PUT, once.
  cluster_->clear_audit();
  int calls = 0;
  const auto result = client_->update_with_retry(widgets().named("w"), [&](rapidjson::Document& obj) {
    if (++calls == 1) client_->merge_patch(widgets().named("w"), R"({"spec":{"color":"blue"}})");
    obj["spec"]["replicas"].SetInt(5);
    return true;
  });
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(result["spec"]["replicas"].GetInt(), 5);
  EXPECT_EQ(string_at(result, {"spec", "color"}), "blue") << "the retry must re-read, not overwrite the other write";
  int puts = 0, conflicts = 0;
  for (const auto& a : cluster_->audit()) {
    if (a.method != "PUT") continue;
    ++puts;
    if (a.status == 409) ++conflicts;
  }
  EXPECT_EQ(puts, 2);
  EXPECT_EQ(conflicts, 1);

  // A persistent conflict gives up after the attempt budget.
  EXPECT_THROW(client_->update_with_retry(
                   widgets().named("w"),
                   [&](rapidjson::Document& obj) {
                     client_->merge_patch(widgets().named("w"),
                                          R"({"spec":{"color":")" + std::to_string(calls++) + R"("}})");
                     obj["spec"]["replicas"].SetInt(6);
                     return true;
                   },
                   3),
               ApiError);
}

TEST_F(KubeClientVerbs, MergePatchSendsFieldManagerAndDryRunStoresNothing) {
  client_->create(widgets(), widget("w", 1));
  cluster_->clear_audit();
  const auto patched = client_->merge_patch(widgets().named("w"), R"({"spec":{"replicas":3}})");
  EXPECT_EQ(patched["spec"]["replicas"].GetInt(), 3);
  const auto audit = cluster_->audit();
  ASSERT_FALSE(audit.empty());
  EXPECT_EQ(audit.back().method, "PATCH");
  if (server_ != nullptr) {  // kube-apiserver's audit log has no content type
    EXPECT_EQ(audit.back().content_type, "application/merge-patch+json");
  }
  EXPECT_NE(audit.back().query.find("fieldManager=db-autoscaler"), std::string::npos) << audit.back().query;

  WriteOptions dry;
  dry.dry_run = true;
  const auto would = client_->merge_patch(widgets().named("w"), R"({"spec":{"replicas":9}})", dry);
  EXPECT_EQ(would["spec"]["replicas"].GetInt(), 9);
  EXPECT_EQ(client_->get(widgets().named("w"))["spec"]["replicas"].GetInt(), 3);
}

TEST_F(KubeClientVerbs, StatusSubresourceOnlyChangesStatus) {
  client_->create(widgets(), widget("w", 2));
  auto obj = client_->get(widgets().named("w"));
  auto& a = obj.GetAllocator();
  rapidjson::Value status(rapidjson::kObjectType);
  status.AddMember("phase", "Ready", a);
  obj.AddMember("status", status, a);
  obj["spec"]["replicas"].SetInt(7);  // ignored by /status
  const auto after_put = client_->update_status(widgets().named("w"), obj);
  EXPECT_EQ(string_at(after_put, {"status", "phase"}), "Ready");
  EXPECT_EQ(after_put["spec"]["replicas"].GetInt(), 2);

  const auto after_patch = client_->patch_status(widgets().named("w"), R"({"status":{"replicas":2}})");
  EXPECT_EQ(after_patch["status"]["replicas"].GetInt(), 2);
  EXPECT_EQ(string_at(after_patch, {"status", "phase"}), "Ready");
}

TEST_F(KubeClientVerbs, ScaleSubresource) {
  client_->create(widgets(), widget("w", 2));
  const auto scale = client_->get_scale(widgets().named("w"));
  EXPECT_EQ(string_at(scale, {"kind"}), "Scale");
  EXPECT_EQ(scale["spec"]["replicas"].GetInt(), 2);
  const auto patched = client_->patch_scale(widgets().named("w"), R"({"spec":{"replicas":4}})");
  EXPECT_EQ(patched["spec"]["replicas"].GetInt(), 4);
  EXPECT_EQ(client_->get(widgets().named("w"))["spec"]["replicas"].GetInt(), 4);
}

// RFC 6902 for actuators that plan a JSON patch: all operations or none, with "test" as a guard.
TEST_F(KubeClientVerbs, JsonPatchAppliesAllOperationsOrNone) {
  client_->create(widgets(), widget("w", 2));
  cluster_->clear_audit();
  const auto patched = client_->json_patch(
      widgets().named("w"),
      R"([{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":3}])");
  EXPECT_EQ(patched["spec"]["replicas"].GetInt(), 3);
  ASSERT_FALSE(cluster_->audit().empty());
  if (server_ != nullptr) {
    EXPECT_EQ(cluster_->audit().back().content_type, "application/json-patch+json");
  }

  // The guard no longer holds (replicas is 3): nothing changes, the server says why.
  try {
    client_->json_patch(
        widgets().named("w"),
        R"([{"op":"test","path":"/spec/replicas","value":2},{"op":"replace","path":"/spec/replicas","value":9}])");
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.http_status(), 422) << e.what();
  }
  EXPECT_EQ(client_->get(widgets().named("w"))["spec"]["replicas"].GetInt(), 3);

  const auto scaled =
      client_->json_patch(widgets().named("w"), R"([{"op":"replace","path":"/spec/replicas","value":5}])", "scale");
  EXPECT_EQ(scaled["spec"]["replicas"].GetInt(), 5);
  EXPECT_EQ(client_->get(widgets().named("w"))["spec"]["replicas"].GetInt(), 5);

  EXPECT_THROW(client_->json_patch(widgets().named("w"), R"({"spec":{"replicas":1}})"), JsonError);
  EXPECT_THROW(client_->json_patch(widgets().named("w"), "[]", "exec"), std::invalid_argument);
}

TEST_F(KubeClientVerbs, ListPaginatesAndSelects) {
  ensure_namespace("pages");
  ensure_namespace("elsewhere");
  for (int i = 0; i < 23; ++i) {
    const std::string labels = i % 2 == 0 ? R"({"parity":"even"})" : R"({"parity":"odd"})";
    client_->create(configmaps("pages"), configmap("cm-" + std::to_string(i), "pages", labels));
  }
  client_->create(configmaps("elsewhere"), configmap("other", "elsewhere"));

  ListOptions page_opts;
  page_opts.limit = 10;
  auto first = client_->list(configmaps("pages"), page_opts);
  EXPECT_EQ(first.list["items"].Size(), 10u);
  ASSERT_FALSE(first.continue_token.empty());
  int pages = 1;
  std::size_t seen = first.list["items"].Size();
  std::string token = first.continue_token;
  while (!token.empty()) {
    ListOptions next = page_opts;
    next.continue_token = token;
    auto page = client_->list(configmaps("pages"), next);
    seen += page.list["items"].Size();
    token = page.continue_token;
    ++pages;
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, 23u);

  ListOptions small;
  small.limit = 4;
  const auto all = client_->list_all(configmaps("pages"), small);
  EXPECT_EQ(all.list["items"].Size(), 23u);
  EXPECT_TRUE(all.continue_token.empty());
  EXPECT_FALSE(all.resource_version.empty());

  ListOptions even;
  even.label_selector = "parity=even";
  EXPECT_EQ(client_->list_all(configmaps("pages"), even).list["items"].Size(), 12u);
  ListOptions notin;
  notin.label_selector = "parity notin (even)";
  EXPECT_EQ(client_->list_all(configmaps("pages"), notin).list["items"].Size(), 11u);
  // All namespaces.
  EXPECT_EQ(client_->list_all(configmaps("")).list["items"].Size() >= 24u, true);
}

// list_pages hands over the pages of list_all one at a time, the first flagged as the start, and
// returns the snapshot's version: the informer's relist holds one page, not the whole list.
TEST_F(KubeClientVerbs, ListPagesHandsOverOnePageAtATime) {
  ensure_namespace("paged");
  for (int i = 0; i < 9; ++i) client_->create(configmaps("paged"), configmap("cm-" + std::to_string(i), "paged"));
  ListOptions opts;
  opts.limit = 4;
  std::vector<std::size_t> sizes;
  std::vector<bool> starts;
  std::vector<std::string> names;
  const std::string snapshot = client_->list_pages(configmaps("paged"), opts, [&](ListPage& page, bool from_start) {
    sizes.push_back(page.list["items"].Size());
    starts.push_back(from_start);
    for (const auto& item : page.list["items"].GetArray()) names.push_back(item["metadata"]["name"].GetString());
  });
  EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 4, 1}));
  EXPECT_EQ(starts, (std::vector<bool>{true, false, false}));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names.size(), 9u);
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end()) << "an object handed over twice";
  EXPECT_FALSE(snapshot.empty());
}

// Pages bounded by bytes: 40 plain ConfigMaps, then 30 that carry 64 KB each. Each page asks
// for at most twice the last page's count and at most what the budget holds at the last page's
// average weight; so the plain ones come in growing pages up to the count limit, and once pages
// of heavy ones have been seen, a page holds what the budget does. No object is lost or handed
// over twice.
TEST_F(KubeClientVerbs, ListPagesBoundedByBytesFollowTheObjectsWeight) {
  ensure_namespace("weighed");
  for (int i = 0; i < 40; ++i) client_->create(configmaps("weighed"), configmap(fmt::format("a-{:02}", i), "weighed"));
  constexpr std::size_t kHeavy = 64 * 1024;
  const std::string padding(kHeavy, 'x');
  for (int i = 0; i < 30; ++i) {
    auto cm = configmap(fmt::format("b-{:02}", i), "weighed");
    cm["data"].AddMember("pad", rapidjson::Value(padding.c_str(), cm.GetAllocator()), cm.GetAllocator());
    client_->create(configmaps("weighed"), cm);
  }
  constexpr std::size_t kBudget = 200 * 1024;
  ListOptions opts;
  opts.limit = 16;
  opts.page_bytes = kBudget;
  struct Page {
    std::size_t count = 0;
    std::size_t bytes = 0;
    bool all_heavy = true;
  };
  std::vector<Page> pages;
  std::vector<std::string> names;
  client_->list_pages(configmaps("weighed"), opts, [&](ListPage& page, bool) {
    Page p{page.list["items"].Size(), page.bytes, true};
    for (const auto& item : page.list["items"].GetArray()) {
      names.push_back(item["metadata"]["name"].GetString());
      p.all_heavy = p.all_heavy && names.back().starts_with("b-");
    }
    pages.push_back(p);
  });
  ASSERT_EQ(names.size(), 70u);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end()) << "an object handed over twice";
  ASSERT_GE(pages.size(), 5u);
  // Plain: one on the first page (nothing is known of their weight yet), then doubling up to
  // the limit.
  EXPECT_EQ(pages[0].count, 1u);
  EXPECT_EQ(pages[1].count, 2u);
  EXPECT_EQ(pages[2].count, 4u);
  EXPECT_EQ(pages[3].count, 8u);
  EXPECT_EQ(pages[4].count, 16u);
  std::size_t full_heavy_pages = 0;
  for (std::size_t i = 1; i < pages.size(); ++i) {
    const Page& last = pages[i - 1];
    const std::size_t fits = std::max<std::size_t>(kBudget / (last.bytes / last.count), 1);
    EXPECT_LE(pages[i].count, std::min<std::size_t>({16, 2 * last.count, fits})) << "page " << i;
    if (last.all_heavy && pages[i].all_heavy && i + 1 < pages.size()) {
      EXPECT_EQ(pages[i].count, kBudget / (kHeavy + 200)) << "page " << i << " after a page of heavy objects";
      EXPECT_LE(pages[i].bytes, kBudget) << "page " << i;
      ++full_heavy_pages;
    }
  }
  EXPECT_GE(full_heavy_pages, 4u);
  // Bounded by count alone, the same list comes in pages of 16.
  ListOptions by_count;
  by_count.limit = 16;
  std::vector<std::size_t> fixed;
  client_->list_pages(configmaps("weighed"), by_count,
                      [&](ListPage& page, bool) { fixed.push_back(page.list["items"].Size()); });
  EXPECT_EQ(fixed, (std::vector<std::size_t>{16, 16, 16, 16, 6}));
}

TEST_F(KubeClientVerbs, ConcurrentRequestsShareTheClient) {
  client_->create(configmaps(), configmap("shared"));
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i)
        if (name_of(client_->get(configmaps().named("shared"))) == "shared") ++ok;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 100);
}

}  // namespace
}  // namespace dha::kube::test
