#include "dha/model/input_error.hpp"

namespace dha::model {

InputError::InputError(std::string field, const std::string& problem)
    : std::runtime_error(field + ": " + problem), field_(std::move(field)) {}

}  // namespace dha::model
