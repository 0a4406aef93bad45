#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "dha/testing/base/http_client.hpp"

namespace dha::testing::base {
namespace {

// A loopback listener that answers each request with what it received (request line, headers
// and body), or, when silent, accepts and never answers.
class EchoServer {
 public:
  explicit EchoServer(bool silent = false) : silent_(silent) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd_, 8) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error(std::string("echo server: cannot listen on loopback: ") + std::strerror(errno));
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~EchoServer() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  std::string url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  int connections() const { return connections_; }

 private:
  void serve() {
    while (!stop_) {
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      ++connections_;
      std::thread([client, silent = silent_] { answer(client, silent); }).detach();  // owns nothing of this
    }
  }
  static void answer(int client, bool silent) {
    std::string received;
    char buffer[4096];
    while (true) {
      const auto header_end = received.find("\r\n\r\n");
      if (header_end != std::string::npos) {
        std::size_t length = 0;
        const auto at = received.find("Content-Length: ");
        if (at != std::string::npos && at < header_end) length = std::stoul(received.substr(at + 16));
        if (received.size() >= header_end + 4 + length) {
          const std::string request = received.substr(0, header_end + 4 + length);
          received.erase(0, request.size());
          if (silent) continue;
          const std::string reply =
              "HTTP/1.1 201 Created\r\nContent-Length: " + std::to_string(request.size()) + "\r\n\r\n" + request;
          if (::send(client, reply.data(), reply.size(), MSG_NOSIGNAL) < 0) break;
          continue;
        }
      }
      const auto n = ::recv(client, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      received.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(client);
  }

  bool silent_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

TEST(HttpClient, SendsMethodHeadersAndBodyAndReturnsTheStatusAndBody) {
  EchoServer server;
  HttpRequest request("PATCH", server.url("/apis/x"), "{\"a\":1}");
  request.headers = {"Content-Type: application/merge-patch+json", "Authorization: Bearer t0ken"};
  const HttpReply reply = http_send(request);
  ASSERT_EQ(reply.error, "");
  EXPECT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body.rfind("PATCH /apis/x HTTP/1.1\r\n", 0), 0u) << reply.body;
  EXPECT_NE(reply.body.find("Content-Type: application/merge-patch+json\r\n"), std::string::npos);
  EXPECT_NE(reply.body.find("Authorization: Bearer t0ken\r\n"), std::string::npos);
  EXPECT_NE(reply.body.find("Content-Length: 7\r\n"), std::string::npos);
  EXPECT_EQ(reply.body.substr(reply.body.size() - 7), "{\"a\":1}");
}

TEST(HttpClient, AnEmptyBodyIsSentWhenSetAndNoneWhenNot) {
  EchoServer server;
  const HttpRequest with_empty("POST", server.url("/flush"), std::string_view());
  EXPECT_NE(http_send(with_empty).body.find("Content-Length: 0\r\n"), std::string::npos);
  const HttpRequest without("GET", server.url("/health"));
  EXPECT_EQ(http_send(without).body.find("Content-Length"), std::string::npos);
}

TEST(HttpClient, OneClientKeepsItsConnectionBetweenRequests) {
  EchoServer server;
  HttpClient client;
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(client.send(HttpRequest("GET", server.url("/" + std::to_string(i)))).status, 201);
  EXPECT_EQ(server.connections(), 1);
}

TEST(HttpClient, ASilentServerIsATimeoutNotAHang) {
  EchoServer server(/*silent=*/true);
  HttpRequest request("GET", server.url("/"));
  request.timeout = std::chrono::milliseconds(300);
  const HttpReply reply = http_send(request);
  EXPECT_TRUE(reply.timed_out);
  EXPECT_EQ(reply.status, 0);
  EXPECT_NE(reply.error, "");
}

TEST(HttpClient, NoServerIsAnErrorWithoutAStatus) {
  int port = 0;
  {
    EchoServer gone;
    port = std::stoi(gone.url("").substr(17));
  }
  const HttpReply reply = http_send(HttpRequest("GET", "http://127.0.0.1:" + std::to_string(port) + "/"));
  EXPECT_EQ(reply.status, 0);
  EXPECT_FALSE(reply.timed_out);
  EXPECT_NE(reply.error, "");
}

}  // namespace
}  // namespace dha::testing::base
