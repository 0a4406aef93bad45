#pragma once

#include <stdexcept>
#include <string>

#include "dha/abi.h"

namespace dha::sdk {

// The one exception type a plugin throws on purpose. Its status crosses the ABI unchanged (see
// the barrier in export.hpp); any other exception becomes DHA_INTERNAL.
class Error : public std::runtime_error {
 public:
  Error(dha_status status, const std::string& message)
      : std::runtime_error(message), status_(status == DHA_OK ? DHA_UNKNOWN : status) {}

  dha_status status() const noexcept { return status_; }

 private:
  dha_status status_;
};

// Readable name of a status code, for messages and logs.
inline const char* status_name(dha_status status) noexcept {
  switch (status) {
    case DHA_OK:
      return "OK";
    case DHA_CANCELLED:
      return "CANCELLED";
    case DHA_UNKNOWN:
      return "UNKNOWN";
    case DHA_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case DHA_DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case DHA_NOT_FOUND:
      return "NOT_FOUND";
    case DHA_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case DHA_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case DHA_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case DHA_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case DHA_ABORTED:
      return "ABORTED";
    case DHA_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case DHA_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case DHA_INTERNAL:
      return "INTERNAL";
    case DHA_UNAVAILABLE:
      return "UNAVAILABLE";
    case DHA_DATA_LOSS:
      return "DATA_LOSS";
    case DHA_UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN_STATUS";
  }
}

}  // namespace dha::sdk
