#include "dha/testing/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace dha::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_path,
                           const std::vector<std::string>& extra_env)
    : log_path_(log_path) {
  if (argv.empty()) throw std::runtime_error("ChildProcess: empty command");
  if (::access(argv[0].c_str(), X_OK) != 0) {
    throw std::runtime_error(argv[0] + " is not installed or not executable (" + std::strerror(errno) +
                             "); install its Debian package");
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error("cannot open log " + log_path + ": " + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(log_fd);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  }
  if (pid_ == 0) {
    ::setpgid(0, 0);  // its own group: a terminal's Ctrl-C reaches the test, which cleans up
    // If the test process dies without its destructors (a ctest timeout's SIGKILL, a crash), the
    // server must not outlive it holding a port and a temp dir.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    for (const auto& e : extra_env) ::putenv(const_cast<char*>(e.c_str()));
    ::execv(args[0], args.data());
    std::fprintf(stderr, "exec %s failed: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(log_fd);
}

ChildProcess::~ChildProcess() { stop(); }

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  if (!running()) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!running()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string ChildProcess::log_tail(size_t bytes) const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  const std::string all = s.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

std::string make_temp_dir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  return pattern;
}

}  // namespace dha::testing
