#include "review_flood.hpp"

#include <curl/curl.h>

namespace dha::abuse {

namespace {

size_t discard(char*, size_t size, size_t n, void*) { return size * n; }

}  // namespace

ReviewFlood::ReviewFlood(std::string url, std::string ca_file, std::vector<std::string> sources, std::string review)
    : url_(std::move(url)), ca_file_(std::move(ca_file)), review_(std::move(review)) {
  for (const auto& source : sources) threads_.emplace_back([this, source] { run(source); });
}

ReviewFlood::~ReviewFlood() {
  stop_ = true;
  for (auto& t : threads_) t.join();
}

void ReviewFlood::run(const std::string& source) {
  CURL* curl = curl_easy_init();
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  const std::string interface = "host!" + source;
  curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file_.c_str());
  curl_easy_setopt(curl, CURLOPT_INTERFACE, interface.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, review_.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(review_.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &discard);
  while (!stop_) {
    ++sent_;
    long status = 0, connects = 0;
    if (curl_easy_perform(curl) == CURLE_OK) {
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
      curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
    }
    answered_ += status == 200;
    throttled_ += status == 429;
    connections_ += static_cast<std::uint64_t>(connects);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
}

}  // namespace dha::abuse
