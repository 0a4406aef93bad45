#pragma once
// A shell command run to its end, with its exit code and standard output: what a test of a
// command-line tool asserts on. Append "2>&1" to the command for its standard error too.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace dha::testsupport {

struct ShellRun {
  int exit_code = -1;  // -1: it could not start, or a signal ended it
  std::string out;
};

inline ShellRun run_shell(const std::string& command) {
  ShellRun r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace dha::testsupport
