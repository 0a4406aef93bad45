#pragma once

// Reading the simulator's input files (kubeconfig parts, load curve, engine description), with
// one error message shape: "cannot read <what> <path>".

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dha::testing::world {

inline std::string read_text_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("cannot read " + what + " " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace dha::testing::world
