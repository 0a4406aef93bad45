#include "test_pki.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>

namespace dha::testing_pki {

namespace {

struct Deleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
template <class T>
using Ptr = std::unique_ptr<T, Deleter>;

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("test PKI: ") + what);
}

Ptr<EVP_PKEY> new_key() {
  Ptr<EVP_PKEY> key(EVP_EC_gen("P-256"));
  check(key != nullptr, "EC key generation");
  return key;
}

std::string to_pem(X509* cert) {
  Ptr<BIO> bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_X509(bio.get(), cert) == 1, "write cert");
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(size)};
}

std::string to_pem(EVP_PKEY* key) {
  Ptr<BIO> bio(BIO_new(BIO_s_mem()));
  check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1, "write key");
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(size)};
}

Ptr<X509> read_cert(const std::string& pem) {
  Ptr<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Ptr<X509> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  check(cert != nullptr, "read cert");
  return cert;
}

Ptr<EVP_PKEY> read_key(const std::string& pem) {
  Ptr<BIO> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Ptr<EVP_PKEY> key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  check(key != nullptr, "read key");
  return key;
}

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(ext != nullptr, "extension");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

Ptr<X509> new_cert(EVP_PKEY* key, const std::string& cn) {
  static std::atomic<long> serial{1};
  Ptr<X509> cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()),
                   serial++ + static_cast<long>(std::random_device{}() % 100000) * 1000);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME_add_entry_by_txt(X509_get_subject_name(cert.get()), "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  return cert;
}

}  // namespace

Pem issue_serving(const Pem& ca, const std::string& common_name) {
  auto ca_cert = read_cert(ca.cert);
  auto ca_key = read_key(ca.key);
  auto key = new_key();
  auto cert = new_cert(key.get(), common_name);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  add_ext(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  add_ext(cert.get(), ca_cert.get(), NID_ext_key_usage, "serverAuth");
  add_ext(cert.get(), ca_cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()) > 0, "sign serving cert");
  return {to_pem(cert.get()), to_pem(key.get())};
}

Pem issue_client(const Pem& ca, const std::string& common_name, const std::string& dns_name) {
  auto ca_cert = read_cert(ca.cert);
  auto ca_key = read_key(ca.key);
  auto key = new_key();
  auto cert = new_cert(key.get(), common_name);
  X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get()));
  add_ext(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_ext(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature");
  add_ext(cert.get(), ca_cert.get(), NID_ext_key_usage, "clientAuth");
  // Names its CA's key: every test CA has the same subject, and a bundle may hold several.
  add_ext(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always");
  if (!dns_name.empty()) add_ext(cert.get(), ca_cert.get(), NID_subject_alt_name, ("DNS:" + dns_name).c_str());
  check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()) > 0, "sign client cert");
  return {to_pem(cert.get()), to_pem(key.get())};
}

Pki make_pki(const std::string& common_name) {
  auto ca_key = new_key();
  auto ca_cert = new_cert(ca_key.get(), "db-autoscaler test CA");
  X509_set_issuer_name(ca_cert.get(), X509_get_subject_name(ca_cert.get()));
  add_ext(ca_cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_ext(ca_cert.get(), ca_cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_ext(ca_cert.get(), ca_cert.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(ca_cert.get(), ca_key.get(), EVP_sha256()) > 0, "sign CA");
  Pki pki;
  pki.ca = {to_pem(ca_cert.get()), to_pem(ca_key.get())};
  pki.serving = issue_serving(pki.ca, common_name);
  return pki;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_cert_dir(const std::filesystem::path& dir, const Pem& serving) {
  std::filesystem::create_directories(dir);
  write_file(dir / "tls.crt", serving.cert);
  write_file(dir / "tls.key", serving.key);
}

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto candidate = std::filesystem::temp_directory_path() / ("dha-test-" + std::to_string(rd()));
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("cannot create a temp dir");
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace dha::testing_pki
