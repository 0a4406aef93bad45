// `db-autoscaler dha` — and the kubectl plugin `kubectl dha`, the same program installed as
// kubectl-dha: what a tenant asks about one DHA. status: one screen (target, replicas, metrics
// against their targets, the decision and the gate that made it, conditions, recent events);
// why: the last decision's gate trace in words; history: recent scale actions and reasons;
// backtest: what the DHA's spec would have done over its target's own history.
#include <chrono>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/errors.hpp"
#include "dha/kube/resource.hpp"
#include "dha_cluster.hpp"
#include "dha_output.hpp"
#include "dha_report.hpp"
#include "exit.hpp"

namespace dha::cli {
namespace {

struct Fetched {
  rapidjson::Document dha;
  rapidjson::Document events;
  std::string events_unread;  // why the events could not be listed; empty when they were
};

Fetched fetch(const DhaOptions& o, bool with_events) {
  DhaCluster cluster = connect(o);
  const std::string& ns = cluster.namespace_name;
  kube::Client& client = *cluster.client;
  Fetched f;
  f.dha = read_dha(cluster, o.name);
  f.events.SetObject();
  if (with_events) {
    kube::ListOptions lo;
    lo.field_selector = "involvedObject.kind=DatabaseHorizontalAutoscaler,involvedObject.name=" + o.name;
    try {
      f.events = client.list_all(kube::resources::events(ns), lo).list;
    } catch (const kube::ApiError& e) {
      // A tenant may read DHAs without being allowed to list Events: the screen says so (and
      // why) where the events would be, rather than "none".
      f.events_unread = why_events_unread(e);
    }
  }
  return f;
}

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void add_screen(CLI::App& parent, const std::string& name, const std::string& description,
                std::shared_ptr<DhaOptions> options, bool with_events,
                std::string (*render)(const Fetched&, std::int64_t)) {
  auto* cmd = parent.add_subcommand(name, description);
  cmd->add_option("name", options->name, "Name of the DatabaseHorizontalAutoscaler")->required();
  cmd->fallthrough();  // -n and --kubeconfig after the name, as kubectl users type them
  cmd->callback([options, with_events, render] {
    const Fetched f = fetch(*options, with_events);
    std::cout << render(f, now_seconds());
    throw Exit(kExitOk, "");
  });
}

// status: one DHA's screen, or with no name the namespace's DHAs one a line (kubectl get's
// list); -o json|yaml prints the object itself.
void add_status(CLI::App& parent, std::shared_ptr<DhaOptions> options) {
  auto output = std::make_shared<std::string>();
  auto* cmd =
      parent.add_subcommand("status",
                            "One screen: target, replicas, metrics, the decision and who made it, conditions, events; "
                            "without a name, every DHA of the namespace");
  cmd->add_option("name", options->name, "Name of the DatabaseHorizontalAutoscaler (none: list them)");
  cmd->add_option("-o,--output", *output, "json or yaml: the object, as kubectl get -o prints it")
      ->check(CLI::IsMember({"json", "yaml"}));
  cmd->fallthrough();
  cmd->callback([options, output] {
    if (options->name.empty()) {
      DhaCluster cluster = connect(*options);
      rapidjson::Document list;
      try {
        list = cluster.client->list_all(kube::resources::dhas(cluster.namespace_name)).list;
      } catch (const kube::ApiError& e) {
        throw Exit(kExitFailure,
                   "cannot list DatabaseHorizontalAutoscalers in " + cluster.namespace_name + ": " + e.what());
      }
      std::cout << (output->empty() ? render_list(list) : render_object(list, *output));
      throw Exit(kExitOk, "");
    }
    if (!output->empty()) {
      DhaCluster cluster = connect(*options);
      std::cout << render_object(read_dha(cluster, options->name), *output);
      throw Exit(kExitOk, "");
    }
    const Fetched f = fetch(*options, true);
    std::cout << render_status(f.dha, f.events, now_seconds(), f.events_unread);
    throw Exit(kExitOk, "");
  });
}

}  // namespace

void add_dha_command(CLI::App& app) {
  auto options = std::make_shared<DhaOptions>();
  auto* dha =
      app.add_subcommand("dha", "What a DHA is doing and why (also installed as the kubectl plugin kubectl-dha)");
  dha->require_subcommand(1);
  dha->add_option("-n,--namespace", options->namespace_name, "Namespace (default: the kubeconfig context's)");
  dha->add_option("--kubeconfig", options->kubeconfig,
                  "Path to the kubeconfig (default: $KUBECONFIG or ~/.kube/config)");
  dha->add_option("--context", options->context, "The kubeconfig context to use");
  add_status(*dha, options);
  add_screen(*dha, "why", "The last decision's gate trace, in words", options, false,
             [](const Fetched& f, std::int64_t) { return render_why(f.dha); });
  add_screen(*dha, "history", "Recent scale actions and their reasons", options, true,
             [](const Fetched& f, std::int64_t now) { return render_history(f.dha, f.events, now, f.events_unread); });
  add_dha_backtest_command(*dha, options);
}

}  // namespace dha::cli
