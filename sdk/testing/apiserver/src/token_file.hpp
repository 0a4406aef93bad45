#pragma once
// kube-apiserver's --token-auth-file format: token,user,uid,"group1,group2" per line.

#include "dha/testing/api_server.hpp"

#include <map>
#include <string>

namespace dha::testing::apiserver {

// Throws std::runtime_error naming the line for malformed input.
std::map<std::string, Identity> parse_token_file(const std::string& text);

}  // namespace dha::testing::apiserver
