#include "host/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>
#include <stdexcept>
#include <string>

namespace dha::op {
namespace {

thread_local std::string tl_namespace;
thread_local std::string tl_name;
thread_local std::string tl_reconcile_id;

constexpr std::string_view kControllerGroup = "autoscaling.cozystack.io";
constexpr std::string_view kControllerKind = "DatabaseHorizontalAutoscaler";

void append(spdlog::memory_buf_t& dest, std::string_view text) { dest.append(text.data(), text.data() + text.size()); }

void append_time(spdlog::memory_buf_t& dest, std::chrono::system_clock::time_point t) {
  const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(t - secs).count();
  const std::time_t tt = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                              tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  append(dest, std::string_view(buf, static_cast<std::size_t>(n)));
}

}  // namespace

std::string_view level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::err:
    case spdlog::level::critical:
      return "error";
    default:
      return "off";
  }
}

std::string random_uuid() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  std::uint64_t high = random();
  std::uint64_t low = random();
  high = (high & ~0xf000ULL) | 0x4000ULL;                // version 4
  low = (low & ~(0xc000ULL << 48)) | (0x8000ULL << 48);  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(high >> 32),
                static_cast<unsigned long long>((high >> 16) & 0xffff), static_cast<unsigned long long>(high & 0xffff),
                static_cast<unsigned long long>(low >> 48), static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return buf;
}

DhaLogScope::DhaLogScope(std::string ns, std::string name)
    : reconcile_id_(random_uuid()),
      saved_ns_(std::exchange(tl_namespace, std::move(ns))),
      saved_name_(std::exchange(tl_name, std::move(name))),
      saved_reconcile_id_(std::exchange(tl_reconcile_id, reconcile_id_)) {}

DhaLogScope::~DhaLogScope() {
  tl_namespace = std::move(saved_ns_);
  tl_name = std::move(saved_name_);
  tl_reconcile_id = std::move(saved_reconcile_id_);
}

void append_json_escaped(std::string_view text, spdlog::memory_buf_t& dest) {
  for (const char c : text) {
    switch (c) {
      case '"':
        append(dest, "\\\"");
        break;
      case '\\':
        append(dest, "\\\\");
        break;
      case '\n':
        append(dest, "\\n");
        break;
      case '\r':
        append(dest, "\\r");
        break;
      case '\t':
        append(dest, "\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          append(dest, buf);
        } else {
          dest.push_back(c);
        }
    }
  }
}

void StructuredFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  const std::string_view level = level_name(msg.level);
  const std::string_view payload(msg.payload.data(), msg.payload.size());
  if (format_ == LogFormat::Json) {
    append(dest, "{\"ts\":\"");
    append_time(dest, msg.time);
    append(dest, "\",\"level\":\"");
    append(dest, level);
    append(dest, "\",\"logger\":\"");
    append_json_escaped(std::string_view(msg.logger_name.data(), msg.logger_name.size()), dest);
    append(dest, "\",\"msg\":\"");
    append_json_escaped(payload, dest);
    append(dest, "\"");
    if (!tl_name.empty()) {
      append(dest, ",\"controller\":\"");
      append(dest, kControllerName);
      append(dest, "\",\"controllerGroup\":\"");
      append(dest, kControllerGroup);
      append(dest, "\",\"controllerKind\":\"");
      append(dest, kControllerKind);
      append(dest, "\",\"namespace\":\"");
      append_json_escaped(tl_namespace, dest);
      append(dest, "\",\"name\":\"");
      append_json_escaped(tl_name, dest);
      append(dest, "\",\"reconcileID\":\"");
      append(dest, tl_reconcile_id);
      append(dest, "\"");
    }
    append(dest, "}\n");
    return;
  }
  append_time(dest, msg.time);
  append(dest, " ");
  append(dest, level);
  if (!tl_name.empty()) {
    append(dest, " [");
    append(dest, tl_namespace);
    append(dest, "/");
    append(dest, tl_name);
    append(dest, "]");
  }
  append(dest, " ");
  // Text lines stay one line each even when a message carries a newline.
  for (const char c : payload) dest.push_back(c == '\n' ? ' ' : c);
  append(dest, "\n");
}

std::unique_ptr<spdlog::formatter> StructuredFormatter::clone() const {
  return std::make_unique<StructuredFormatter>(format_);
}

LogFormat parse_log_format(std::string_view text) {
  if (text == "json") return LogFormat::Json;
  // controller-runtime's --zap-encoder calls the text format "console".
  if (text == "text" || text == "console") return LogFormat::Text;
  throw std::invalid_argument("--log-format must be json or text (console), got \"" + std::string(text) + "\"");
}

spdlog::level::level_enum parse_log_level(std::string_view text) {
  if (text == "trace") return spdlog::level::trace;
  if (text == "debug") return spdlog::level::debug;
  if (text == "info") return spdlog::level::info;
  if (text == "warn" || text == "warning") return spdlog::level::warn;
  if (text == "error") return spdlog::level::err;
  // controller-runtime's --zap-log-level also takes a verbosity: 0 is info, 1 debug, more trace.
  if (!text.empty() && text.size() <= 3 && text.find_first_not_of("0123456789") == std::string_view::npos) {
    const int verbosity = std::stoi(std::string(text));
    return verbosity == 0 ? spdlog::level::info : verbosity == 1 ? spdlog::level::debug : spdlog::level::trace;
  }
  throw std::invalid_argument("--log-level must be trace, debug, info, warn, error or a verbosity 0, 1, 2..., got \"" +
                              std::string(text) + "\"");
}

void install_logging(LogFormat format, spdlog::level::level_enum level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_formatter(std::make_unique<StructuredFormatter>(format));
  auto logger = std::make_shared<spdlog::logger>("db-autoscaler", sink);
  logger->set_level(level);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace dha::op
