#include "host/logging.hpp"

#include <cxxabi.h>
#include <execinfo.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// One timestamp as zap's time encoders write it, in UTC. The numbers are JSON numbers in the
// json format (written bare), as zap writes them.
void append_time(spdlog::memory_buf_t& dest, std::chrono::system_clock::time_point t, TimeEncoding encoding) {
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  char buf[64];
  int n = 0;
  switch (encoding) {
    // zap divides the nanoseconds as a float64 and prints the shortest decimal that reads back.
    case TimeEncoding::Epoch:
    case TimeEncoding::Millis: {
      const double value = static_cast<double>(nanos) / (encoding == TimeEncoding::Epoch ? 1e9 : 1e6);
      n = static_cast<int>(std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed).ptr - buf);
      break;
    }
    case TimeEncoding::Nano:
      n = std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(nanos));
      break;
    default: {
      const auto secs = std::chrono::time_point_cast<std::chrono::seconds>(t);
      const auto frac = std::chrono::duration_cast<std::chrono::nanoseconds>(t - secs).count();
      const std::time_t tt = std::chrono::system_clock::to_time_t(secs);
      std::tm tm{};
      gmtime_r(&tt, &tm);
      n = std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                        tm.tm_hour, tm.tm_min, tm.tm_sec);
      if (encoding == TimeEncoding::Iso8601) {
        n +=
            std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%03d", static_cast<int>(frac / 1000000));
      } else if (encoding == TimeEncoding::Rfc3339Nano && frac != 0) {
        // Go's .999999999: the fraction without trailing zeros.
        n += std::snprintf(buf + n, sizeof buf - static_cast<std::size_t>(n), ".%09lld", static_cast<long long>(frac));
        while (buf[n - 1] == '0') --n;
      }
      buf[n++] = 'Z';
    }
  }
  append(dest, std::string_view(buf, static_cast<std::size_t>(n)));
}

// The stack of the logging call, one frame a line as "function+offset (object)", innermost first,
// from the caller of spdlog on. Functions of the executable have names only where exported;
// the others read as object+offset, for `addr2line -fCe object offset`.
std::string stacktrace() {
  void* frames[48];
  const int n = ::backtrace(frames, 48);
  char** symbols = ::backtrace_symbols(frames, n);
  if (symbols == nullptr) return {};
  std::string out, all;
  bool in_logger = false;
  for (int i = 1; i < n; ++i) {
    std::string frame = symbols[i];
    // "object(mangled+0x1f) [0x...]": demangle the function where there is one.
    const auto open = frame.find('('), plus = frame.find('+', open), close = frame.find(')', open);
    std::string function, where = frame.substr(0, open);
    if (open != std::string::npos && plus != std::string::npos && close != std::string::npos && plus > open + 1) {
      const std::string mangled = frame.substr(open + 1, plus - open - 1);
      int status = 0;
      char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
      function = (status == 0 && demangled ? demangled : mangled) + frame.substr(plus, close - plus);
      std::free(demangled);
    } else if (open != std::string::npos && close != std::string::npos) {
      function = frame.substr(open + 1, close - open - 1);
    }
    // Skip this formatter and spdlog's own frames: the trace starts where the program logged.
    const bool logger_frame =
        function.find("spdlog::") != std::string::npos || function.find("StructuredFormatter") != std::string::npos;
    const std::string line = function.empty()     ? frame
                             : function[0] == '+' ? where + function
                                                  : function + " (" + where + ")";
    all += (all.empty() ? "" : "\n") + line;
    if (logger_frame) in_logger = true;
    if (logger_frame || !in_logger) continue;
    out += (out.empty() ? "" : "\n") + line;
  }
  std::free(symbols);
  // Without a named spdlog frame to start after (a static spdlog), the whole stack.
  return in_logger ? out : all;
}

bool is_number(TimeEncoding encoding) {
  return encoding == TimeEncoding::Epoch || encoding == TimeEncoding::Millis || encoding == TimeEncoding::Nano;
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
    append(dest, is_number(time_) ? "{\"ts\":" : "{\"ts\":\"");
    append_time(dest, msg.time, time_);
    append(dest, is_number(time_) ? ",\"level\":\"" : "\",\"level\":\"");
    append(dest, level);
    append(dest, "\",\"logger\":\"");
    append_json_escaped(std::string_view(msg.logger_name.data(), msg.logger_name.size()), dest);
    append(dest, "\",\"msg\":\"");
    append_json_escaped(payload, dest);
    append(dest, "\"");
    if (msg.level >= stacktrace_at_ && msg.level != spdlog::level::off) {
      append(dest, ",\"stacktrace\":\"");
      append_json_escaped(stacktrace(), dest);
      append(dest, "\"");
    }
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
  append_time(dest, msg.time, time_);
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
  // As zap's console encoder: the stack on the lines after the record, each indented by a tab.
  if (msg.level >= stacktrace_at_ && msg.level != spdlog::level::off) {
    const std::string trace = stacktrace();
    std::size_t start = 0;
    while (start < trace.size()) {
      const auto end = std::min(trace.find('\n', start), trace.size());
      append(dest, "\t");
      append(dest, std::string_view(trace).substr(start, end - start));
      append(dest, "\n");
      start = end + 1;
    }
  }
}

std::unique_ptr<spdlog::formatter> StructuredFormatter::clone() const {
  return std::make_unique<StructuredFormatter>(format_, time_, stacktrace_at_);
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

TimeEncoding parse_time_encoding(std::string_view text) {
  if (text == "epoch") return TimeEncoding::Epoch;
  if (text == "millis") return TimeEncoding::Millis;
  if (text == "nano") return TimeEncoding::Nano;
  if (text == "iso8601") return TimeEncoding::Iso8601;
  if (text == "rfc3339") return TimeEncoding::Rfc3339;
  if (text == "rfc3339nano") return TimeEncoding::Rfc3339Nano;
  throw std::invalid_argument(
      "--zap-time-encoding must be one of epoch, millis, nano, iso8601, rfc3339, rfc3339nano, got \"" +
      std::string(text) + "\"");
}

spdlog::level::level_enum parse_stacktrace_level(std::string_view text) {
  if (text == "debug") return spdlog::level::debug;
  if (text == "info") return spdlog::level::info;
  if (text == "warn") return spdlog::level::warn;
  if (text == "error") return spdlog::level::err;
  if (text == "dpanic" || text == "panic" || text == "fatal") return spdlog::level::off;
  throw std::invalid_argument(
      "--zap-stacktrace-level must be one of info, error, panic (or debug, warn, dpanic, fatal), got \"" +
      std::string(text) + "\"");
}

void install_logging(LogFormat format, spdlog::level::level_enum level, TimeEncoding time,
                     spdlog::level::level_enum stacktrace_at) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_formatter(std::make_unique<StructuredFormatter>(format, time, stacktrace_at));
  auto logger = std::make_shared<spdlog::logger>("db-autoscaler", sink);
  logger->set_level(level);
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace dha::op
