// The periodic reconcile is not a flat sync period after the last one but at the namespace's
// phase instant: wherever in the period a DHA was reconciled (created, woken by a watch event),
// its next reconcile is the same instant, never more than a period away.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "../postgres_pipeline_world.hpp"

namespace {

using Kind = dha::testing::ReconcileOutcome::Kind;
using std::chrono::milliseconds;

class RequeuePhase : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world(/*requeue_at_namespace_phase=*/true);
    pipeline_ = &world_->pipeline();
    dha::integration::healthy_db_under_load(*world_, 3, "150");
    world_->create_dha("db-dha", dha::integration::db_dha_spec());
  }

  // When the reconcile at the clock's now asks to run next, in ms since the epoch.
  std::int64_t next_due() {
    const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
    EXPECT_EQ(outcome.kind, Kind::kRequeueAfter) << outcome.error;
    EXPECT_GT(outcome.requeue_after, milliseconds(0));
    EXPECT_LE(outcome.requeue_after, milliseconds(61'000)) << "more than a sync period (60 s) plus the slack";
    return pipeline_->clock().now() * 1000 + outcome.requeue_after.count();
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
};

TEST_F(RequeuePhase, WithoutTheOptionTheTestKitRequeuesAFlatSyncPeriodAsBefore) {
  // Tests written against the kit before SDK 1.2 see the requeue they were written against.
  auto world = dha::integration::postgres_pipeline_world();
  world->create_healthy_target(dha::integration::healthy_postgres(3));
  world->create_dha("db-dha", dha::integration::db_dha_spec());
  const auto outcome = world->pipeline().reconcile("tenant-a", "db-dha");
  ASSERT_EQ(outcome.kind, Kind::kRequeueAfter) << outcome.error;
  EXPECT_EQ(outcome.requeue_after, milliseconds(60'000));
}

TEST_F(RequeuePhase, ReconciledAnywhereInThePeriodTheNextReconcileIsTheNamespacesInstant) {
  const std::int64_t due = next_due();
  for (const int later : {7, 13, 21}) {  // 7, 20 and 41 s after the first
    pipeline_->clock().advance(std::chrono::seconds(later));
    const std::int64_t again = next_due();
    EXPECT_TRUE(again == due || again == due + 60'000)
        << "reconciled at " << pipeline_->clock().now() << ": due at " << again << " ms, the namespace's instant is "
        << due << " ms (or a period later)";
  }
  // On its instant, the next is exactly one period later.
  pipeline_->clock().set(due / 1000 + (due % 1000 != 0 ? 1 : 0));
  const std::int64_t on_phase = next_due();
  EXPECT_EQ((on_phase - due) % 60'000, 0) << "the phase drifted";
}

}  // namespace
