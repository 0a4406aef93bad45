// One DHA per target: the admission decision, case by case.

#include "dha/admission/one_dha_per_target.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <optional>
#include <string>

namespace dha::admission {
namespace {

std::string dha(const std::string& name, const std::string& kind, const std::string& target,
                const std::string& group = "", bool deleting = false) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"tenant-a")" +
         (deleting ? R"(,"deletionTimestamp":"2026-01-01T00:00:00Z")" : "") + R"(},"spec":{"targetRef":{)" +
         (group.empty() ? "" : R"("apiGroup":")" + group + R"(",)") + R"("kind":")" + kind + R"(","name":")" + target +
         R"("}}})";
}

struct Row {
  const char* name;
  std::optional<std::string> old_object;  // absent: a CREATE
  std::string new_object;
  std::vector<std::string> existing;
  bool allowed;
  const char* message;  // expected denial message, "" when allowed
};

class TargetClaimTable : public ::testing::TestWithParam<Row> {};

TEST_P(TargetClaimTable, Decides) {
  const Row& row = GetParam();
  rapidjson::Document old_doc, new_doc;
  if (row.old_object) old_doc.Parse(row.old_object->c_str());
  new_doc.Parse(row.new_object.c_str());
  std::vector<TargetClaim> others;
  for (const auto& text : row.existing) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    ASSERT_FALSE(d.HasParseError()) << text;
    if (auto claim = claim_of(d)) others.push_back(*claim);
  }
  const auto verdict = evaluate_target_claim(row.old_object ? &old_doc : nullptr, &new_doc, others);
  EXPECT_EQ(verdict.allowed, row.allowed);
  EXPECT_EQ(verdict.message, row.message);
  EXPECT_EQ(verdict.code, row.allowed ? 200 : 403);
}

constexpr const char* kDenied =
    "Postgres/db is already scaled by another DatabaseHorizontalAutoscaler in this namespace (kubectl get dha lists "
    "them); two autoscalers on one database would undo each other's changes. Edit that one or delete it first";

INSTANTIATE_TEST_SUITE_P(
    Table, TargetClaimTable,
    ::testing::Values(Row{"first_dha_on_a_target", std::nullopt, dha("first", "Postgres", "db"), {}, true, ""},
                      Row{"second_dha_on_the_same_target",
                          std::nullopt,
                          dha("second", "Postgres", "db"),
                          {dha("first", "Postgres", "db")},
                          false,
                          kDenied},
                      Row{"empty_group_is_the_default_group",
                          std::nullopt,
                          dha("second", "Postgres", "db", "apps.cozystack.io"),
                          {dha("first", "Postgres", "db")},
                          false,
                          kDenied},
                      Row{"other_target_name",
                          std::nullopt,
                          dha("second", "Postgres", "db2"),
                          {dha("first", "Postgres", "db")},
                          true,
                          ""},
                      Row{"other_kind_same_name",
                          std::nullopt,
                          dha("second", "Redis", "db"),
                          {dha("first", "Postgres", "db")},
                          true,
                          ""},
                      Row{"other_group_same_kind",
                          std::nullopt,
                          dha("second", "Cluster", "db", "postgresql.cnpg.io"),
                          {dha("first", "Cluster", "db", "example.com")},
                          true,
                          ""},
                      Row{"holder_being_deleted",
                          std::nullopt,
                          dha("second", "Postgres", "db"),
                          {dha("first", "Postgres", "db", "", true)},
                          true,
                          ""},
                      Row{"the_object_itself_in_the_list",
                          std::nullopt,
                          dha("first", "Postgres", "db"),
                          {dha("first", "Postgres", "db")},
                          true,
                          ""},
                      Row{"update_keeping_the_target",
                          dha("second", "Postgres", "db"),
                          dha("second", "Postgres", "db"),
                          {dha("first", "Postgres", "db")},
                          true,
                          ""},
                      Row{"update_moving_onto_a_claimed_target",
                          dha("second", "Postgres", "other"),
                          dha("second", "Postgres", "db"),
                          {dha("first", "Postgres", "db")},
                          false,
                          kDenied},
                      Row{"no_target_ref",
                          std::nullopt,
                          R"({"metadata":{"name":"x"},"spec":{}})",
                          {dha("first", "Postgres", "db")},
                          true,
                          ""},
                      Row{"not_an_object", std::nullopt, "[]", {dha("first", "Postgres", "db")}, true, ""}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TargetClaims, FromAList) {
  rapidjson::Document list;
  const std::string text = R"({"items":[)" + dha("a", "Postgres", "db") + "," +
                           R"({"metadata":{"name":"broken"},"spec":{}})" + "," +
                           dha("b", "Cluster", "pg", "postgresql.cnpg.io") + "]}";
  list.Parse(text.c_str());
  const auto claims = claims_of_list(list);
  ASSERT_EQ(claims.size(), 2u);
  EXPECT_EQ(claims[0].dha_name, "a");
  EXPECT_EQ(claims[0].api_group, "apps.cozystack.io");
  EXPECT_EQ(claims[1].api_group, "postgresql.cnpg.io");
  EXPECT_EQ(namespace_of(list["items"][0]), "tenant-a");
}

}  // namespace
}  // namespace dha::admission
