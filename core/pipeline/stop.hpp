#pragma once

#include <cstdint>
#include <optional>
#include <string>

// Why a reconcile ends before deciding: the condition reason and message the status writer
// reports, and the replica count when it is known.
namespace dha::pipeline {

inline constexpr const char* kInvalidSpec = "InvalidSpec";
inline constexpr const char* kNoAdapter = "NoAdapter";
inline constexpr const char* kNotScalable = "NotScalable";

struct Stop {
  std::string reason;
  std::string message;
  std::optional<std::int32_t> current;
};

}  // namespace dha::pipeline
