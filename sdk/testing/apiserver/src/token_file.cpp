#include "token_file.hpp"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace dha::testing::apiserver {

namespace {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (quoted) throw std::runtime_error("unterminated quote");
  fields.push_back(cur);
  return fields;
}

}  // namespace

std::map<std::string, Identity> parse_token_file(const std::string& text) {
  std::map<std::string, Identity> tokens;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    try {
      fields = split_csv(line);
    } catch (const std::exception& e) {
      throw std::runtime_error("token file line " + std::to_string(number) + ": " + e.what());
    }
    if (fields.size() < 3 || fields[0].empty() || fields[1].empty())
      throw std::runtime_error("token file line " + std::to_string(number) +
                               ": want token,user,uid[,\"group1,group2\"]");
    Identity id;
    id.username = fields[1];
    id.uid = fields[2];
    if (fields.size() >= 4) {
      std::string group;
      std::istringstream groups(fields[3]);
      while (std::getline(groups, group, ','))
        if (!group.empty()) id.groups.push_back(group);
    }
    tokens[fields[0]] = id;
  }
  return tokens;
}

}  // namespace dha::testing::apiserver
