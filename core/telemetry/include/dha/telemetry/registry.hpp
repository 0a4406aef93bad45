#pragma once

// A small Prometheus registry: named families of counters, gauges and histograms, each with a
// fixed list of label names; series are created on first use and can be deleted (the operator
// drops a DHA's gauges when the DHA goes away). expose() renders text format 0.0.4.
// Everything here is thread-safe.

#include "dha/telemetry/metrics.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dha::telemetry {

// Label values in the order of the family's label names.
using LabelValues = std::vector<std::string>;
// (name, value) pairs used to select series for deletion; a subset of the label names.
using LabelMatch = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { counter, gauge, histogram };

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, MetricType type, std::vector<std::string> label_names);
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  const std::vector<std::string>& label_names() const { return label_names_; }

  // Appends this family (HELP, TYPE and every series) in text format 0.0.4.
  virtual void write_text(std::string& out) const = 0;

 protected:
  // Throws std::invalid_argument unless there is one value per label name.
  void check_arity(const LabelValues& values) const;
  // Index of each matched label name; throws std::invalid_argument for an unknown name.
  std::vector<std::pair<std::size_t, std::string>> resolve(const LabelMatch& match) const;

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  std::vector<std::string> label_names_;
};

template <class Cell>
class Family final : public FamilyBase {
 public:
  using Factory = std::function<std::shared_ptr<Cell>()>;

  Family(std::string name, std::string help, MetricType type, std::vector<std::string> label_names, Factory factory)
      : FamilyBase(std::move(name), std::move(help), type, std::move(label_names)), factory_(std::move(factory)) {}

  // The series for these label values, created on first use.
  std::shared_ptr<Cell> with(const LabelValues& values) {
    check_arity(values);
    std::lock_guard lock(mutex_);
    auto& cell = series_[values];
    if (!cell) cell = factory_();
    return cell;
  }

  // Deletes one series; returns whether it existed.
  bool remove(const LabelValues& values) {
    check_arity(values);
    std::lock_guard lock(mutex_);
    return series_.erase(values) > 0;
  }

  // Deletes every series whose labels match all given (name, value) pairs; returns how many.
  std::size_t remove_matching(const LabelMatch& match) {
    auto wanted = resolve(match);
    std::lock_guard lock(mutex_);
    std::size_t removed = 0;
    for (auto it = series_.begin(); it != series_.end();) {
      bool hit = true;
      for (const auto& [index, value] : wanted) hit = hit && it->first[index] == value;
      if (hit) {
        it = series_.erase(it);
        ++removed;
      } else {
        ++it;
      }
    }
    return removed;
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return series_.size();
  }

  void write_text(std::string& out) const override;

 private:
  Factory factory_;
  mutable std::mutex mutex_;
  std::map<LabelValues, std::shared_ptr<Cell>> series_;  // ordered: stable exposition
};

// Defined in metric_family.cpp, one per cell kind.
template <>
void Family<Counter>::write_text(std::string& out) const;
template <>
void Family<Gauge>::write_text(std::string& out) const;
template <>
void Family<Histogram>::write_text(std::string& out) const;

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

class Registry {
 public:
  // Registering the same name again with the same type and label names returns the existing
  // family; anything else with that name throws std::invalid_argument, as do invalid metric or
  // label names and invalid bucket lists.
  CounterFamily& counter(std::string name, std::string help, std::vector<std::string> label_names = {});
  GaugeFamily& gauge(std::string name, std::string help, std::vector<std::string> label_names = {});
  HistogramFamily& histogram(std::string name, std::string help, std::vector<std::string> label_names = {},
                             std::vector<double> upper_bounds = default_latency_buckets());

  // Runs before every expose(), to refresh values that are read rather than counted (the
  // process_* families). Collectors run under the registry's lock, so they must not register
  // families. Returns an id for remove_collector().
  std::uint64_t add_collector(std::function<void()> collect);
  // Once this returns the collector is not running and never runs again, so whatever it reads
  // may be destroyed. Unknown ids are ignored. Must not be called from a collector.
  void remove_collector(std::uint64_t id);

  // Text exposition format 0.0.4, families sorted by name.
  std::string expose() const;

  static constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

 private:
  FamilyBase* find(const std::string& name, MetricType type, const std::vector<std::string>& label_names);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
  std::map<std::uint64_t, std::function<void()>> collectors_;
  std::uint64_t next_collector_id_ = 1;
  mutable std::size_t last_exposition_bytes_ = 0;  // under mutex_
};

// Name rules of the exposition format, exposed for tests and callers that build names.
bool is_valid_metric_name(std::string_view name);
bool is_valid_label_name(std::string_view name);

}  // namespace dha::telemetry
