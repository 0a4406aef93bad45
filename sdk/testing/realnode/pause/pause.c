/* The sandbox ("pause") process of every Pod on the test node: holds the Pod's namespaces open
 * and does nothing else. No registry is reachable here, so the fixture builds this statically and
 * imports it into containerd under a local name. It exits on SIGTERM/SIGINT and reaps zombies,
 * because it is PID 1 of the Pod's PID namespace when that is shared. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) {
  (void)sig;
  _exit(0);
}

static void reap(int sig) {
  (void)sig;
  while (waitpid(-1, 0, WNOHANG) > 0) {
  }
}

int main(void) {
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  signal(SIGCHLD, reap);
  for (;;) pause();
}
