#pragma once

#include <filesystem>
#include <string>
#include <vector>

// A self-signed serving certificate for when none was provided, as controller-runtime does for
// its secure metrics endpoint: the process still serves HTTPS (tokens are never sent in clear
// text), scrapers must skip verification until a real certificate is mounted.
namespace dha::server {

// Writes tls.crt and tls.key (mode 0600) into `dir` (created if missing): an ECDSA P-256 key and
// a certificate valid for one year for `dns_names` plus 127.0.0.1. Throws std::runtime_error
// naming the file or the OpenSSL step that failed.
void write_self_signed_certificate(const std::filesystem::path& dir, const std::vector<std::string>& dns_names);

// `cert_dir` when it holds tls.crt and tls.key; otherwise a fresh private directory under the
// system temporary directory with a self-signed certificate, after a warning in the log.
std::filesystem::path certificate_dir_or_self_signed(const std::filesystem::path& cert_dir, const std::string& purpose);

}  // namespace dha::server
