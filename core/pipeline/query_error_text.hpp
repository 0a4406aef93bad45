#pragma once

#include <string>

// A metric source's error may quote its request URL with the whole query percent-encoded:
// hundreds of characters nobody can read, repeated in every message. Where the query is named
// beside the error (a condition, the metrics command), the encoded copy is cut to "...".
namespace dha::pipeline {

std::string without_encoded_query(std::string error);

}  // namespace dha::pipeline
