// The MariaDB adapter's queries against what the real exporter emits: a mariadbd primary and an
// asynchronous replica, each with prometheus-mysqld-exporter, scraped by a real vmagent into
// VictoriaMetrics under one job mariadb-<name>-metrics with the `target` label mariadb-operator's
// scrape adds. Proves the metric names and the on(target) joins match the exporter's output, and
// that the grouped queries' on(job, target) joins read the same.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dha/testing/child_process.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "mariadb_adapter.hpp"

namespace dha::plugins {
namespace {

using dha::testing::ChildProcess;

bool wait_until(const std::function<bool()>& ok, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// Runs the mariadb client over a server's socket; returns its exit code.
int sql(const std::string& socket, const std::string& statements, const std::string& log) {
  ChildProcess client({"/usr/bin/mariadb", "--no-defaults", "-S", socket, "-uroot", "-e", statements}, log);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (client.running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (client.running()) return -1;
  return client.log_tail().find("ERROR") == std::string::npos ? 0 : 1;
}

class MariadbWithRealExporter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dha::testing::make_temp_dir("dha-mariadb");
    {
      // One initialised data directory, copied for the replica before either server starts.
      ChildProcess install({"/usr/bin/mariadb-install-db", "--no-defaults", "--datadir=" + dir_ + "/primary",
                            "--auth-root-authentication-method=normal", "--skip-test-db", "--user=root"},
                           dir_ + "/install.log");
      ASSERT_TRUE(wait_until([&] { return !install.running(); }, std::chrono::seconds(120))) << install.log_tail();
      std::filesystem::copy(dir_ + "/primary", dir_ + "/replica", std::filesystem::copy_options::recursive);
    }
    primary_port_ = dha::testing::free_loopback_port();
    replica_port_ = dha::testing::free_loopback_port();
    auto server = [&](const std::string& name, uint16_t port, int id) {
      return std::make_unique<ChildProcess>(
          std::vector<std::string>{"/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + dir_ + "/" + name,
                                   "--socket=" + dir_ + "/" + name + ".sock", "--port=" + std::to_string(port),
                                   "--bind-address=127.0.0.1", "--server-id=" + std::to_string(id),
                                   "--log-bin=" + dir_ + "/" + name + "/bin", "--user=root", "--skip-name-resolve",
                                   "--pid-file=" + dir_ + "/" + name + ".pid", "--innodb-buffer-pool-size=16M"},
          dir_ + "/" + name + ".log");
    };
    primary_ = server("primary", primary_port_, 1);
    replica_ = server("replica", replica_port_, 2);
    for (const auto& [name, process] : {std::pair{"primary", primary_.get()}, std::pair{"replica", replica_.get()}}) {
      const std::string socket = dir_ + "/" + name + ".sock";
      ASSERT_TRUE(
          wait_until([&] { return sql(socket, "SELECT 1", dir_ + "/ping.log") == 0; }, std::chrono::seconds(60)))
          << process->log_tail();
    }
    ASSERT_EQ(sql(dir_ + "/primary.sock",
                  "CREATE USER 'repl'@'%' IDENTIFIED BY 'repl'; GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';"
                  "CREATE USER 'exporter'@'%' IDENTIFIED BY 'exp';"
                  "GRANT PROCESS, REPLICATION CLIENT, SLAVE MONITOR, SELECT ON *.* TO 'exporter'@'%';"
                  "CREATE DATABASE app; CREATE TABLE app.t (id INT PRIMARY KEY AUTO_INCREMENT, v TEXT);",
                  dir_ + "/setup-primary.log"),
              0);
    ASSERT_EQ(sql(dir_ + "/replica.sock",
                  "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + std::to_string(primary_port_) +
                      ", MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos; START SLAVE;",
                  dir_ + "/setup-replica.log"),
              0);

    auto exporter = [&](const std::string& name, uint16_t db_port, uint16_t port) {
      const std::string cnf = dir_ + "/" + name + "-exporter.cnf";
      std::ofstream(cnf) << "[client]\nuser=exporter\npassword=exp\nhost=127.0.0.1\nport=" << db_port << "\n";
      return std::make_unique<ChildProcess>(
          std::vector<std::string>{"/usr/bin/prometheus-mysqld-exporter", "--config.my-cnf=" + cnf,
                                   "--web.listen-address=127.0.0.1:" + std::to_string(port)},
          dir_ + "/" + name + "-exporter.log");
    };
    const uint16_t primary_exporter = dha::testing::free_loopback_port();
    const uint16_t replica_exporter = dha::testing::free_loopback_port();
    primary_exporter_ = exporter("primary", primary_port_, primary_exporter);
    replica_exporter_ = exporter("replica", replica_port_, replica_exporter);

    vm_ = std::make_unique<dha::testing::VictoriaMetrics>();
    const std::string job = "mariadb-db-metrics";
    agent_ = std::make_unique<dha::testing::VmAgent>(
        *vm_, std::vector<dha::testing::VmAgent::Target>{
                  {job,
                   "127.0.0.1:" + std::to_string(primary_exporter),
                   {{"namespace", "tenant-a"}, {"pod", "mariadb-db-metrics-5c7d"}, {"target", kPrimaryTarget}}},
                  {job,
                   "127.0.0.1:" + std::to_string(replica_exporter),
                   {{"namespace", "tenant-a"}, {"pod", "mariadb-db-metrics-5c7d"}, {"target", kReplicaTarget}}}});
  }

  void TearDown() override {
    sleepers_.clear();
    agent_.reset();
    vm_.reset();
    primary_exporter_.reset();
    replica_exporter_.reset();
    replica_.reset();
    primary_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // A client holding a connection for the length of the test (killed in TearDown).
  void hold_connection(uint16_t port) {
    sleepers_.push_back(std::make_unique<ChildProcess>(
        std::vector<std::string>{"/usr/bin/mariadb", "--no-defaults", "-h127.0.0.1", "-P" + std::to_string(port),
                                 "-uexporter", "-pexp", "-e", "SELECT SLEEP(300)"},
        dir_ + "/sleeper-" + std::to_string(sleepers_.size()) + ".log"));
  }

  std::vector<dha::testing::VictoriaMetrics::Sample> at_vm(const std::string& tmpl) {
    return vm_->query_vector(dha::testing::fill_query_placeholders(tmpl, "tenant-a", "db", "mariadb-db"));
  }

  static constexpr const char* kPrimaryTarget = "mariadb-db-0.mariadb-db-internal.tenant-a.svc.cluster.local:3306";
  static constexpr const char* kReplicaTarget = "mariadb-db-1.mariadb-db-internal.tenant-a.svc.cluster.local:3306";

  std::string dir_;
  uint16_t primary_port_ = 0, replica_port_ = 0;
  std::unique_ptr<ChildProcess> primary_, replica_, primary_exporter_, replica_exporter_;
  std::vector<std::unique_ptr<ChildProcess>> sleepers_;
  std::unique_ptr<dha::testing::VictoriaMetrics> vm_;
  std::unique_ptr<dha::testing::VmAgent> agent_;
};

TEST_F(MariadbWithRealExporter, QueriesReadTheReplicaAndThePrimaryAsTheExporterReportsThem) {
  for (int i = 0; i < 3; ++i) hold_connection(replica_port_);
  for (int i = 0; i < 8; ++i) hold_connection(primary_port_);

  const sdk::json::Document config = sdk::json::parse("{}", "config");
  const sdk::Queries q =
      MariadbAdapter(sdk::Host(), config)
          .queries({"tenant-a", "db", "mariadb-db", "apps.cozystack.io", "MariaDB", {"ReadConnections"}});
  const std::string replica_threads =
      std::string(R"(mysql_global_status_threads_connected{namespace="tenant-a", target=")") + kReplicaTarget + "\"}";
  const std::string primary_threads =
      std::string(R"(mysql_global_status_threads_connected{namespace="tenant-a", target=")") + kPrimaryTarget + "\"}";
  ASSERT_TRUE(wait_until(
      [&] {
        const auto r = vm_->query_vector(replica_threads);
        const auto p = vm_->query_vector(primary_threads);
        return !r.empty() && !p.empty() && r[0].value >= 4 && p[0].value >= 9 && !at_vm(q.lag_query).empty();
      },
      std::chrono::seconds(90)))
      << "vmagent did not deliver the exporters' series; replica log: " << replica_->log_tail(500);

  // Only the replica exports slave status, so the driver reads the replica alone.
  const auto driver = at_vm(q.driver.at("ReadConnections"));
  ASSERT_EQ(driver.size(), 1u);
  const double replica = vm_->query_vector(replica_threads).at(0).value;
  const double primary = vm_->query_vector(primary_threads).at(0).value;
  EXPECT_DOUBLE_EQ(driver[0].value, replica);
  EXPECT_LT(driver[0].value, primary);

  const auto lag = at_vm(q.lag_query);
  ASSERT_EQ(lag.size(), 1u);
  EXPECT_GE(lag[0].value, 0);
  EXPECT_LT(lag[0].value, 60) << "a healthy local replica";

  // Writes on the primary show up as its query rate; the replica's queries are excluded.
  ASSERT_TRUE(wait_until(
      [&] {
        sql(dir_ + "/primary.sock", "INSERT INTO app.t (v) VALUES ('x'),('y'),('z');", dir_ + "/insert.log");
        const auto w = at_vm(q.write_activity);
        return w.size() == 1 && w[0].value > 0;
      },
      std::chrono::seconds(60)))
      << "write activity never became positive";

  // The grouped queries read the same from the exporter's own labels, picked by its job (retried:
  // a scrape may land between the two reads).
  ASSERT_TRUE(q.grouped);
  auto same_by_job = [&](const std::string& grouped, const std::string& own) {
    return wait_until(
        [&] {
          const auto mine = at_vm(own);
          for (const auto& s : at_vm(grouped)) {
            const auto job = s.labels.find("job");
            if (job != s.labels.end() && job->second == "mariadb-db-metrics")
              return mine.size() == 1 && s.value == mine[0].value;
          }
          return false;
        },
        std::chrono::seconds(30));
  };
  EXPECT_TRUE(same_by_job(q.grouped->driver.at("ReadConnections"), q.driver.at("ReadConnections")));
  EXPECT_TRUE(same_by_job(q.grouped->lag_query, q.lag_query));
  EXPECT_TRUE(same_by_job(q.grouped->write_activity, q.write_activity));
}

}  // namespace
}  // namespace dha::plugins
