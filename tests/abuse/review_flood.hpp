#pragma once

// Forged AdmissionReviews posted as fast as a client goes: one thread per source address, each
// on one keep-alive TLS connection (re-opened when the server closes it). What the reviews
// cost the server, not what they get, is the attack; the answers are counted.

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace dha::abuse {

class ReviewFlood {
 public:
  ReviewFlood(std::string url, std::string ca_file, std::vector<std::string> sources, std::string review);
  ~ReviewFlood();  // stops and joins the threads
  ReviewFlood(const ReviewFlood&) = delete;
  ReviewFlood& operator=(const ReviewFlood&) = delete;

  std::uint64_t sent() const { return sent_; }
  std::uint64_t answered() const { return answered_; }    // 200: decided
  std::uint64_t throttled() const { return throttled_; }  // 429
  std::uint64_t connections() const { return connections_; }

 private:
  void run(const std::string& source);

  std::string url_, ca_file_, review_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> sent_{0}, answered_{0}, throttled_{0}, connections_{0};
  std::vector<std::thread> threads_;
};

}  // namespace dha::abuse
