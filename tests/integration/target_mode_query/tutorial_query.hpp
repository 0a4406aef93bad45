#pragma once

// The tutorial's mode-dependent ReadConnections template, read from the page itself (DHA_TUTORIAL)
// so that the page and the tests cannot drift apart: the raw string of
// `q.driver["ReadConnections"] = R"(...)";` in the code block under the section's heading.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

inline std::string tutorial_query() {
  std::ifstream in(DHA_TUTORIAL);
  std::stringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const auto section = page.find("### A query that depends on the target object");
  if (section == std::string::npos) throw std::runtime_error("the tutorial has no section on target-dependent queries");
  const auto block = page.find("```cpp", section);
  const std::string open = R"(q.driver["ReadConnections"] = R"()";
  const auto start = page.find(open, block);
  const auto end = page.find(")\";\n", start);
  if (block == std::string::npos || start == std::string::npos || end == std::string::npos ||
      page.find("```\n", block + 6) < start)
    throw std::runtime_error("the section's code block has no ReadConnections template");
  return page.substr(start + open.size(), end - start - open.size());
}
