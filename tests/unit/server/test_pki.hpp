#pragma once

// Test certificates made in-process with OpenSSL: a CA and a serving certificate for
// localhost / 127.0.0.1 signed by it, as cert-manager would issue them.

#include <filesystem>
#include <string>

namespace dha::testing_pki {

struct Pem {
  std::string cert;
  std::string key;
};

struct Pki {
  Pem ca;
  Pem serving;  // SAN: DNS localhost, IP 127.0.0.1; subject CN = common_name
};

// A fresh CA and serving certificate. common_name lets tests tell certificates apart.
Pki make_pki(const std::string& common_name = "db-autoscaler");
// A serving certificate for the same names, signed by an existing CA.
Pem issue_serving(const Pem& ca, const std::string& common_name);
// A client certificate (extended key usage clientAuth) signed by `ca`, with subject CN
// `common_name` and, when given, a DNS subjectAltName.
Pem issue_client(const Pem& ca, const std::string& common_name, const std::string& dns_name = {});

void write_file(const std::filesystem::path& path, const std::string& text);
// Writes tls.crt and tls.key into dir (created if needed).
void write_cert_dir(const std::filesystem::path& dir, const Pem& serving);

// A unique empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace dha::testing_pki
