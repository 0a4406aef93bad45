// The world simulator's pure parts: the load curve, the simulated database's instances and the
// exporter's series, with made-up times and no servers.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include "dha/testing/world/cnpg_exporter.hpp"
#include "dha/testing/world/kube_rest.hpp"
#include "dha/testing/world/load_curve.hpp"
#include "dha/testing/world/simulated_database.hpp"

namespace dha::testing::world {
namespace {

using namespace std::chrono_literals;

// ---- load curve ---------------------------------------------------------------------------

struct BadCurve {
  const char* name;
  const char* csv;
  const char* message;
};

class LoadCurveRejects : public ::testing::TestWithParam<BadCurve> {};

TEST_P(LoadCurveRejects, WithAMessageNamingTheProblem) {
  try {
    LoadCurve::parse_csv(GetParam().csv, "curve.csv");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("curve.csv"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LoadCurveRejects,
    ::testing::Values(BadCurve{"Empty", "", "empty"}, BadCurve{"OnlyComments", "# nothing\n\n", "empty"},
                      BadCurve{"NoRows", "time,ReadConnections\n", "no rows"},
                      BadCurve{"NoTime", "ReadConnections\n1\n", "no \"time\""},
                      BadCurve{"NoLoad", "time,lagSeconds\n0,1\n", "no \"ReadConnections\""},
                      BadCurve{"UnknownColumn", "time,ReadConnections,qps\n0,1,2\n", "unknown column \"qps\""},
                      BadCurve{"DuplicateColumn", "time,ReadConnections,ReadConnections\n0,1,2\n", "duplicate"},
                      BadCurve{"ShortRow", "time,ReadConnections\n0\n", "line 2: has 1 cells"},
                      BadCurve{"NotANumber", "time,ReadConnections\n0,many\n", "\"many\" is not a finite number"},
                      BadCurve{"Infinite", "time,ReadConnections\n0,inf\n", "not a finite number"},
                      BadCurve{"NegativeLoad", "time,ReadConnections\n0,-5\n", "must be >= 0"},
                      BadCurve{"NegativeTime", "time,ReadConnections\n-1,5\n", "time must be"},
                      BadCurve{"EmptyLoadCell", "time,ReadConnections,lagSeconds\n0,,1\n", "ReadConnections is empty"},
                      BadCurve{"TimeGoesBack", "time,ReadConnections\n10,1\n5,2\n", "line 3: time must increase"},
                      BadCurve{"TimeRepeats", "time,ReadConnections\n10,1\n10,2\n", "increase strictly"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(LoadCurve, InterpolatesBetweenRowsAndHoldsOutside) {
  const auto curve = LoadCurve::parse_csv(
      "# demo\ntime,ReadConnections,lagSeconds,writeRate\n"
      "10,100,1,50\n20,300,3,\n40,300,,70\n",
      "c");
  struct Case {
    double t, load;
    std::optional<double> lag, write;
  };
  for (const Case& c :
       {Case{0, 100, 1, 50}, Case{10, 100, 1, 50}, Case{15, 200, 2, 50}, Case{20, 300, 3, std::nullopt},
        Case{30, 300, 3, std::nullopt}, Case{40, 300, std::nullopt, 70}, Case{99, 300, std::nullopt, 70}}) {
    const LoadPoint p = curve.at(c.t);
    EXPECT_DOUBLE_EQ(p.read_connections, c.load) << "t=" << c.t;
    EXPECT_EQ(p.lag_seconds, c.lag) << "t=" << c.t;
    EXPECT_EQ(p.write_bytes_per_second, c.write) << "t=" << c.t;
    EXPECT_FALSE(p.read_cpu_millicores) << "t=" << c.t;
  }
  EXPECT_DOUBLE_EQ(curve.duration_seconds(), 40);
}

TEST(LoadCurve, ReadsTheDemoCurveOfTheRepository) {
  const auto curve = LoadCurve::read_file(DHA_SOURCE_DIR "/examples/demo/load.csv");
  EXPECT_GT(curve.duration_seconds(), 60);
  EXPECT_THROW(LoadCurve::read_file(DHA_SOURCE_DIR "/examples/demo/no-such.csv"), std::invalid_argument);
}

// ---- simulated database -------------------------------------------------------------------

TEST(SimulatedDatabase, InstancesThatExistAtFirstSightAreAvailable) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 2, t0);
  EXPECT_EQ(db.replicas(), 2);
  EXPECT_EQ(db.available(t0), 2);
  const auto instances = db.instances(t0);
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0].pod, "postgres-db-1");
  EXPECT_TRUE(instances[0].primary);
  EXPECT_EQ(instances[1].pod, "postgres-db-2");
  EXPECT_FALSE(instances[1].primary);
}

TEST(SimulatedDatabase, NewReplicasBecomeAvailableAfterTheProvisioningDelay) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 2, t0);
  db.set_replicas(4, t0 + 1s, 10s);
  EXPECT_EQ(db.replicas(), 4);
  struct Case {
    Clock::duration at;
    int available;
  };
  for (const Case& c : {Case{1s, 2}, Case{5s, 2}, Case{11s - 1ms, 2}, Case{11s, 4}, Case{60s, 4}})
    EXPECT_EQ(db.available(t0 + c.at), c.available) << std::chrono::duration<double>(c.at).count();
  EXPECT_FALSE(db.instances(t0 + 10s)[3].available);
  EXPECT_TRUE(db.instances(t0 + 11s)[3].available);
}

TEST(SimulatedDatabase, ScaleDownRemovesTheNewestAtOnceAndSerialsAreNeverReused) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 3, t0);
  db.set_replicas(5, t0, 10s);
  db.set_replicas(3, t0 + 1s, 10s);  // the two still provisioning go first
  EXPECT_EQ(db.instances(t0 + 1s).back().pod, "postgres-db-3");
  EXPECT_TRUE(db.take_removed_pods().empty()) << "never available, so they had no series to zero";
  EXPECT_EQ(db.available(t0 + 1s), 3);
  db.set_replicas(1, t0 + 1s, 10s);
  EXPECT_EQ(db.take_removed_pods(), (std::vector<std::string>{"postgres-db-3", "postgres-db-2"}));
  EXPECT_TRUE(db.take_removed_pods().empty()) << "reported once";
  db.set_replicas(3, t0 + 1s, 10s);
  db.set_replicas(4, t0 + 2s, 10s);
  EXPECT_EQ(db.instances(t0 + 2s).back().pod, "postgres-db-8");
  db.set_replicas(-3, t0 + 30s, 10s);  // negative is zero
  EXPECT_EQ(db.replicas(), 0);
  EXPECT_EQ(db.take_removed_pods().size(), 4u);
}

// ---- exporter -----------------------------------------------------------------------------

// Parses "name{a="x",b="y"} value ts" lines into (name + sorted labels) -> value.
std::multimap<std::string, double> parse_exposition(const std::string& text, int64_t timestamp_ms) {
  std::multimap<std::string, double> out;
  static const std::regex line(R"re(^([a-z_]+)\{(.*)\} ([^ ]+) ([0-9]+)$)re");
  size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string l = text.substr(pos, nl - pos);
    pos = nl + 1;
    std::smatch m;
    EXPECT_TRUE(std::regex_match(l, m, line)) << l;
    if (m.empty()) continue;
    EXPECT_EQ(std::stoll(m[4]), timestamp_ms) << l;
    out.emplace(m[1].str() + "{" + m[2].str() + "}", std::stod(m[3]));
  }
  return out;
}

double value_of(const std::multimap<std::string, double>& series, const std::string& name, const std::string& pod,
                const std::string& must_contain = "") {
  double sum = 0;
  int found = 0;
  for (const auto& [key, value] : series) {
    if (key.rfind(name + "{", 0) != 0 || key.find("pod=\"" + pod + "\"") == std::string::npos) continue;
    if (!must_contain.empty() && key.find(must_contain) == std::string::npos) continue;
    sum += value;
    ++found;
  }
  return found ? sum : -1;
}

TEST(CnpgExporter, SpreadsReadLoadOverAvailableReplicasOnly) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 3, t0);
  db.set_replicas(4, t0, 10s);  // postgres-db-4 is provisioning
  CnpgExporter exporter("tenant-a", "db");
  LoadPoint load;
  load.read_connections = 300;
  load.lag_seconds = 2.5;
  const auto s = parse_exposition(exporter.scrape(db.instances(t0 + 1s), load, {}, 1, 1234), 1234);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-1", "state=\"active\""), 0);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-2", "state=\"active\""), 150);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-3", "state=\"active\""), 150);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-2", "state=\"idle\""), CnpgExporter::kIdleBackends);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-4"), -1) << "no exporter before it is up";
  EXPECT_EQ(value_of(s, "kube_pod_labels", "postgres-db-4", "label_cnpg_io_instance_role=\"replica\""), 1);
  EXPECT_EQ(value_of(s, "kube_pod_labels", "postgres-db-1", "label_cnpg_io_instance_role=\"primary\""), 1);
  EXPECT_EQ(value_of(s, "kube_pod_labels", "postgres-db-2",
                     "label_apps_cozystack_io_application_name=\"db\",label_apps_cozystack_io_application_kind="
                     "\"Postgres\""),
            1);
  EXPECT_EQ(value_of(s, "cnpg_pg_replication_lag", "postgres-db-3"), 2.5);
  EXPECT_EQ(value_of(s, "cnpg_pg_replication_lag", "postgres-db-1"), 0) << "the primary has no lag";
  EXPECT_EQ(value_of(s, "container_cpu_usage_seconds_total", "postgres-db-2"), -1) << "no CPU column in the curve";

  const auto later = parse_exposition(exporter.scrape(db.instances(t0 + 10s), load, {}, 1, 99), 99);
  EXPECT_EQ(value_of(later, "cnpg_backends_total", "postgres-db-4", "state=\"active\""), 100);
}

TEST(CnpgExporter, WithoutReplicasTheLoadLandsOnThePrimary) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 1, t0);
  CnpgExporter exporter("tenant-a", "db");
  LoadPoint load;
  load.read_connections = 80;
  const auto s = parse_exposition(exporter.scrape(db.instances(t0), load, {}, 1, 1), 1);
  EXPECT_EQ(value_of(s, "cnpg_backends_total", "postgres-db-1", "state=\"active\""), 80);
}

TEST(CnpgExporter, CountersAdvanceByRateTimesElapsedAndRemovedPodsGetZeros) {
  const auto t0 = Clock::time_point{} + 1000s;
  SimulatedDatabase db("postgres-db", 3, t0);
  CnpgExporter exporter("tenant-a", "db");
  LoadPoint load;
  load.read_connections = 100;
  load.write_bytes_per_second = 200;
  load.read_cpu_millicores = 500;  // 250 m per replica
  exporter.scrape(db.instances(t0), load, {}, 0, 1);
  const auto s = parse_exposition(exporter.scrape(db.instances(t0), load, {}, 4, 2), 2);
  EXPECT_DOUBLE_EQ(value_of(s, "cnpg_collector_wal_bytes", "postgres-db-1"), 800);
  EXPECT_EQ(value_of(s, "cnpg_collector_wal_bytes", "postgres-db-2"), -1) << "the primary's WAL only";
  EXPECT_DOUBLE_EQ(value_of(s, "cnpg_pg_stat_replication_sent_diff_bytes", "postgres-db-1"), 800);
  EXPECT_EQ(value_of(s, "cnpg_pg_stat_replication_sent_diff_bytes", "postgres-db-2"), -1);
  EXPECT_DOUBLE_EQ(value_of(s, "container_cpu_usage_seconds_total", "postgres-db-2", "container=\"postgres\""), 1.0);
  EXPECT_DOUBLE_EQ(value_of(s, "container_cpu_usage_seconds_total", "postgres-db-1"), 0);

  db.set_replicas(2, t0 + 5s, 10s);
  const auto removed = db.take_removed_pods();
  const auto after = parse_exposition(exporter.scrape(db.instances(t0 + 5s), load, removed, 1, 3), 3);
  EXPECT_EQ(value_of(after, "cnpg_backends_total", "postgres-db-3", "state=\"active\""), 0);
  EXPECT_EQ(value_of(after, "cnpg_backends_total", "postgres-db-2", "state=\"active\""), 100);
}

TEST(CnpgExporter, EscapesLabelValues) { EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd"); }

// ---- kubeconfig ---------------------------------------------------------------------------

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/world-kubeconfig-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(KubeEndpoint, ReadsTheCurrentContext) {
  const std::string path = write_temp(R"(apiVersion: v1
kind: Config
clusters:
- {name: other, cluster: {server: "https://10.0.0.1"}}
- name: local
  cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "LS0tLS1CRUdJTg=="}
users:
- {name: me, user: {token: "secret-token"}}
contexts:
- {name: ctx, context: {cluster: local, user: me}}
current-context: ctx
)");
  const auto e = KubeEndpoint::from_kubeconfig(path);
  EXPECT_EQ(e.server, "https://127.0.0.1:6443");
  EXPECT_EQ(e.token, "secret-token");
  EXPECT_EQ(e.ca_pem, "-----BEGIN");
  std::remove(path.c_str());
}

TEST(KubeEndpoint, BadKubeconfigsAreClearErrors) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  for (const Case& c : {Case{"kind: Config\n", "no current-context"},
                        Case{"current-context: x\ncontexts: []\n", "no context named \"x\""},
                        Case{"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n", "no cluster named"},
                        Case{"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                             "clusters: [{name: c, cluster: {}}]\n",
                             "has no server"},
                        Case{"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
                             "clusters: [{name: c, cluster: {server: s, certificate-authority-data: \"!!\"}}]\n",
                             "not valid base64"},
                        Case{"[unclosed", "kubeconfig"}}) {
    const std::string path = write_temp(c.yaml);
    try {
      KubeEndpoint::from_kubeconfig(path);
      ADD_FAILURE() << "accepted: " << c.yaml;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
    std::remove(path.c_str());
  }
  EXPECT_THROW(KubeEndpoint::from_kubeconfig("/nonexistent/kubeconfig"), std::invalid_argument);
}

}  // namespace
}  // namespace dha::testing::world
