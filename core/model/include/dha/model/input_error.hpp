#pragma once

#include <stdexcept>
#include <string>

namespace dha::model {

// Bad input in a spec, observation, state or status document. what() is "<field path>: <problem>",
// e.g. "spec.metrics[0].target.averageValue: not a quantity", so a user sees which field to fix.
class InputError : public std::runtime_error {
 public:
  InputError(std::string field, const std::string& problem);
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace dha::model
