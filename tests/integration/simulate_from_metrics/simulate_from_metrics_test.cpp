// `simulate --from-metrics` against a real VictoriaMetrics holding a week of CNPG-shaped series
// for two namespaces: the repository's diurnal-week trace split over two read replicas, a busy
// primary that is no read replica, and a neighbour tenant with the same pod names and ten times
// the load. The backtest must read only its namespace's read replicas and give the numbers
// `--load` gives on the same week written as CSV.
#include <curl/curl.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "dha/testing/victoria_metrics.hpp"

namespace {

constexpr std::int64_t kWeek = 7 * 86400;
constexpr std::int64_t kUntil = 1764547200;  // 2025-12-01 00:00 UTC; a multiple of 60, so every step is a sample
constexpr std::int64_t kStart = kUntil - kWeek;

struct CliRun {
  int exit_code = -1;
  std::string out;
};

CliRun run_cli(const std::string& args) {
  const std::string cmd = std::string(DHA_CLI) + " simulate " + args + " 2>&1";
  CliRun r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string from(const std::string& out, const std::string& marker) {
  const auto at = out.find(marker);
  return at == std::string::npos ? "(no \"" + marker + "\" in: " + out + ")" : out.substr(at);
}

std::string shortest(double v) {
  std::array<char, 32> buf{};
  const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
  return std::string(buf.data(), end);
}

struct Row {
  std::int64_t time;
  double connections;
  double lag;
};

// The first week of the shipped diurnal-week trace (time, ReadConnections, lagSeconds, ...).
std::vector<Row> week_of_load() {
  std::ifstream in(std::string(DHA_EXAMPLES_DIR) + "/load/diurnal-week.csv");
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("time", 0) == 0) continue;
    std::stringstream cells(line);
    std::string t, c, l;
    std::getline(cells, t, ',');
    std::getline(cells, c, ',');
    std::getline(cells, l, ',');
    if (std::stoll(t) > kWeek) break;
    rows.push_back({std::stoll(t), std::stod(c), std::stod(l)});
  }
  return rows;
}

// One /api/v1/import line: a series with a value at every row's time.
std::string series(const std::string& labels, const std::vector<Row>& rows,
                   const std::function<double(const Row&)>& v) {
  std::string values, times;
  for (const auto& r : rows) {
    values += (values.empty() ? "" : ",") + shortest(v(r));
    times += (times.empty() ? "" : ",") + std::to_string((kStart + r.time) * 1000);
  }
  return R"({"metric":{)" + labels + R"(},"values":[)" + values + R"(],"timestamps":[)" + times + "]}\n";
}

// A tenant's Postgres "db": replicas db-2 and db-3 share the read load (halves add up exactly),
// db-2 carries the lag; the primary db-1 has `primary_load` connections nobody reads from.
// With `bad_points`, db-3 reports what is no reading at two steps: -10^6 connections at trace time
// kNegativeAt, 5e12 at kImplausibleAt.
constexpr std::int64_t kNegativeAt = 6000;
constexpr std::int64_t kImplausibleAt = 12000;
std::string tenant(const std::string& ns, const std::vector<Row>& rows, double scale, double primary_load,
                   bool bad_points = false) {
  std::string out;
  for (const std::string pod : {"postgres-db-1", "postgres-db-2", "postgres-db-3"}) {
    const std::string id = R"("namespace":")" + ns + R"(","pod":")" + pod + "\"";
    const bool primary = pod == "postgres-db-1";
    out += series(R"("__name__":"kube_pod_labels",)" + id +
                      R"(,"label_apps_cozystack_io_application_name":"db")"
                      R"(,"label_apps_cozystack_io_application_kind":"Postgres")"
                      R"(,"label_cnpg_io_instance_role":")" +
                      (primary ? "primary" : "replica") + "\"",
                  rows, [](const Row&) { return 1.0; });
    out +=
        series(R"("__name__":"cnpg_backends_total","datname":"app","state":"active",)" + id, rows, [&](const Row& r) {
          if (bad_points && pod == "postgres-db-3" && r.time == kNegativeAt) return -1e6;
          if (bad_points && pod == "postgres-db-3" && r.time == kImplausibleAt) return 5e12;
          return primary ? primary_load : r.connections * scale / 2;
        });
    out += series(R"("__name__":"cnpg_pg_replication_lag",)" + id, rows,
                  [&](const Row& r) { return pod == "postgres-db-2" ? r.lag * scale : 0.0; });
  }
  return out;
}

size_t ignore_body(char*, size_t size, size_t n, void*) { return size * n; }

void import_json_lines(dha::testing::VictoriaMetrics& vm, const std::string& body) {
  CURL* curl = curl_easy_init();
  ASSERT_NE(curl, nullptr);
  const std::string url = vm.url() + "/api/v1/import";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, ignore_body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  ASSERT_EQ(rc, CURLE_OK) << curl_easy_strerror(rc);
  ASSERT_EQ(status, 204) << "import refused";
  vm.import_prometheus("");  // flushes, and returns once everything sent so far is searchable
}

class SimulateFromMetrics : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(std::filesystem::temp_directory_path() /
                                     ("simulate-from-metrics-" + std::to_string(::getpid())));
    std::filesystem::create_directories(*dir_);
    vm_ = new dha::testing::VictoriaMetrics();
    const std::vector<Row> rows = week_of_load();
    ASSERT_EQ(rows.size(), static_cast<size_t>(kWeek / 60 + 1));
    import_json_lines(*vm_, tenant("tenant-a", rows, 1, 900) + tenant("tenant-b", rows, 10, 5000) +
                                tenant("tenant-d", rows, 1, 900, true));
    // The same week as the CSV a user would write for --load: what the operator would have seen.
    std::ofstream csv(*dir_ / "week.csv");
    csv << "time,ReadConnections,lagSeconds\n";
    for (const auto& r : rows) csv << r.time << "," << shortest(r.connections) << "," << shortest(r.lag) << "\n";
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  static std::string from_metrics(const std::string& ns = "tenant-a", const std::string& since = "7d",
                                  const std::string& step = "60s") {
    return "--from-metrics " + vm_->url() + " --kind Postgres -n " + ns + " db --since " + since + " --step " + step +
           " --until " + std::to_string(kUntil) +
           " --plugin-dir " DHA_POSTGRES_DIR " --plugin-dir " DHA_METRICS_VM_DIR " --plugins postgres,metrics-vm";
  }
  static std::string dha() { return " --dha " DHA_EXAMPLES_DIR "/load/dha.yaml"; }
  static std::string file(const std::string& name) { return (*dir_ / name).string(); }

  static dha::testing::VictoriaMetrics* vm_;
  static std::filesystem::path* dir_;
};
dha::testing::VictoriaMetrics* SimulateFromMetrics::vm_ = nullptr;
std::filesystem::path* SimulateFromMetrics::dir_ = nullptr;

TEST_F(SimulateFromMetrics, TheBacktestEqualsTheSameWeekReplayedFromCsv) {
  const CliRun backtest = run_cli(from_metrics() + dha() + " --summary-only --save-load " + file("pulled.csv"));
  ASSERT_EQ(backtest.exit_code, 0) << backtest.out;
  EXPECT_NE(backtest.out.find("history: Postgres tenant-a/db from " + vm_->url() +
                              ", 10081 steps of 60s from unix time " + std::to_string(kStart)),
            std::string::npos)
      << backtest.out;
  EXPECT_NE(backtest.out.find("no writeRate column"), std::string::npos) << backtest.out;
  const CliRun replay = run_cli("--load " + file("week.csv") + dha() + " --summary-only");
  ASSERT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_EQ(from(backtest.out, "summary:"), from(replay.out, "summary:"));
  EXPECT_NE(backtest.out.find("simulated seconds:      604800"), std::string::npos) << backtest.out;

  // Row for row the same trace: only tenant-a's read replicas, summed; the lag their maximum.
  std::ifstream pulled(file("pulled.csv")), written(file("week.csv"));
  std::stringstream a, b;
  a << pulled.rdbuf();
  b << written.rdbuf();
  EXPECT_EQ(a.str(), b.str());
}

// One rule for a reading: a step whose reading is none (the adapter's sum over the read replicas
// negative, or implausibly large, because one replica's exporter went wrong) is a hole in the
// trace, and the rest of the week is the same week as tenant-a's.
TEST_F(SimulateFromMetrics, ABadPointIsAHoleNotARefusedWeek) {
  const CliRun r = run_cli(from_metrics("tenant-d") + dha() + " --summary-only --save-load " + file("holes.csv"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("ReadConnections: 2 of 10081 steps left empty"), std::string::npos) << r.out;
  std::ifstream pulled(file("holes.csv")), written(file("week.csv"));
  std::string a, b;
  std::size_t lines = 0;
  while (std::getline(written, b)) {
    ASSERT_TRUE(std::getline(pulled, a)) << "the trace ends early, at line " << lines;
    ++lines;
    const std::string time = b.substr(0, b.find(','));
    if (time == std::to_string(kNegativeAt) || time == std::to_string(kImplausibleAt)) {
      // No ReadConnections there; the lag is still read.
      EXPECT_EQ(a, time + "," + b.substr(b.rfind(','))) << b;
    } else {
      EXPECT_EQ(a, b);
    }
  }
  EXPECT_EQ(lines, static_cast<std::size_t>(kWeek / 60 + 2));
}

TEST_F(SimulateFromMetrics, CompareAndProfilesReadTheHistoryOnce) {
  const CliRun backtest = run_cli(from_metrics() + dha() + " --compare --profile default --profile adaptive");
  ASSERT_EQ(backtest.exit_code, 0) << backtest.out;
  const CliRun replay =
      run_cli("--load " + file("week.csv") + dha() + " --compare --profile default --profile adaptive");
  ASSERT_EQ(replay.exit_code, 0) << replay.out;
  EXPECT_EQ(from(backtest.out, "behaviour"), from(replay.out, "behaviour"));
  EXPECT_NE(backtest.out.find("adaptive"), std::string::npos) << backtest.out;
}

// The neighbour's week is ten times tenant-a's: read as its own, it needs more replicas.
TEST_F(SimulateFromMetrics, EachNamespaceReadsOnlyItsOwnSeries) {
  const CliRun a = run_cli(from_metrics("tenant-a") + dha() + " --summary-only");
  const CliRun b = run_cli(from_metrics("tenant-b") + dha() + " --summary-only");
  ASSERT_EQ(a.exit_code, 0) << a.out;
  ASSERT_EQ(b.exit_code, 0) << b.out;
  EXPECT_NE(from(a.out, "summary:"), from(b.out, "summary:"));
  const CliRun none = run_cli(from_metrics("tenant-c") + dha() + " --summary-only");
  EXPECT_EQ(none.exit_code, 2) << none.out;
  EXPECT_NE(none.out.find("ReadConnections: no history in the range"), std::string::npos) << none.out;
}

// The target file is read as the operator reads the cluster's object: four synchronous standbys
// make a quorum floor of five instances, below which the spec never scales down. The windowed
// profile keeps the ranges about the floor, not about how Adaptive sizes the steps.
TEST_F(SimulateFromMetrics, TheTargetFileGivesTheQuorumFloor) {
  {
    std::ofstream target(file("db.yaml"));
    target << "apiVersion: apps.cozystack.io/v1alpha1\nkind: Postgres\nmetadata:\n  name: db\n  namespace: tenant-a\n"
              "spec:\n  replicas: 5\n  quorum:\n    maxSyncReplicas: 4\n";
  }
  const std::string args = dha() + " --profile windowed --summary-only --initial-replicas 5";
  const CliRun bare = run_cli(from_metrics() + args);
  ASSERT_EQ(bare.exit_code, 0) << bare.out;
  EXPECT_NE(bare.out.find("replicas range:         3..7"), std::string::npos) << bare.out;
  const CliRun with_target = run_cli(from_metrics() + " --target " + file("db.yaml") + args);
  ASSERT_EQ(with_target.exit_code, 0) << with_target.out;
  EXPECT_NE(with_target.out.find("replicas range:         5..7"), std::string::npos) << with_target.out;

  const CliRun other = run_cli(from_metrics("tenant-b") + " --target " + file("db.yaml") + dha());
  EXPECT_EQ(other.exit_code, 2) << other.out;
  EXPECT_NE(other.out.find("not the Postgres tenant-b/db named on the command line"), std::string::npos) << other.out;
}

TEST_F(SimulateFromMetrics, BadInputIsAClearError) {
  const struct {
    std::string args;
    std::string message;
  } cases[] = {
      {from_metrics() + dha() + " --load " + file("week.csv"), "give one of --load"},
      {"--from-metrics " + vm_->url() + " --kind Postgres db" + dha(),
       "needs --kind, -n NAMESPACE and the target's NAME"},
      {from_metrics("tenant-a", "7days") + dha(), "--since: \"7days\" is not a duration"},
      {from_metrics("tenant-a", "0d") + dha(), "is not a duration"},
      {from_metrics("tenant-a", "7d", "-60s") + dha(), "--step"},
      {from_metrics("tenant-a", "7d", "10s") + dha(), "more than the 11000 a range query may ask for"},
      {"--from-metrics " + vm_->url() +
           " --kind Widget -n tenant-a db --plugin-dir " DHA_POSTGRES_DIR " --plugin-dir " DHA_METRICS_VM_DIR
           " --plugins postgres,metrics-vm" +
           dha(),
       "no loaded engine adapter handles kind Widget"},
      {"--from-metrics " + vm_->url() +
           " --kind Postgres -n tenant-a db --plugin-dir " DHA_POSTGRES_DIR " --plugins postgres" + dha(),
       "metrics plugin \"metrics-vm\" is not loaded"},
      {"--from-metrics http://127.0.0.1:1 --kind Postgres -n tenant-a db --plugin-dir " DHA_POSTGRES_DIR
       " --plugin-dir " DHA_METRICS_VM_DIR " --plugins postgres,metrics-vm" +
           dha(),
       "ReadConnections range query failed (UNAVAILABLE)"},
  };
  for (const auto& c : cases) {
    const CliRun r = run_cli(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
  }
}

}  // namespace
