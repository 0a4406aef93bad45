#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <thread>

#include "dha/kube/config.hpp"
#include "temp_dir.hpp"

namespace dha::kube {
namespace {

using test::TempDir;

// base64 of "CA-PEM", "CERT", "KEY"
constexpr const char* kCaB64 = "Q0EtUEVN";
constexpr const char* kCertB64 = "Q0VSVA==";
constexpr const char* kKeyB64 = "S0VZ";

std::string kubeconfig(const std::string& cluster_extra, const std::string& user_body,
                       const std::string& current = "main") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
         "\n"
         "clusters:\n"
         "- name: c1\n  cluster:\n    server: https://127.0.0.1:6443/\n" +
         cluster_extra +
         "contexts:\n"
         "- name: main\n  context:\n    cluster: c1\n    user: u1\n    namespace: tenant-a\n"
         "- name: other\n  context:\n    cluster: c1\n    user: u2\n"
         "users:\n"
         "- name: u1\n  user:\n" +
         user_body + "- name: u2\n  user:\n    token: second\n";
}

Environment fake_env(std::map<std::string, std::string> vars, std::filesystem::path sa_dir = "/nonexistent") {
  Environment env;
  env.getenv = [vars = std::move(vars)](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  env.service_account_dir = std::move(sa_dir);
  return env;
}

TEST(Kubeconfig, TokenAndInlineCa) {
  const Config c =
      parse_kubeconfig(kubeconfig(std::string("    certificate-authority-data: ") + kCaB64 + "\n", "    token: abc\n"),
                       "/tmp", "", false);
  EXPECT_EQ(c.server, "https://127.0.0.1:6443");
  EXPECT_EQ(c.ca_pem, "CA-PEM");
  ASSERT_TRUE(c.token);
  EXPECT_EQ(c.token->token(), "abc");
  EXPECT_EQ(c.default_namespace, "tenant-a");
  EXPECT_TRUE(c.client_cert_pem.empty());
}

TEST(Kubeconfig, ExplicitContextOverridesCurrent) {
  const Config c = parse_kubeconfig(kubeconfig("", "    token: abc\n"), "/tmp", "other", false);
  ASSERT_TRUE(c.token);
  EXPECT_EQ(c.token->token(), "second");
  EXPECT_EQ(c.default_namespace, "default");
}

TEST(Kubeconfig, ClientCertInlineAndFilesRelativeToKubeconfig) {
  TempDir dir;
  dir.write("certs/ca.pem", "FILE-CA");
  dir.write("certs/key.pem", "FILE-KEY");
  const Config inline_cfg = parse_kubeconfig(kubeconfig("", std::string("    client-certificate-data: ") + kCertB64 +
                                                                "\n    client-key-data: " + kKeyB64 + "\n"),
                                             dir.path(), "", false);
  EXPECT_EQ(inline_cfg.client_cert_pem, "CERT");
  EXPECT_EQ(inline_cfg.client_key_pem, "KEY");
  EXPECT_FALSE(inline_cfg.token);

  const Config files = parse_kubeconfig(
      kubeconfig("    certificate-authority: certs/ca.pem\n",
                 std::string("    client-certificate-data: ") + kCertB64 + "\n    client-key: certs/key.pem\n"),
      dir.path(), "", false);
  EXPECT_EQ(files.ca_pem, "FILE-CA");
  EXPECT_EQ(files.client_key_pem, "FILE-KEY");
}

// A path to a FIFO (or a directory) is refused before it is opened: reading a FIFO with no
// writer would block the operator's start for ever without a word.
TEST(Kubeconfig, FilesThatAreNotRegularAreRefusedWithoutBlocking) {
  TempDir dir;
  const std::filesystem::path fifo = dir.path() / "ca.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directory(dir.path() / "certs");
  for (const std::string file : {"ca.fifo", "certs"}) {
    try {
      parse_kubeconfig(kubeconfig("    certificate-authority: " + file + "\n", "    token: t\n"), dir.path(), "",
                       false);
      ADD_FAILURE() << file << ": expected ConfigError";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()),
                "cannot read certificate-authority '" + (dir.path() / file).string() + "': not a regular file");
    }
  }
}

TEST(Kubeconfig, InsecureSkipVerifyRefusedUnlessAllowed) {
  const std::string text = kubeconfig("    insecure-skip-tls-verify: true\n", "    token: abc\n");
  try {
    parse_kubeconfig(text, "/tmp", "", false);
    FAIL() << "insecure config accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("insecure-skip-tls-verify"), std::string::npos);
  }
  EXPECT_TRUE(parse_kubeconfig(text, "/tmp", "", true).insecure_skip_tls_verify);
}

struct BadKubeconfig {
  const char* name;
  std::string text;
  const char* expect_in_message;
};

class KubeconfigRejects : public testing::TestWithParam<BadKubeconfig> {};

TEST_P(KubeconfigRejects, WithAClearMessage) {
  const auto& c = GetParam();
  try {
    parse_kubeconfig(c.text, "/nonexistent", "", false);
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(c.expect_in_message), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, KubeconfigRejects,
    testing::Values(
        BadKubeconfig{"not_yaml", "clusters: [", "not valid YAML"},
        BadKubeconfig{"scalar_document", "hello", "top level"},
        BadKubeconfig{"no_context", "clusters: []\n", "current-context"},
        BadKubeconfig{"missing_context", kubeconfig("", "    token: a\n", "nope"), "no entry named 'nope'"},
        BadKubeconfig{"exec_plugin", kubeconfig("", "    exec:\n      command: aws\n"), "'exec'"},
        BadKubeconfig{"basic_auth", kubeconfig("", "    username: a\n    password: b\n"), "'username'"},
        BadKubeconfig{"impersonated_user", kubeconfig("", "    token: a\n    as: system:admin\n"),
                      "'as' (impersonation)"},
        BadKubeconfig{"impersonated_groups", kubeconfig("", "    token: a\n    as-groups: [system:masters]\n"),
                      "'as-groups' (impersonation)"},
        BadKubeconfig{"impersonated_uid", kubeconfig("", "    token: a\n    as-uid: '1'\n"),
                      "'as-uid' (impersonation)"},
        BadKubeconfig{"impersonated_extra", kubeconfig("", "    token: a\n    as-user-extra: {a: [b]}\n"),
                      "'as-user-extra' (impersonation)"},
        BadKubeconfig{"cert_without_key",
                      kubeconfig("", std::string("    client-certificate-data: ") + kCertB64 + "\n"), "without a key"},
        BadKubeconfig{"bad_base64", kubeconfig("    certificate-authority-data: '***'\n", "    token: a\n"), "base64"},
        BadKubeconfig{"missing_ca_file", kubeconfig("    certificate-authority: nope.pem\n", "    token: a\n"),
                      "nope.pem"},
        BadKubeconfig{"no_scheme",
                      "current-context: m\ncontexts:\n- name: m\n  context: {cluster: c}\nclusters:\n- name: c\n  "
                      "cluster: {server: '127.0.0.1:6443'}\n",
                      "must start with https://"},
        BadKubeconfig{"clusters_not_list",
                      "current-context: m\ncontexts:\n- name: m\n  context: {cluster: c}\nclusters: {c: 1}\n",
                      "must be a list"}),
    [](const testing::TestParamInfo<BadKubeconfig>& info) { return std::string(info.param.name); });

struct B64Case {
  const char* in;
  const char* out;
};
class KubeBase64 : public testing::TestWithParam<B64Case> {};
TEST_P(KubeBase64, Decodes) { EXPECT_EQ(base64_decode(GetParam().in), GetParam().out); }
INSTANTIATE_TEST_SUITE_P(Table, KubeBase64,
                         testing::Values(B64Case{"", ""}, B64Case{"Zg==", "f"}, B64Case{"Zm8=", "fo"},
                                         B64Case{"Zm9v", "foo"}, B64Case{"Zm9v\nYmFy", "foobar"}));
TEST(KubeBase64, RejectsMalformed) {
  for (const char* bad : {"Zg=", "Z===", "Zg==Zg==", "Zm9*", "=Zm9"})
    EXPECT_THROW(base64_decode(bad), ConfigError) << bad;
}

TEST(KubeInCluster, ReadsServiceAccountAndBracketsIpv6) {
  TempDir sa;
  sa.write("token", "tok-1\n");
  sa.write("ca.crt", "CLUSTER-CA");
  sa.write("namespace", "cozy-db-autoscaler");
  const Config c = in_cluster_config(
      fake_env({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, sa.path()));
  EXPECT_EQ(c.server, "https://[fd00::1]:443");
  EXPECT_EQ(c.ca_pem, "CLUSTER-CA");
  EXPECT_EQ(c.default_namespace, "cozy-db-autoscaler");
  EXPECT_EQ(c.token->token(), "tok-1");
  EXPECT_THROW(in_cluster_config(fake_env({}, sa.path())), ConfigError);
}

TEST(KubeFileToken, RereadsWhenTheFileChanges) {
  TempDir dir;
  const auto path = dir.write("token", "first");
  FileToken token(path);
  EXPECT_EQ(token.token(), "first");
  // Rotation: a new file content with a different mtime and size.
  dir.write("token", "second-token");
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(5));
  EXPECT_EQ(token.token(), "second-token");
  // The kubelet swaps the file by rename; in between the old token stays in use.
  std::filesystem::remove(path);
  EXPECT_EQ(token.token(), "second-token");
  EXPECT_THROW(FileToken(dir.path() / "absent"), ConfigError);
  dir.write("empty", "  \n");
  EXPECT_THROW(FileToken(dir.path() / "empty"), ConfigError);
}

TEST(KubeLoadConfig, SourceOrderAndFlagOverrides) {
  TempDir home;
  home.write(".kube/config", kubeconfig("", "    token: from-home\n"));
  TempDir other;
  const auto explicit_path = other.write("kc", kubeconfig("", "    token: from-flag\n"));
  const auto env_path = other.write("kc-env", kubeconfig("", "    token: from-env\n"));
  TempDir sa;
  sa.write("token", "from-sa");
  sa.write("ca.crt", "CA");

  ConfigFlags flags;
  // ~/.kube/config is the last resort.
  EXPECT_EQ(load_config(flags, fake_env({{"HOME", home.path().string()}})).token->token(), "from-home");
  // In-cluster beats ~/.kube/config.
  EXPECT_EQ(load_config(flags, fake_env({{"HOME", home.path().string()},
                                         {"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                         {"KUBERNETES_SERVICE_PORT", "443"}},
                                        sa.path()))
                .source,
            "in-cluster");
  // $KUBECONFIG (first existing entry) beats in-cluster.
  auto env = fake_env({{"HOME", home.path().string()},
                       {"KUBECONFIG", "/missing:" + env_path.string()},
                       {"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                       {"KUBERNETES_SERVICE_PORT", "443"}},
                      sa.path());
  EXPECT_EQ(load_config(flags, env).token->token(), "from-env");
  // --kubeconfig beats everything; explicit flags override fields.
  flags.kubeconfig = explicit_path.string();
  EXPECT_EQ(load_config(flags, env).token->token(), "from-flag");
  flags.server = "https://10.1.1.1:8443/";
  flags.token = "flag-token";
  flags.qps = 5;
  flags.burst = 7;
  flags.namespace_ = "ns-x";
  const Config c = Config::load(flags, env);
  EXPECT_EQ(c.server, "https://10.1.1.1:8443");
  EXPECT_EQ(c.token->token(), "flag-token");
  EXPECT_EQ(c.qps, 5);
  EXPECT_EQ(c.burst, 7);
  EXPECT_EQ(c.default_namespace, "ns-x");
}

TEST(KubeLoadConfig, NothingConfiguredIsAClearError) {
  try {
    load_config({}, fake_env({}));
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no cluster configuration"), std::string::npos);
  }
  EXPECT_THROW(load_config({}, fake_env({{"KUBECONFIG", "/a:/b"}})), ConfigError);
  ConfigFlags only_server;
  only_server.server = "http://127.0.0.1:1";
  EXPECT_EQ(load_config(only_server, fake_env({})).server, "http://127.0.0.1:1");
  only_server.burst = 0;
  EXPECT_THROW(load_config(only_server, fake_env({})), ConfigError);
}

}  // namespace
}  // namespace dha::kube
