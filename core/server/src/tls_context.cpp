#include "tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <fstream>
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

}  // namespace

std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem) {
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
  return ctx;
}

std::optional<PemPair> read_pem_pair(const std::filesystem::path& cert, const std::filesystem::path& key,
                                     std::string& error) {
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
  PemPair pair;
  if (!slurp(cert, pair.cert) || !slurp(key, pair.key)) return std::nullopt;
  return pair;
}

}  // namespace dha::server::detail
