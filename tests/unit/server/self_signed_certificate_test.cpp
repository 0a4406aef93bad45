// Secure metrics without a provided certificate: the process generates one instead of exiting.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/server/self_signed_certificate.hpp"
#include "dha/server/server.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace dha::server {
namespace {

using testing_clients::HttpClient;
using testing_pki::TempDir;

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(SelfSignedCertificate, ServesHttpsThatTrustsExactlyThatCertificate) {
  TempDir dir;
  write_self_signed_certificate(dir.path(), {"localhost"});
  struct stat key {};
  ASSERT_EQ(::stat((dir.path() / "tls.key").c_str(), &key), 0);
  EXPECT_EQ(key.st_mode & 0777, 0600u) << "the private key must be readable by its owner only";

  ServerOptions options;
  options.host = "127.0.0.1";
  options.tls = TlsOptions{dir.path()};
  Router router;
  router.handle("/metrics", [](const Request& r) { return Response::text(200, r.secure ? "secure" : "plain"); });
  Server server(options, std::move(router));
  server.start();
  const std::string url = "https://localhost:" + std::to_string(server.port()) + "/metrics";
  HttpClient pinned(read(dir.path() / "tls.crt"));
  const auto r = pinned.request("GET", url);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.body, "secure");
  EXPECT_NE(r.peer_subject.find("self-signed"), std::string::npos) << r.peer_subject;

  // Another self-signed certificate (another process) is not trusted in its place.
  TempDir other;
  write_self_signed_certificate(other.path(), {"localhost"});
  HttpClient stranger(read(other.path() / "tls.crt"));
  EXPECT_NE(stranger.request("GET", url).error, "");
}

TEST(SelfSignedCertificate, AProvidedCertificateIsUsedAsIs) {
  TempDir dir;
  write_self_signed_certificate(dir.path(), {"provided.example"});
  EXPECT_EQ(certificate_dir_or_self_signed(dir.path(), "metrics"), dir.path());
}

TEST(SelfSignedCertificate, AMissingCertificateIsGeneratedElsewhere) {
  TempDir empty;
  const auto generated = certificate_dir_or_self_signed(empty.path() / "serving-certs", "metrics");
  EXPECT_NE(generated, empty.path() / "serving-certs");
  EXPECT_TRUE(std::filesystem::exists(generated / "tls.crt"));
  EXPECT_TRUE(std::filesystem::exists(generated / "tls.key"));
  EXPECT_FALSE(std::filesystem::exists(empty.path() / "serving-certs")) << "the mounted directory is left alone";
  std::filesystem::remove_all(generated);
}

}  // namespace
}  // namespace dha::server
