// The Redis adapter's queries against what the real exporter emits: a redis-server master and
// replica, each with its prometheus-redis-exporter sidecar, scraped by a real vmagent into
// VictoriaMetrics with the namespace/pod labels a Kubernetes scrape adds. kube_pod_labels is
// imported in kube-state-metrics' shape (no KSM without a cluster). Proves the metric names and
// the (namespace, pod) join match what the exporter really emits.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "dha/testing/child_process.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "redis_adapter.hpp"

namespace dha::plugins {
namespace {

using dha::testing::ChildProcess;

// A plain TCP connection to redis; closing it is the destructor's job.
class RedisConnection {
 public:
  explicit RedisConnection(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      throw std::runtime_error("cannot connect to redis on port " + std::to_string(port));
    }
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~RedisConnection() { ::close(fd_); }
  // One inline command; returns the first reply chunk.
  std::string command(const std::string& line) const {
    const std::string out = line + "\r\n";
    if (::send(fd_, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) return "";
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }

 private:
  int fd_ = -1;
};

bool wait_until(const std::function<bool()>& ok, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

class RedisWithRealExporter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = dha::testing::make_temp_dir("dha-redis");
    master_port_ = dha::testing::free_loopback_port();
    replica_port_ = dha::testing::free_loopback_port();
    auto redis = [&](uint16_t port, const std::string& name, std::vector<std::string> extra) {
      std::vector<std::string> argv{"/usr/bin/redis-server",
                                    "--port",
                                    std::to_string(port),
                                    "--bind",
                                    "127.0.0.1",
                                    "--save",
                                    "",
                                    "--appendonly",
                                    "no",
                                    "--dir",
                                    dir_,
                                    "--dbfilename",
                                    name + ".rdb",
                                    "--protected-mode",
                                    "no"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      return std::make_unique<ChildProcess>(argv, dir_ + "/" + name + ".log");
    };
    master_ = redis(master_port_, "master", {});
    ASSERT_TRUE(wait_until(
        [&] {
          try {
            return RedisConnection(master_port_).command("PING").starts_with("+PONG");
          } catch (...) {
            return false;
          }
        },
        std::chrono::seconds(20)))
        << master_->log_tail();
    replica_ = redis(replica_port_, "replica", {"--replicaof", "127.0.0.1", std::to_string(master_port_)});
    ASSERT_TRUE(wait_until(
        [&] {
          try {
            return RedisConnection(replica_port_).command("INFO replication").find("master_link_status:up") !=
                   std::string::npos;
          } catch (...) {
            return false;
          }
        },
        std::chrono::seconds(30)))
        << replica_->log_tail();

    master_exporter_port_ = dha::testing::free_loopback_port();
    replica_exporter_port_ = dha::testing::free_loopback_port();
    auto exporter = [&](uint16_t redis_port, uint16_t port, const std::string& name) {
      return std::make_unique<ChildProcess>(
          std::vector<std::string>{"/usr/bin/prometheus-redis-exporter",
                                   "-redis.addr=redis://127.0.0.1:" + std::to_string(redis_port),
                                   "-web.listen-address=127.0.0.1:" + std::to_string(port)},
          dir_ + "/" + name + "-exporter.log");
    };
    master_exporter_ = exporter(master_port_, master_exporter_port_, "master");
    replica_exporter_ = exporter(replica_port_, replica_exporter_port_, "replica");

    vm_ = std::make_unique<dha::testing::VictoriaMetrics>();
    // kube-state-metrics' view of the two spotahome pods.
    vm_->import_prometheus(
        "kube_pod_labels{job=\"kube-state-metrics\",namespace=\"tenant-a\",pod=\"rfr-redis-cache-0\",label_app_"
        "kubernetes_io_instance=\"redis-cache\",label_redisfailovers_role=\"master\"} 1\n"
        "kube_pod_labels{job=\"kube-state-metrics\",namespace=\"tenant-a\",pod=\"rfr-redis-cache-1\",label_app_"
        "kubernetes_io_instance=\"redis-cache\",label_redisfailovers_role=\"slave\"} 1\n");
    agent_ = std::make_unique<dha::testing::VmAgent>(
        *vm_, std::vector<dha::testing::VmAgent::Target>{
                  {"redis-cache",
                   "127.0.0.1:" + std::to_string(master_exporter_port_),
                   {{"namespace", "tenant-a"}, {"pod", "rfr-redis-cache-0"}, {"container", "redis-exporter"}}},
                  {"redis-cache",
                   "127.0.0.1:" + std::to_string(replica_exporter_port_),
                   {{"namespace", "tenant-a"}, {"pod", "rfr-redis-cache-1"}, {"container", "redis-exporter"}}}});
  }

  void TearDown() override {
    agent_.reset();
    vm_.reset();
    master_exporter_.reset();
    replica_exporter_.reset();
    replica_.reset();
    master_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  double value(const std::string& tmpl) {
    const std::string q = dha::testing::fill_query_placeholders(tmpl, "tenant-a", "cache", "redis-cache");
    const auto v = vm_->query_vector(q);
    EXPECT_EQ(v.size(), 1u) << q;
    return v.empty() ? NAN : v[0].value;
  }

  std::string dir_;
  uint16_t master_port_ = 0, replica_port_ = 0, master_exporter_port_ = 0, replica_exporter_port_ = 0;
  std::unique_ptr<ChildProcess> master_, replica_, master_exporter_, replica_exporter_;
  std::unique_ptr<dha::testing::VictoriaMetrics> vm_;
  std::unique_ptr<dha::testing::VmAgent> agent_;
};

TEST_F(RedisWithRealExporter, QueriesReadTheSlaveAndTheMasterAsTheExporterReportsThem) {
  // Distinct client counts: 4 idle clients on the slave, 12 on the master.
  std::vector<std::unique_ptr<RedisConnection>> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(std::make_unique<RedisConnection>(replica_port_));
  for (int i = 0; i < 12; ++i) clients.push_back(std::make_unique<RedisConnection>(master_port_));

  const sdk::json::Document config = sdk::json::parse("{}", "config");
  const sdk::Queries q =
      RedisAdapter(sdk::Host(), config)
          .queries({"tenant-a", "cache", "redis-cache", "apps.cozystack.io", "Redis", {"ReadConnections"}});

  // The exporter's own view of the slave, as scraped: what the driver query must equal.
  const std::string slave_clients = R"(redis_connected_clients{namespace="tenant-a", pod="rfr-redis-cache-1"})";
  const std::string master_clients = R"(redis_connected_clients{namespace="tenant-a", pod="rfr-redis-cache-0"})";
  ASSERT_TRUE(wait_until(
      [&] {
        const auto s = vm_->query_vector(slave_clients);
        const auto m = vm_->query_vector(master_clients);
        return !s.empty() && !m.empty() && s[0].value >= 4 && m[0].value >= 12;
      },
      std::chrono::seconds(60)))
      << "vmagent did not deliver redis_connected_clients for both pods";
  ASSERT_FALSE(
      vm_->query_vector(R"(redis_instance_info{namespace="tenant-a", pod="rfr-redis-cache-1", role="slave"})").empty())
      << "the replica exporter should report role=slave";

  const double driver = value(q.driver.at("ReadConnections"));
  const double slave = vm_->query_vector(slave_clients).at(0).value;
  const double master = vm_->query_vector(master_clients).at(0).value;
  EXPECT_DOUBLE_EQ(driver, slave) << "the driver query must read the slave only";
  EXPECT_LT(driver, master);

  // Writes on the master move redis_master_repl_offset; the write query sees them.
  RedisConnection writer(master_port_);
  ASSERT_TRUE(wait_until(
      [&] {
        for (int i = 0; i < 50; ++i) writer.command("SET key-" + std::to_string(i) + " " + std::string(100, 'x'));
        const auto v = vm_->query_vector(
            dha::testing::fill_query_placeholders(q.write_activity, "tenant-a", "cache", "redis-cache"));
        return v.size() == 1 && v[0].value > 0;
      },
      std::chrono::seconds(60)))
      << "write activity never became positive";
}

}  // namespace
}  // namespace dha::plugins
