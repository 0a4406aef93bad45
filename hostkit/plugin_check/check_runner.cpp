#include "check_runner.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

namespace dha::plugin_check {

namespace {

void write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

CheckOutcome run_isolated(const std::function<CheckOutcome()>& check, std::chrono::seconds timeout) {
  int fds[2];
  if (::pipe(fds) != 0) return {false, fmt::format("cannot create a pipe: {}", std::strerror(errno))};
  const pid_t child = ::fork();
  if (child < 0) return {false, fmt::format("cannot fork: {}", std::strerror(errno))};
  if (child == 0) {
    ::close(fds[0]);
    CheckOutcome outcome;
    try {
      outcome = check();
    } catch (const std::exception& e) {
      outcome = {false, e.what()};
    }
    // First byte: verdict; the rest: the message.
    write_all(fds[1], std::string(outcome.passed ? "P" : "F") + outcome.message);
    ::close(fds[1]);
    ::_exit(0);  // skip static destructors that belong to the parent
  }
  ::close(fds[1]);

  std::string report;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n <= 0) break;  // EOF: the child is done (or died)
    report.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);

  if (timed_out) return {false, fmt::format("did not finish within {} s (hung plugin call?)", timeout.count())};
  if (WIFSIGNALED(status)) {
    return {false, fmt::format("the plugin crashed the check with signal {} ({})", WTERMSIG(status),
                               strsignal(WTERMSIG(status)))};
  }
  if (report.empty()) return {false, "the check ended without reporting (exit in plugin code?)"};
  return {report[0] == 'P', report.substr(1)};
}

}  // namespace dha::plugin_check
