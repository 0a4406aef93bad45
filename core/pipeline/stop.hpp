#pragma once

#include <cstdint>
#include <optional>
#include <string>

// Why a reconcile ends before deciding: the condition reason and message the status writer
// reports, and the replica count when it is known.
namespace dha::pipeline {

inline constexpr const char* kInvalidSpec = "InvalidSpec";
// A status field the operator cannot read: scaling waits until it is fixed or removed, since
// the decision state it holds (history, last applied count, backoff) may be what stops one.
inline constexpr const char* kStatusUnreadable = "StatusUnreadable";
inline constexpr const char* kNoAdapter = "NoAdapter";
inline constexpr const char* kNotScalable = "NotScalable";

struct Stop {
  std::string reason;
  std::string message;
  std::optional<std::int32_t> current;
};

}  // namespace dha::pipeline
