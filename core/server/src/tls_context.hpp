#pragma once

// Building the server's OpenSSL context from PEM text, with the policy in one place:
// TLS 1.2+, forward-secret AEAD suites for TLS 1.2, no renegotiation, no compression, ALPN
// http/1.1 only; and, when given a client CA, the client certificate it requires.

#include <boost/asio/ssl/context.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dha::server::detail {

// What the server requires of its clients' certificates. No `ca_pem`: nothing, no certificate
// is asked for.
struct ClientVerification {
  // The CAs a client certificate must chain to (one or more PEM certificates). Given but
  // holding none is an error, never "no verification".
  std::optional<std::string> ca_pem;
  // When not empty, the client certificate's subject common name or one of its DNS
  // subjectAltNames must be one of these (exactly).
  std::vector<std::string> names;
};

// Throws std::runtime_error naming what is wrong (bad certificate, bad key, key mismatch, a
// client CA bundle without a certificate).
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem,
                                                            const ClientVerification& clients = {});

// The files a TLS server serves from, as read together.
struct PemFiles {
  std::string cert;
  std::string key;
  std::string client_ca;  // empty when no client CA file is configured
  bool operator==(const PemFiles&) const = default;
};

// Reads cert and key files, and the client CA file when one is given; std::nullopt (with
// `error` set) when any cannot be read.
std::optional<PemFiles> read_pem_files(const std::filesystem::path& cert, const std::filesystem::path& key,
                                       const std::optional<std::filesystem::path>& client_ca, std::string& error);

}  // namespace dha::server::detail
