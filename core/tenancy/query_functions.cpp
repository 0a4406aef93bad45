#include "tenancy/query_functions.hpp"

#include <algorithm>
#include <iterator>

namespace dha::tenancy {
namespace {

constexpr std::string_view kAggregations[] = {
    "any",      "avg",       "bottomk",    "bottomk_avg", "bottomk_max", "bottomk_min", "count",
    "count_values", "distinct", "geomean",  "group",       "histogram",   "limit_ratio", "limitk",
    "mad",      "max",       "median",     "min",         "mode",        "quantile",    "quantiles",
    "stddev",   "stdvar",    "sum",        "sum2",        "topk",        "topk_avg",    "topk_max"};

// PromQL's functions, and the MetricsQL rollup, transform and label functions that only
// compute on their arguments.
constexpr std::string_view kFunctions[] = {
    "abs", "absent", "absent_over_time", "acos", "acosh", "aggr_over_time", "alias", "asin", "asinh", "atan",
    "atanh", "avg_over_time", "bitmap_and", "bitmap_or", "bitmap_xor", "buckets_limit", "ceil", "changes",
    "changes_prometheus", "clamp", "clamp_max", "clamp_min", "cos", "cosh", "count_eq_over_time",
    "count_gt_over_time", "count_le_over_time", "count_ne_over_time", "count_over_time", "day_of_month",
    "day_of_week", "day_of_year", "days_in_month", "decreases_over_time", "default_rollup", "deg", "delta",
    "delta_prometheus", "deriv", "deriv_fast", "descent_over_time", "distinct_over_time",
    "double_exponential_smoothing", "drop_common_labels", "duration_over_time", "end", "exp",
    "first_over_time", "floor", "geomean_over_time", "histogram_avg", "histogram_count",
    "histogram_fraction", "histogram_over_time", "histogram_quantile", "histogram_quantiles",
    "histogram_share", "histogram_stddev", "histogram_stdvar", "histogram_sum", "hoeffding_bound_lower",
    "hoeffding_bound_upper", "holt_winters", "hour", "ideriv", "idelta", "increase", "increase_prometheus",
    "increase_pure", "increases_over_time", "integrate", "interpolate", "irate", "keep_last_value",
    "keep_next_value", "label_copy", "label_del", "label_graphite_group", "label_join", "label_keep",
    "label_lowercase", "label_map", "label_match", "label_mismatch", "label_move", "label_replace",
    "label_set", "label_transform", "label_uppercase", "label_value", "labels_equal", "lag",
    "last_over_time", "lifetime", "limit_offset", "ln", "log10", "log2", "mad_over_time", "max_over_time",
    "median_over_time", "min_over_time", "minute", "mode_over_time", "month", "now", "outlier_iqr_over_time",
    "pi", "predict_linear", "present_over_time", "prometheus_buckets", "quantile_over_time",
    "quantiles_over_time", "rad", "rand", "rand_exponential", "rand_normal", "range_avg", "range_first",
    "range_last", "range_linear_regression", "range_mad", "range_max", "range_median", "range_min",
    "range_normalize", "range_over_time", "range_quantile", "range_stddev", "range_stdvar", "range_sum",
    "range_trim_outliers", "range_trim_spikes", "range_trim_zscore", "range_zscore", "rate",
    "rate_over_sum", "rate_prometheus", "remove_resets", "resets", "rollup", "rollup_candlestick",
    "rollup_delta", "rollup_deriv", "rollup_increase", "rollup_rate", "rollup_scrape_interval", "round",
    "ru", "running_avg", "running_max", "running_min", "running_sum", "scalar", "scrape_interval", "sgn",
    "share_eq_over_time", "share_gt_over_time", "share_le_over_time", "sin", "sinh", "smooth_exponential",
    "sort", "sort_by_label", "sort_by_label_desc", "sort_by_label_numeric", "sort_by_label_numeric_desc",
    "sort_desc", "sqrt", "start", "stale_samples_over_time", "stddev_over_time", "stdvar_over_time",
    "step", "sum_eq_over_time", "sum_gt_over_time", "sum_le_over_time", "sum_over_time", "tan", "tanh",
    "tfirst_over_time", "time", "timestamp", "timestamp_with_name", "timezone_offset", "tlast_change_over_time",
    "tlast_over_time", "tmax_over_time", "tmin_over_time", "ttf", "union", "vector", "year",
    "zscore_over_time"};

template <std::size_t N>
bool listed(const std::string_view (&words)[N], std::string_view w) {
  return std::find(std::begin(words), std::end(words), w) != std::end(words);
}

}  // namespace

bool is_aggregation(std::string_view w) { return listed(kAggregations, w); }

bool is_known_function(std::string_view w) { return is_aggregation(w) || listed(kFunctions, w); }

}  // namespace dha::tenancy
