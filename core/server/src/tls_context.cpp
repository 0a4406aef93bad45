#include "tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace dha::server::detail {

namespace {

constexpr unsigned char alpn_http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// Select http/1.1 if the client offers it; otherwise proceed without ALPN (the client then
// speaks HTTP/1.1 or fails) — never h2.
int select_alpn(SSL*, const unsigned char** out, unsigned char* out_len, const unsigned char* in, unsigned int in_len,
                void*) {
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_len, alpn_http11, sizeof alpn_http11, in, in_len) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

std::string openssl_error() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

// The names a client certificate must carry, kept with the context that checks them (freed
// with it).
void free_names(void*, void* names, CRYPTO_EX_DATA*, int, long, void*) {
  delete static_cast<std::vector<std::string>*>(names);
}

int names_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, free_names);
  return index;
}

// The subject's common name and the DNS subjectAltNames of `cert`.
std::vector<std::string> names_of(X509* cert) {
  std::vector<std::string> out;
  X509_NAME* subject = X509_get_subject_name(cert);
  for (int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) {
    const ASN1_STRING* value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
    out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
                     static_cast<std::size_t>(ASN1_STRING_length(value)));
  }
  auto* alt = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; alt != nullptr && i < sk_GENERAL_NAME_num(alt); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(alt, i);
    if (name->type != GEN_DNS) continue;
    out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(name->d.dNSName)),
                     static_cast<std::size_t>(ASN1_STRING_length(name->d.dNSName)));
  }
  GENERAL_NAMES_free(alt);
  return out;
}

// OpenSSL has checked the chain to the client CA (and, a server's default, that the
// certificate may authenticate a TLS client); this adds the name check on the client's own
// certificate. Failing here fails the handshake.
int verify_client(int preverified, X509_STORE_CTX* store) {
  if (preverified != 1 || X509_STORE_CTX_get_error_depth(store) != 0) return preverified;
  auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  const auto* allowed =
      ssl == nullptr
          ? nullptr
          : static_cast<const std::vector<std::string>*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), names_index()));
  if (allowed == nullptr || allowed->empty()) return 1;
  for (const auto& name : names_of(X509_STORE_CTX_get_current_cert(store)))
    if (std::find(allowed->begin(), allowed->end(), name) != allowed->end()) return 1;
  X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
  return 0;
}

// Trusts the certificates of `ca_pem` for client certificates, names them in the certificate
// request, and requires a client certificate that chains to one of them.
void require_client_certificates(SSL_CTX* native, const ClientVerification& clients) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(clients.ca_pem->data(), static_cast<int>(clients.ca_pem->size())), BIO_free);
  X509_STORE* store = SSL_CTX_get_cert_store(native);
  int count = 0;
  ERR_clear_error();
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    const bool added = X509_STORE_add_cert(store, cert) == 1 && SSL_CTX_add_client_CA(native, cert) == 1;
    X509_free(cert);
    if (!added) throw std::runtime_error("invalid client CA bundle: " + openssl_error());
    ++count;
  }
  // The loop ends at the end of the text (no further PEM block) or at a block it cannot read.
  const unsigned long last = ERR_peek_last_error();
  if (last != 0 && !(ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE))
    throw std::runtime_error("invalid client CA bundle: " + openssl_error());
  ERR_clear_error();
  if (count == 0) throw std::runtime_error("invalid client CA bundle: no PEM certificate in it");
  SSL_CTX_set_ex_data(native, names_index(), new std::vector<std::string>(clients.names));
  SSL_CTX_set_verify(native, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT | SSL_VERIFY_CLIENT_ONCE, verify_client);
  // Required with verification for a session to be resumed at all; one context serves one
  // client CA, and a context built for another CA has other session keys.
  static constexpr unsigned char session_context[] = "dha-client-certificate";
  SSL_CTX_set_session_id_context(native, session_context, sizeof session_context - 1);
}

}  // namespace

std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem,
                                                            const ClientVerification& clients) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_cipher_list(native,
                          "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
                          "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
                          "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305");
  SSL_CTX_set_alpn_select_cb(native, select_alpn, nullptr);

  boost::system::error_code ec;
  ctx->use_certificate_chain(boost::asio::buffer(cert_pem), ec);
  if (ec) throw std::runtime_error("invalid certificate: " + ec.message());
  ctx->use_private_key(boost::asio::buffer(key_pem), ssl::context::pem, ec);
  if (ec) throw std::runtime_error("invalid private key, or it does not match the certificate: " + ec.message());
  if (SSL_CTX_check_private_key(native) != 1)
    throw std::runtime_error("private key does not match the certificate: " + openssl_error());
  if (clients.ca_pem) require_client_certificates(native, clients);
  return ctx;
}

std::optional<PemFiles> read_pem_files(const std::filesystem::path& cert, const std::filesystem::path& key,
                                       const std::optional<std::filesystem::path>& client_ca, std::string& error) {
  auto slurp = [&](const std::filesystem::path& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = "cannot read " + path.string();
      return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    out = text.str();
    return true;
  };
  PemFiles files;
  if (!slurp(cert, files.cert) || !slurp(key, files.key)) return std::nullopt;
  if (client_ca && !slurp(*client_ca, files.client_ca)) return std::nullopt;
  return files;
}

}  // namespace dha::server::detail
