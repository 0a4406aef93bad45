#include "pipeline/grouped_query.hpp"

#include <vector>

namespace dha::pipeline {

std::shared_ptr<const SeriesAnswer> GroupedAnswers::get(const GroupedQueryKey& key, std::int64_t now_seconds,
                                                        const std::function<SeriesAnswer()>& fetch, bool& fetched) {
  fetched = false;
  if (max_age_seconds_ <= 0) {
    fetched = true;
    return std::make_shared<const SeriesAnswer>(fetch());
  }
  std::shared_future<Answer> answer;
  std::promise<Answer> mine;
  {
    std::lock_guard lock(mu_);
    // Drop expired answers once per max age, so keys of namespaces that are gone do not pile up.
    if (!swept_at_ || now_seconds < *swept_at_ || now_seconds - *swept_at_ >= max_age_seconds_) {
      std::erase_if(answers_, [&](const auto& kv) { return !fresh(kv.second, now_seconds); });
      swept_at_ = now_seconds;
    }
    auto it = answers_.find(key);
    if (it != answers_.end() && fresh(it->second, now_seconds)) {
      answer = it->second.answer;
    } else {
      answer = mine.get_future().share();
      answers_.insert_or_assign(key, Entry{now_seconds, answer});
      fetched = true;
    }
  }
  if (fetched) {
    // fetch_series reports every failure in its answer; a throw here would be a host bug, and
    // the reconciles waiting on this key must not hang on it.
    try {
      mine.set_value(std::make_shared<const SeriesAnswer>(fetch()));
    } catch (...) {
      mine.set_exception(std::current_exception());
    }
  }
  return answer.get();
}

std::size_t GroupedAnswers::size() const {
  std::lock_guard lock(mu_);
  return answers_.size();
}

std::optional<std::map<std::string, std::string>> target_label_values(const std::map<std::string, std::string>& by,
                                                                      const tenancy::TargetLabels& target) {
  std::map<std::string, std::string> out;
  for (const auto& [label, tmpl] : by) {
    std::string value;
    for (std::size_t i = 0; i < tmpl.size(); ++i) {
      if (tmpl.compare(i, 2, "${") != 0) {
        value += tmpl[i];
        continue;
      }
      const std::size_t close = tmpl.find('}', i);
      if (close == std::string::npos) return std::nullopt;
      const std::string name = tmpl.substr(i + 2, close - i - 2);
      const std::string* v = name == "namespace" ? &target.namespace_name
                             : name == "name"    ? &target.name
                             : name == "release" ? &target.release
                                                 : nullptr;
      if (v == nullptr) return std::nullopt;
      value += *v;
      i = close;
    }
    out.emplace(label, std::move(value));
  }
  return out;
}

bool answers_for_each_target(const SeriesAnswer& grouped) {
  switch (grouped.status) {
    case DHA_OK:
    case DHA_NOT_FOUND:
    case DHA_UNAVAILABLE:
    case DHA_DEADLINE_EXCEEDED:
    case DHA_UNAUTHENTICATED:
      return true;
    default:
      return false;
  }
}

MetricQueryResult select_target(const SeriesAnswer& grouped, const std::map<std::string, std::string>& values,
                                Aggregation how, const std::string& what) {
  if (!grouped.ok()) return grouped.result;
  std::vector<sdk::Sample> mine;
  for (const auto& s : grouped.samples) {
    bool match = true;
    for (const auto& [label, value] : values) {
      const auto it = s.labels.find(label);
      if (it == s.labels.end() || it->second != value) {
        match = false;
        break;
      }
    }
    if (match) mine.push_back(s);
  }
  return combine_series(grouped.result, mine, how, what);
}

}  // namespace dha::pipeline
