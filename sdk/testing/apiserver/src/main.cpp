// dha-apiserver: the embedded Kubernetes API server as a process, for kubectl sessions and
// for tests in other languages. Serves until SIGTERM or SIGINT.

#include "dha/testing/api_server.hpp"
#include "token_file.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv) {
  CLI::App app{"Embedded Kubernetes API server for tests (db-autoscaler SDK test kit)"};
  dha::testing::ApiServerOptions options;
  std::string kubeconfig_out, tokens_file, kubeconfig_token;
  std::vector<std::string> sar_allow, webhook_services;
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0 picks a free one)");
  app.add_option("--kubeconfig-out", kubeconfig_out, "write a kubeconfig for kubectl here")->required();
  app.add_flag("--tls", options.tls, "serve HTTPS with a freshly generated CA (in the kubeconfig)");
  app.add_option("--tokens", tokens_file, "CSV token file: token,user,uid,\"group1,group2\"")->check(CLI::ExistingFile);
  app.add_option("--kubeconfig-token", kubeconfig_token, "bearer token to put in the kubeconfig");
  app.add_option("--crds", options.crd_dirs, "CRD file or directory to register at start (repeatable)");
  app.add_option("--sar-allow", sar_allow, "user a SubjectAccessReview allows (repeatable)");
  app.add_option("--webhook-service", webhook_services,
                 "NAMESPACE/NAME=PORT: dial this Service's webhooks on 127.0.0.1:PORT (repeatable)");
  app.add_option("--watch-history", options.watch_history, "watch events kept before 410 Gone");
  CLI11_PARSE(app, argc, argv);

  try {
    if (!tokens_file.empty()) {
      std::ifstream in(tokens_file);
      std::stringstream text;
      text << in.rdbuf();
      options.tokens = dha::testing::apiserver::parse_token_file(text.str());
    }
    options.sar_allowed_users.insert(sar_allow.begin(), sar_allow.end());
    for (const auto& mapping : webhook_services) {
      auto eq = mapping.find('=');
      if (eq == std::string::npos)
        throw std::runtime_error("--webhook-service wants NAMESPACE/NAME=PORT, got " + mapping);
      options.webhook_services[mapping.substr(0, eq)] = static_cast<uint16_t>(std::stoi(mapping.substr(eq + 1)));
    }
    // Block the stop signals before any thread starts so only sigwait() sees them.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    dha::testing::ApiServer server(options);
    server.start();
    server.write_kubeconfig(kubeconfig_out, kubeconfig_token);
    std::cout << "dha-apiserver listening on " << server.url() << " (kubeconfig: " << kubeconfig_out << ")"
              << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  } catch (const std::exception& e) {
    std::cerr << "dha-apiserver: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
