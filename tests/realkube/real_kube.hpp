#pragma once

#include <gtest/gtest.h>

#include "dha/testing/test_cluster.hpp"

// In a test body or SetUp: stop here when the real kube-apiserver cannot run — a failure under
// CI=true, a skip with the reason on a developer's machine.
#define DHA_REQUIRE_REAL_KUBE()                                              \
  do {                                                                       \
    const std::string missing_ = ::dha::testing::real_kube_unavailable_reason(); \
    if (!missing_.empty()) {                                                 \
      if (::dha::testing::running_in_ci()) FAIL() << missing_;               \
      GTEST_SKIP() << missing_;                                              \
    }                                                                        \
  } while (false)
