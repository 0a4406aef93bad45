#pragma once

// Small real clients for the server tests: libcurl for HTTP(S) with keep-alive, POSIX sockets
// for raw bytes, and an OpenSSL handshake probe for protocol-level checks.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace dha::testing_clients {

struct HttpResult {
  long status = 0;
  std::string body;
  std::string headers;       // raw response headers
  long new_connections = 0;  // 0 means the keep-alive connection was reused
  std::string peer_subject;  // TLS only: "CN = ..." of the server certificate
  std::string error;         // curl's message when the transfer failed
};

// One libcurl easy handle: consecutive requests reuse its connection when the server keeps it.
// `source`: the local address it connects from (a 127.x.y.z address), if given.
class HttpClient {
 public:
  explicit HttpClient(std::string ca_pem = {}, std::string source = {});  // empty ca_pem = plain HTTP use only
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Presents this certificate (PEM) and key in every later TLS handshake.
  void set_client_certificate(std::string cert_pem, std::string key_pem);

  HttpResult request(const std::string& method, const std::string& url, const std::string& body = {},
                     const std::vector<std::string>& headers = {},
                     std::chrono::milliseconds timeout = std::chrono::seconds(5));

 private:
  void* curl_;
  std::string ca_pem_;
  std::string client_cert_pem_;
  std::string client_key_pem_;
  std::string interface_;  // CURLOPT_INTERFACE, "host!<source>"
};

// A blocking TCP connection to 127.0.0.1:port, from `source` (a 127.x.y.z address) if given.
class RawConnection {
 public:
  explicit RawConnection(std::uint16_t port, const std::string& source = {});
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool send_all(const std::string& bytes);
  // Reads until the peer closes, `timeout` passes, or `until` appears; returns what arrived.
  std::string receive(std::chrono::milliseconds timeout, const std::string& until = {});
  // True if the peer closed the connection within `timeout`.
  bool closed_within(std::chrono::milliseconds timeout);
  void close();
  int native_handle() const { return fd_; }

 private:
  int fd_ = -1;
};

struct TlsProbe {
  bool handshake_ok = false;
  std::string alpn;      // protocol the server selected, empty if none
  std::string protocol;  // "TLSv1.3"...
};

// Handshakes with 127.0.0.1:port. max_version: 0 = library default, else TLS1_1_VERSION etc.
// alpn_wire: ALPN list in wire format (length-prefixed); empty sends none.
TlsProbe probe_tls(std::uint16_t port, int max_version, const std::string& alpn_wire);

}  // namespace dha::testing_clients
