#pragma once

// Building the server's OpenSSL context from PEM text, with the policy in one place:
// TLS 1.2+, forward-secret AEAD suites for TLS 1.2, no renegotiation, no compression, ALPN
// http/1.1 only.

#include <boost/asio/ssl/context.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace dha::server::detail {

// Throws std::runtime_error naming what is wrong (bad certificate, bad key, key mismatch).
std::shared_ptr<boost::asio::ssl::context> make_tls_context(const std::string& cert_pem, const std::string& key_pem);

struct PemPair {
  std::string cert;
  std::string key;
  bool operator==(const PemPair&) const = default;
};

// Reads cert and key files; std::nullopt (with `error` set) when either cannot be read.
std::optional<PemPair> read_pem_pair(const std::filesystem::path& cert, const std::filesystem::path& key,
                                     std::string& error);

}  // namespace dha::server::detail
