#include "pipeline/query_error_text.hpp"

namespace dha::pipeline {

std::string without_encoded_query(std::string error) {
  for (const std::string key : {"?query=", "&query="}) {
    const auto at = error.find(key);
    if (at == std::string::npos) continue;
    const auto start = at + key.size();
    auto end = error.find_first_of(" &", start);
    if (const auto colon = error.find(": ", start); colon != std::string::npos && colon < end) end = colon;
    error.replace(start, (end == std::string::npos ? error.size() : end) - start, "...");
  }
  return error;
}

}  // namespace dha::pipeline
