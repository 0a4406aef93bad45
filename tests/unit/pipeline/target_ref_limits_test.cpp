// targetRef fields as long as the CRD allows and no longer: what the DHA cache keeps is what
// the reconcile accepts.
#include "pipeline/target_ref_limits.hpp"

#include <gtest/gtest.h>

namespace dha::pipeline {
namespace {

TEST(TargetRefLimits, TheSchemasLimitsAndTheRefusalsWording) {
  const std::string group(253, 'g');
  const std::string kind(63, 'K');
  const std::string name(253, 'n');
  EXPECT_EQ(oversized_target_field({group, kind, name}), std::nullopt);
  EXPECT_EQ(oversized_target_field({group + "g", kind, name}),
            "spec.targetRef.apiGroup is 254 characters long; at most 253");
  EXPECT_EQ(oversized_target_field({group, kind + "K", name}), "spec.targetRef.kind is 64 characters long; at most 63");
  EXPECT_EQ(oversized_target_field({group, kind, std::string(300, 'n')}),
            "spec.targetRef.name is 300 characters long; at most 253");
}

}  // namespace
}  // namespace dha::pipeline
