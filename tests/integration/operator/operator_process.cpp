#include "operator_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "deadline_scale.hpp"

namespace dha::optest {

OperatorProcess::OperatorProcess(std::vector<std::string> args, std::string log_path) : log_path_(std::move(log_path)) {
  if (access(DHA_BINARY, X_OK) != 0) throw std::runtime_error(std::string("operator binary missing: ") + DHA_BINARY);
  std::vector<char*> argv;
  std::string binary = DHA_BINARY;
  argv.push_back(binary.data());
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int fd = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + log_path_);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
    // The test's signal mask must not leak into the operator.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fd);
}

OperatorProcess::~OperatorProcess() { stop(); }

bool OperatorProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return true;
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  pid_ = -1;
  return false;
}

int OperatorProcess::stop() {
  if (pid_ <= 0) return exit_status_;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + testsupport::scaled_deadline(std::chrono::seconds(15));
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  pid_ = -1;
  return exit_status_;
}

std::string OperatorProcess::log() const {
  std::ifstream in(log_path_);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace dha::optest
