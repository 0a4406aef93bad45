#include "dha/server/self_signed_certificate.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <system_error>

namespace dha::server {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

void check(bool ok, const char* step) {
  if (!ok) throw std::runtime_error(std::string("self-signed certificate: ") + step + " failed");
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  check(ext != nullptr && X509_add_ext(cert, ext.get(), -1) == 1, "adding an extension");
}

// Writes through a FILE opened with the given mode bits, so the key is never readable by others.
template <class Write>
void write_pem(const std::filesystem::path& path, mode_t mode, Write write) {
  const std::string tmp = path.string() + ".tmp";
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, mode);
  if (fd < 0) throw std::runtime_error("self-signed certificate: cannot create " + tmp);
  FILE* f = ::fdopen(fd, "w");
  if (f == nullptr) {
    ::close(fd);
    throw std::runtime_error("self-signed certificate: cannot open " + tmp);
  }
  const bool ok = write(f) == 1;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) throw std::runtime_error("self-signed certificate: cannot write " + tmp);
  std::filesystem::rename(tmp, path);
}

}  // namespace

void write_self_signed_certificate(const std::filesystem::path& dir, const std::vector<std::string>& dns_names) {
  std::filesystem::create_directories(dir);
  KeyPtr key(EVP_EC_gen("P-256"));
  check(key != nullptr, "generating the key");
  CertPtr cert(X509_new());
  check(cert != nullptr && X509_set_version(cert.get(), 2) == 1, "creating the certificate");
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial) == 1, "drawing a serial number");
  serial[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  check(bn != nullptr && BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get())) != nullptr,
        "setting the serial");
  // Valid from a minute ago (small clock skew between scraper and operator) for a year.
  check(X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60) != nullptr &&
            X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600) != nullptr,
        "setting the validity");
  X509_NAME* name = X509_get_subject_name(cert.get());
  const auto* common_name = reinterpret_cast<const unsigned char*>("db-autoscaler (self-signed)");
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, common_name, -1, -1, 0) == 1, "setting the subject");
  check(X509_set_issuer_name(cert.get(), name) == 1, "setting the issuer");
  check(X509_set_pubkey(cert.get(), key.get()) == 1, "setting the public key");
  std::string san = "IP:127.0.0.1";
  for (const auto& dns : dns_names) san += ",DNS:" + dns;
  add_extension(cert.get(), NID_subject_alt_name, san);
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
  check(X509_sign(cert.get(), key.get(), EVP_sha256()) > 0, "signing");

  write_pem(dir / "tls.key", 0600,
            [&](FILE* f) { return PEM_write_PrivateKey(f, key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  write_pem(dir / "tls.crt", 0644, [&](FILE* f) { return PEM_write_X509(f, cert.get()); });
}

std::filesystem::path certificate_dir_or_self_signed(const std::filesystem::path& cert_dir,
                                                     const std::string& purpose) {
  std::error_code ec;
  if (std::filesystem::exists(cert_dir / "tls.crt", ec) && std::filesystem::exists(cert_dir / "tls.key", ec))
    return cert_dir;
  std::string pattern = (std::filesystem::temp_directory_path() / "db-autoscaler-selfsigned-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("self-signed certificate: cannot create a directory under " +
                             std::filesystem::temp_directory_path().string());
  char host[256] = {};
  std::vector<std::string> names{"localhost"};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') names.emplace_back(host);
  write_self_signed_certificate(pattern, names);
  spdlog::warn(
      "no tls.crt/tls.key in {}: serving {} with a self-signed certificate from {} (its clients cannot verify it; "
      "mount a certificate there for verified TLS)",
      cert_dir.string(), purpose, pattern);
  return pattern;
}

}  // namespace dha::server
