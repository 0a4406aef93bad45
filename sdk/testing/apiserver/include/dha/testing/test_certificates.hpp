#pragma once
// Throwaway X.509 material for tests: a fresh CA and a serving certificate signed by it
// (ECDSA P-256, valid for a day). Use it for a webhook server under test and put `ca_pem`
// (base64-encoded) in the ValidatingWebhookConfiguration's caBundle.

#include <string>
#include <vector>

namespace dha::testing {

struct TestCertificate {
  std::string ca_pem;    // the issuing CA certificate
  std::string cert_pem;  // the serving certificate
  std::string key_pem;   // the serving certificate's private key (PKCS#8)
};

// `dns_names` and `ip_addresses` become the subjectAltName; the first DNS name (or IP) is
// also the common name. Throws std::runtime_error if OpenSSL fails.
TestCertificate issue_test_certificate(const std::vector<std::string>& dns_names,
                                       const std::vector<std::string>& ip_addresses);

}  // namespace dha::testing
