#pragma once

#include <rapidjson/document.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "dha/kube/client.hpp"

// The cluster side of `kubectl dha`: the flags every subcommand takes and the DHA they name.
namespace dha::cli {

struct DhaOptions {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
  std::string name;
};

struct DhaCluster {
  std::string namespace_name;  // -n, else the kubeconfig context's
  std::unique_ptr<kube::Client> client;
};

DhaCluster connect(const DhaOptions& options);

// The DHA named by the options; Exit(1) saying "not found" or why it could not be read.
rapidjson::Document read_dha(DhaCluster& cluster, const std::string& name);

// `dha backtest NAME`: the DHA's spec replayed over its target's history (dha_backtest.cpp).
void add_dha_backtest_command(CLI::App& dha, std::shared_ptr<DhaOptions> options);

}  // namespace dha::cli
