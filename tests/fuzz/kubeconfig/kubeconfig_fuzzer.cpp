// A kubeconfig is outside data: written by kubectl, cloud CLIs and people. For every input:
//   - parse_kubeconfig returns a usable Config or throws ConfigError with a message; never any
//     other exception, a crash or a hang;
//   - a Config has an http(s) server without a trailing slash, a namespace, a client
//     certificate only with its key, and insecure-skip-tls-verify only when allowed;
//   - allowing insecure never makes a config that parsed fail, nor change what it says;
//   - base64_decode accepts only whole quanta, and what it accepts re-encodes to the same bytes.
// File references (certificate-authority, client-key, tokenFile, ...) resolve in a sandbox
// directory with a few real files; inputs naming anything outside it are skipped, so the fuzzer
// never reads /dev/zero or the host's secrets.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "dha/kube/config.hpp"
#include "fuzz_check.hpp"

namespace fs = std::filesystem;
using dha::fuzz::printable;

namespace {

fs::path sandbox_dir;

const fs::path& sandbox() {
  static const fs::path dir = [] {
    char tmpl[] = "/tmp/dha-fuzz-kubeconfig-XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr, "cannot create the sandbox directory");
    const fs::path d(tmpl);
    sandbox_dir = d;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(sandbox_dir, ec);
    });
    std::ofstream(d / "ca.crt") << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    std::ofstream(d / "client.crt") << "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n";
    std::ofstream(d / "client.key") << "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n";
    std::ofstream(d / "token") << "sa-token-from-file\n";
    std::ofstream(d / "empty");
    return d;
  }();
  return dir;
}

// True when every scalar, taken as a path, stays inside the sandbox. An alias can make the node
// graph cyclic, so the walk stops (and the input is skipped) past a depth no kubeconfig needs.
bool only_sandbox_paths(const YAML::Node& node, int depth = 0) {
  if (depth > 32) return false;
  switch (node.Type()) {
    case YAML::NodeType::Scalar: {
      const std::string& s = node.Scalar();
      return s.empty() || (s[0] != '/' && s.find("..") == std::string::npos);
    }
    case YAML::NodeType::Sequence:
      for (const auto& item : node)
        if (!only_sandbox_paths(item, depth + 1)) return false;
      return true;
    case YAML::NodeType::Map:
      for (const auto& kv : node)
        if (!only_sandbox_paths(kv.first, depth + 1) || !only_sandbox_paths(kv.second, depth + 1)) return false;
      return true;
    default:
      return true;
  }
}

std::string base64_encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned v = 0;
    for (std::size_t j = 0; j < 3; ++j) v = v << 8 | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0u);
    for (std::size_t j = 0; j < 4; ++j) out += j <= n ? kAlphabet[(v >> (18 - 6 * j)) & 63] : '=';
  }
  return out;
}

void check_base64(std::string_view text) {
  std::string decoded;
  try {
    decoded = dha::kube::base64_decode(text);
  } catch (const dha::kube::ConfigError& e) {
    FUZZ_CHECK(std::string_view(e.what()).starts_with("invalid base64: "), e.what());
    return;
  }
  std::size_t letters = 0;
  for (char c : text) letters += c != '\n' && c != '\r' && c != ' ' && c != '\t';
  FUZZ_CHECK(letters % 4 == 0, "accepted base64 of " + std::to_string(letters) + " letters");
  FUZZ_CHECK(decoded.size() <= letters / 4 * 3 && decoded.size() + 2 >= letters / 4 * 3);
  FUZZ_CHECK(dha::kube::base64_decode(base64_encode(decoded)) == decoded, "base64 does not round-trip");
}

struct Parsed {
  bool ok = false;
  std::string error;
  dha::kube::Config config;
};

Parsed parse(std::string_view text, bool allow_insecure) {
  Parsed p;
  try {
    p.config = dha::kube::parse_kubeconfig(text, sandbox(), "", allow_insecure);
    p.ok = true;
  } catch (const dha::kube::ConfigError& e) {
    p.error = e.what();
    FUZZ_CHECK(!p.error.empty(), "a ConfigError without a message");
  }
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_base64(text);

  try {
    if (!only_sandbox_paths(YAML::Load(std::string(text)))) return 0;
  } catch (const YAML::Exception&) {
    // Not YAML: the parser must say so with a ConfigError, checked below.
  }

  const Parsed strict = parse(text, false);
  const Parsed lenient = parse(text, true);
  if (strict.ok) {
    const auto& c = strict.config;
    FUZZ_CHECK(c.server.starts_with("https://") || c.server.starts_with("http://"), printable(c.server));
    FUZZ_CHECK(!c.server.ends_with("/"), printable(c.server));
    FUZZ_CHECK(!c.insecure_skip_tls_verify, "insecure-skip-tls-verify accepted without allow_insecure");
    FUZZ_CHECK(c.client_cert_pem.empty() == c.client_key_pem.empty(), "a client certificate without its key");
    FUZZ_CHECK(!c.default_namespace.empty(), "an empty default namespace");
    FUZZ_CHECK(!c.source.empty());
    FUZZ_CHECK(lenient.ok, "allowing insecure broke a config that parsed: " + lenient.error);
    FUZZ_CHECK(lenient.config.server == c.server && lenient.config.ca_pem == c.ca_pem &&
               lenient.config.default_namespace == c.default_namespace &&
               lenient.config.client_key_pem == c.client_key_pem &&
               (lenient.config.token == nullptr) == (c.token == nullptr));
    if (c.token != nullptr) FUZZ_CHECK(c.token->token() == lenient.config.token->token());
  }
  return 0;
}
