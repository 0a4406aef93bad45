#pragma once

#include <gtest/gtest.h>

#include "dha/testing/real_kube_skip.hpp"
#include "dha/testing/test_cluster.hpp"

// In a test body or SetUp: stop here when the real kube-apiserver cannot run — a failure, or a
// skip with the reason where scripts/test allowed it (real_kube_may_be_skipped()).
#define DHA_REQUIRE_REAL_KUBE()                                                  \
  do {                                                                           \
    const std::string missing_ = ::dha::testing::real_kube_unavailable_reason(); \
    if (!missing_.empty()) {                                                     \
      if (!::dha::testing::real_kube_may_be_skipped()) FAIL() << missing_;       \
      GTEST_SKIP() << missing_;                                                  \
    }                                                                            \
  } while (false)
