#include "test_clients.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace dha::testing_clients {

namespace {

size_t append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// `source` (a 127.x.y.z address, or empty for the kernel's choice) lets one test play several
// peers: the server tells clients apart by address.
int connect_loopback(std::uint16_t port, const std::string& source) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  if (!source.empty()) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source.c_str(), &from.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
      ::close(fd);
      throw std::runtime_error("cannot bind to source address " + source);
    }
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("connect() to 127.0.0.1:" + std::to_string(port) + " failed");
  }
  return fd;
}

}  // namespace

HttpClient::HttpClient(std::string ca_pem, std::string source)
    : curl_(curl_easy_init()), ca_pem_(std::move(ca_pem)), interface_(source.empty() ? "" : "host!" + source) {
  if (curl_ == nullptr) throw std::runtime_error("curl_easy_init failed");
  if (!interface_.empty()) curl_easy_setopt(static_cast<CURL*>(curl_), CURLOPT_INTERFACE, interface_.c_str());
}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

void HttpClient::set_client_certificate(std::string cert_pem, std::string key_pem) {
  client_cert_pem_ = std::move(cert_pem);
  client_key_pem_ = std::move(key_pem);
}

HttpResult HttpClient::request(const std::string& method, const std::string& url, const std::string& body,
                               const std::vector<std::string>& headers, std::chrono::milliseconds timeout) {
  auto* curl = static_cast<CURL*>(curl_);
  HttpResult result;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  if (method == "POST" || method == "PUT" || !body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  curl_slist* list = nullptr;
  for (const auto& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, append);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.headers);
  curl_blob ca{};
  if (!ca_pem_.empty()) {
    ca.data = ca_pem_.data();
    ca.len = ca_pem_.size();
    ca.flags = CURL_BLOB_COPY;
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(curl, CURLOPT_CERTINFO, 1L);
  }
  curl_blob client_cert{};
  curl_blob client_key{};
  if (!client_cert_pem_.empty()) {
    client_cert = {client_cert_pem_.data(), client_cert_pem_.size(), CURL_BLOB_COPY};
    client_key = {client_key_pem_.data(), client_key_pem_.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &client_cert);
    curl_easy_setopt(curl, CURLOPT_SSLKEYTYPE, "PEM");
    curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &client_key);
  }
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(list);
  if (code != CURLE_OK) {
    result.error = curl_easy_strerror(code);
    return result;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &result.new_connections);
  curl_certinfo* info = nullptr;
  if (!ca_pem_.empty() && curl_easy_getinfo(curl, CURLINFO_CERTINFO, &info) == CURLE_OK && info != nullptr &&
      info->num_of_certs > 0) {
    for (curl_slist* s = info->certinfo[0]; s != nullptr; s = s->next) {
      std::string line = s->data;
      if (line.rfind("Subject:", 0) == 0) result.peer_subject = line.substr(8);
    }
  }
  return result;
}

RawConnection::RawConnection(std::uint16_t port, const std::string& source) : fd_(connect_loopback(port, source)) {}
RawConnection::~RawConnection() { close(); }

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::send_all(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::string RawConnection::receive(std::chrono::milliseconds timeout, const std::string& until) {
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[4096];
    auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (!until.empty() && out.find(until) != std::string::npos) break;
  }
  return out;
}

bool RawConnection::closed_within(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

TlsProbe probe_tls(std::uint16_t port, int max_version, const std::string& alpn_wire) {
  TlsProbe probe;
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (max_version != 0) {
    SSL_CTX_set_security_level(ctx, 0);  // let the client even try old protocols
    SSL_CTX_set_min_proto_version(ctx, 0);
    SSL_CTX_set_max_proto_version(ctx, max_version);
  }
  if (!alpn_wire.empty())
    SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(alpn_wire.data()),
                            static_cast<unsigned>(alpn_wire.size()));
  int fd = connect_loopback(port, {});
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, "localhost");
  if (SSL_connect(ssl) == 1) {
    probe.handshake_ok = true;
    const unsigned char* proto = nullptr;
    unsigned len = 0;
    SSL_get0_alpn_selected(ssl, &proto, &len);
    probe.alpn.assign(reinterpret_cast<const char*>(proto), len);
    probe.protocol = SSL_get_version(ssl);
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  ::close(fd);
  SSL_CTX_free(ctx);
  return probe;
}

}  // namespace dha::testing_clients
