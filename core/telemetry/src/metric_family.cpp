#include "text_format.hpp"

#include "dha/telemetry/registry.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dha::telemetry {

void Counter::inc(double amount) noexcept {
  if (!(amount >= 0.0) || std::isinf(amount)) return;
  double current = value_.load(std::memory_order_relaxed);
  while (!value_.compare_exchange_weak(current, current + amount, std::memory_order_relaxed)) {
  }
}

void Gauge::add(double amount) noexcept {
  double current = value_.load(std::memory_order_relaxed);
  while (!value_.compare_exchange_weak(current, current + amount, std::memory_order_relaxed)) {
  }
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)),
      bucket_counts_(std::make_unique<std::atomic<std::uint64_t>[]>(upper_bounds_.size() + 1)) {
  for (std::size_t i = 0; i < upper_bounds_.size(); ++i) {
    if (!std::isfinite(upper_bounds_[i]) || (i > 0 && !(upper_bounds_[i] > upper_bounds_[i - 1])))
      throw std::invalid_argument("histogram buckets must be finite and strictly increasing");
  }
}

void Histogram::observe(double value) noexcept {
  if (std::isnan(value)) return;
  // First bucket whose upper bound is >= value (the `le` semantics); past the end is +Inf.
  auto index = static_cast<std::size_t>(std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(), value) -
                                        upper_bounds_.begin());
  bucket_counts_[index].fetch_add(1, std::memory_order_relaxed);
  double current = sum_.load(std::memory_order_relaxed);
  while (!sum_.compare_exchange_weak(current, current + value, std::memory_order_relaxed)) {
  }
  count_.fetch_add(1, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot snap;
  snap.upper_bounds = upper_bounds_;
  std::uint64_t running = 0;
  for (std::size_t i = 0; i <= upper_bounds_.size(); ++i) {
    running += bucket_counts_[i].load(std::memory_order_relaxed);
    snap.cumulative.push_back(running);
  }
  // Concurrent observers may have bumped a bucket but not yet the count; the buckets are the
  // truth for a consistent scrape (+Inf bucket == _count).
  snap.count = running;
  snap.sum = sum_.load(std::memory_order_relaxed);
  return snap;
}

std::vector<double> default_latency_buckets() {
  return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1)
    throw std::invalid_argument("exponential_buckets needs start > 0, factor > 1, count >= 1");
  std::vector<double> out;
  for (int i = 0; i < count; ++i, start *= factor) out.push_back(start);
  return out;
}

FamilyBase::FamilyBase(std::string name, std::string help, MetricType type, std::vector<std::string> label_names)
    : name_(std::move(name)), help_(std::move(help)), type_(type), label_names_(std::move(label_names)) {}

void FamilyBase::check_arity(const LabelValues& values) const {
  if (values.size() != label_names_.size())
    throw std::invalid_argument(name_ + ": expected " + std::to_string(label_names_.size()) + " label values, got " +
                                std::to_string(values.size()));
}

std::vector<std::pair<std::size_t, std::string>> FamilyBase::resolve(const LabelMatch& match) const {
  std::vector<std::pair<std::size_t, std::string>> out;
  for (const auto& [name, value] : match) {
    auto it = std::find(label_names_.begin(), label_names_.end(), name);
    if (it == label_names_.end()) throw std::invalid_argument(name_ + ": no label named " + name);
    out.emplace_back(static_cast<std::size_t>(it - label_names_.begin()), value);
  }
  return out;
}

namespace {

void write_header(std::string& out, const FamilyBase& family, std::string_view type) {
  out += "# HELP ";
  out += family.name();
  out += ' ';
  text::append_help(out, family.help());
  out += "\n# TYPE ";
  out += family.name();
  out += ' ';
  out += type;
  out += '\n';
}

void write_sample(std::string& out, std::string_view name, const FamilyBase& family, const LabelValues& values,
                  double value) {
  out += name;
  text::append_labels(out, family.label_names(), values);
  out += ' ';
  text::append_value(out, value);
  out += '\n';
}

}  // namespace

template <>
void Family<Counter>::write_text(std::string& out) const {
  write_header(out, *this, "counter");
  std::lock_guard lock(mutex_);
  for (const auto& [values, cell] : series_) write_sample(out, name(), *this, values, cell->value());
}

template <>
void Family<Gauge>::write_text(std::string& out) const {
  write_header(out, *this, "gauge");
  std::lock_guard lock(mutex_);
  for (const auto& [values, cell] : series_) write_sample(out, name(), *this, values, cell->value());
}

template <>
void Family<Histogram>::write_text(std::string& out) const {
  write_header(out, *this, "histogram");
  std::lock_guard lock(mutex_);
  const std::string bucket = name() + "_bucket";
  for (const auto& [values, cell] : series_) {
    auto snap = cell->snapshot();
    for (std::size_t i = 0; i <= snap.upper_bounds.size(); ++i) {
      std::string le;
      if (i < snap.upper_bounds.size())
        text::append_value(le, snap.upper_bounds[i]);
      else
        le = "+Inf";
      out += bucket;
      text::append_labels(out, label_names(), values, "le", le);
      out += ' ';
      text::append_value(out, static_cast<double>(snap.cumulative[i]));
      out += '\n';
    }
    write_sample(out, name() + "_sum", *this, values, snap.sum);
    write_sample(out, name() + "_count", *this, values, static_cast<double>(snap.count));
  }
}

}  // namespace dha::telemetry
