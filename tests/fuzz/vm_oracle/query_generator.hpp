#pragma once

// Query templates and label values for the VictoriaMetrics-oracle fuzzer: a small PromQL /
// MetricsQL grammar biased toward the forms where a lexer-level check and a real parser may read
// a query differently, and token-level mutations of given templates. Everything is a function of
// the random generator passed in, so (seed, input number) replays an input.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dha::fuzz {

// One fuzz input, in the query_template corpus's format when saved:
// "<template>\0<namespace>\0<name>\0<release>".
struct TemplateInput {
  std::string query_template;
  std::string namespace_name;
  std::string name;
  std::string release;

  std::string serialize() const;
  static TemplateInput parse(const std::string& bytes);
};

// Metric names the generator uses; the fuzzer seeds data for each of them in several namespaces
// so that VictoriaMetrics fetches (and the trace shows) every selector a query has.
const std::vector<std::string>& generator_metric_names();

class QueryGenerator {
 public:
  // `seeds`: templates to mutate (the corpus); may be empty.
  explicit QueryGenerator(std::vector<TemplateInput> seeds) : seeds_(std::move(seeds)) {}

  // The input number `index` of the run with `seed`: the same pair always gives the same input.
  TemplateInput generate(uint64_t seed, uint64_t index) const;

 private:
  std::vector<TemplateInput> seeds_;
};

}  // namespace dha::fuzz
