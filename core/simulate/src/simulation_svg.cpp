#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "dha/gates/reasons.hpp"
#include "dha/simulate/simulation.hpp"

namespace dha::decide {
namespace {

constexpr double kWidth = 1000;
constexpr double kLeft = 70;
constexpr double kRight = 190;  // room for the legend
constexpr double kPanelHeight = 220;
constexpr double kTop1 = 40;
constexpr double kTop2 = kTop1 + kPanelHeight + 70;
constexpr double kHeight = kTop2 + kPanelHeight + 60;

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
double nice_max(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

// Time ticks on round clock units, at most about eight of them.
double time_tick(double span) {
  for (double step : {60.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 7200.0, 10800.0, 21600.0, 43200.0, 86400.0})
    if (span / step <= 8) return step;
  return 86400.0 * std::ceil(span / 86400.0 / 8);
}

struct Panel {
  double top;
  double t0, t1, ymax;
  double x(double t) const { return kLeft + (t - t0) / std::max(t1 - t0, 1.0) * (kWidth - kLeft - kRight); }
  double y(double v) const { return top + kPanelHeight - std::clamp(v / ymax, 0.0, 1.0) * kPanelHeight; }
};

std::string axes(const Panel& p, const std::string& title, const std::string& unit, double ystep) {
  std::string s;
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = p.top + kPanelHeight;
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", x0, p.top - 12, title);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n", x0, p.top, y0);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>\n", x0, y0, x1);
  for (double v = 0; v <= p.ymax + 1e-9; v += ystep) {
    const double y = p.y(v);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", x0, y, x1, y);
    s +=
        fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{:g}</text>\n", x0 - 6, y + 4, v);
  }
  const double span = p.t1 - p.t0;
  const double tick = time_tick(span);
  const bool minutes = tick < 3600;
  for (double t = 0; t <= span + 1e-9; t += tick) {
    const double x = p.x(p.t0 + t);
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#333\"/>\n", x, y0, x, y0 + 4);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{:g}</text>\n", x, y0 + 17,
                     minutes ? t / 60 : t / 3600);
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", (x0 + x1) / 2,
                   y0 + 33, minutes ? "minutes since the first decision" : "hours since the first decision");
  s += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"11\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">{}</text>\n",
      p.top + kPanelHeight / 2, p.top + kPanelHeight / 2, unit);
  return s;
}

using Points = std::vector<std::pair<double, double>>;

// A step or straight line; NaN values break it, so a gap in the data is a gap in the line.
std::string polyline(const Points& pts, const Panel& p, const char* color, bool step, const char* dash = nullptr,
                     double width = 0) {
  std::string s;
  std::string open;
  if (width == 0) width = dash ? 1.6 : 2.2;
  auto flush = [&] {
    if (!open.empty())
      s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"{}\"/>\n", color, width,
                       dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "", open);
    open.clear();
  };
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (std::isnan(pts[i].second)) {
      flush();
      continue;
    }
    if (step && !open.empty()) open += fmt::format("{:.1f},{:.1f} ", p.x(pts[i].first), p.y(pts[i - 1].second));
    open += fmt::format("{:.1f},{:.1f} ", p.x(pts[i].first), p.y(pts[i].second));
  }
  flush();
  return s;
}

std::string band(const Panel& p, double from, double to, const char* fill, double opacity) {
  return fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" fill-opacity=\"{}\"/>\n",
                     p.x(from), p.top, std::max(p.x(to) - p.x(from), 0.5), kPanelHeight, fill, opacity);
}

struct LegendItem {
  const char* color;
  std::string label;
  bool swatch = false;  // a shaded box rather than a line
};

std::string legend(double top, const std::vector<LegendItem>& items) {
  std::string s;
  double y = top + 10;
  for (const auto& item : items) {
    if (item.swatch)
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"20\" height=\"10\" fill=\"{}\" fill-opacity=\"0.35\"/>\n",
                       kWidth - kRight + 12, y - 5, item.color);
    else
      s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"3\"/>\n",
                       kWidth - kRight + 12, y, kWidth - kRight + 32, item.color);
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", kWidth - kRight + 38, y + 4, item.label);
    y += 17;
  }
  return s;
}

const char* freeze_color(const std::string& reason) {
  if (reason == gates::reasons::kScaleInFlight) return "#9edae5";
  if (reason == gates::reasons::kReplicationLag) return "#ffbb78";
  if (reason == gates::reasons::kMetricUnavailable) return "#c7c7c7";
  if (reason == gates::reasons::kStuckScaling) return "#ff9896";
  return "#dbdb8d";
}

// Consecutive cycles with the same freeze reason as one band each: [from, to) and the reason.
struct Episode {
  double from, to;
  std::string reason;
};

std::vector<Episode> freeze_episodes(const SimulationResult& r, double t1) {
  std::vector<Episode> out;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    const bool frozen = s.kind == model::DecisionKind::Freeze || s.kind == model::DecisionKind::Rollback;
    if (!frozen) continue;
    const double end = i + 1 < r.steps.size() ? static_cast<double>(r.steps[i + 1].time) : t1;
    if (!out.empty() && out.back().reason == s.reason && out.back().to == static_cast<double>(s.time))
      out.back().to = end;
    else
      out.push_back({static_cast<double>(s.time), end, s.reason});
  }
  return out;
}

}  // namespace

std::string render_svg(const SimulationResult& result, const model::DhaSpec& spec, const LoadTrace& load,
                       const SimulationParams& params) {
  const auto& metric = spec.metrics.front();
  const std::string type(model::to_string(metric.type));
  const double target = metric.target_in_query_unit();
  const std::int64_t first = std::max(load.start(), params.start_at.value_or(load.start()));
  const double t0 = static_cast<double>(first);
  const double t1 = static_cast<double>(std::max(load.end(), first + 1));
  const double nan = std::nan("");
  const std::int32_t ceiling =
      params.quota_max_replicas ? std::min(spec.max_replicas, *params.quota_max_replicas) : spec.max_replicas;
  const std::int32_t floor =
      std::min(std::max(spec.min_replicas, spec.constraints.respect_quorum ? params.quorum_floor : 1), ceiling);

  Points load_pts, capacity_pts, current_pts, available_pts, needed_pts, forecast_pts;
  std::vector<std::pair<double, double>> outages, lag_episodes;
  double load_max = 0;
  const double sample = std::max(1.0, (t1 - t0) / 800);  // ~800 points are plenty for 1000 px
  const double lag_limit = spec.constraints.max_replication_lag_seconds;
  auto extend = [](std::vector<std::pair<double, double>>& runs, double from, double to) {
    if (!runs.empty() && runs.back().second >= from)
      runs.back().second = to;
    else
      runs.emplace_back(from, to);
  };
  for (double t = t0; t <= t1; t += sample) {
    const auto v = load.at(type, t);
    load_pts.emplace_back(t, v ? *v : nan);
    if (!v) extend(outages, t, std::min(t + sample, t1));
    if (v) load_max = std::max(load_max, *v);
    const auto n = needed_replicas(spec, load, t, params.primary_count, floor, ceiling);
    needed_pts.emplace_back(t, n ? *n : nan);
    const auto lag = load.at("lagSeconds", t);
    const auto writes = load.at("writeRate", t);
    if (lag && *lag > lag_limit && (!writes || *writes > 0)) extend(lag_episodes, t, std::min(t + sample, t1));
  }
  double replicas_max = std::max<double>(ceiling, spec.max_replicas);
  for (const auto& s : result.steps) {
    const double reads = std::max(s.available_replicas - params.primary_count, 1);
    capacity_pts.emplace_back(static_cast<double>(s.time), reads * target);
    load_max = std::max(load_max, reads * target);
    // The forecast in the load's unit: the largest load expected within the horizon.
    forecast_pts.emplace_back(static_cast<double>(s.time), s.forecast ? *s.forecast * target : nan);
    if (s.forecast) load_max = std::max(load_max, *s.forecast * target);
    current_pts.emplace_back(static_cast<double>(s.time), s.current_replicas);
    available_pts.emplace_back(static_cast<double>(s.time), s.available_replicas);
    replicas_max = std::max<double>(replicas_max, std::max(s.current_replicas, s.desired_replicas));
  }
  if (!result.steps.empty()) {  // hold the last count to the end of the trace
    current_pts.emplace_back(t1, current_pts.back().second);
    available_pts.emplace_back(t1, available_pts.back().second);
    capacity_pts.emplace_back(t1, capacity_pts.back().second);
  }

  const double load_axis = nice_max(load_max * 1.05);
  const Panel top{kTop1, t0, t1, load_axis};
  const double replicas_axis = std::ceil((replicas_max + 1) / 2) * 2;
  const Panel bottom{kTop2, t0, t1, replicas_axis};
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, kHeight);

  // Top: what users send, what the available replicas can take at target, and when the signal
  // was missing or the replicas lagged.
  for (const auto& [from, to] : outages) svg += band(top, from, to, "#7f7f7f", 0.25);
  for (const auto& [from, to] : lag_episodes) svg += band(top, from, to, "#ff7f0e", 0.2);
  const std::string unit = metric.type == model::MetricType::ReadCPUUtilization ? "millicores" : "connections";
  svg += axes(top, type + ": total read load and capacity at target", unit, load_axis / 5);
  svg += polyline(load_pts, top, "#d62728", false);
  svg += polyline(capacity_pts, top, "#1f77b4", true);
  const bool forecasts =
      std::any_of(result.steps.begin(), result.steps.end(), [](const auto& s) { return s.forecast; });
  if (forecasts) svg += polyline(forecast_pts, top, "#8c564b", true, "2,2");
  std::vector<LegendItem> top_legend{{"#d62728", "load"}, {"#1f77b4", "capacity at target"}};
  if (forecasts) top_legend.push_back({"#8c564b", "forecast (peak within horizon)"});
  if (!outages.empty()) top_legend.push_back({"#7f7f7f", "metric outage", true});
  if (!lag_episodes.empty()) top_legend.push_back({"#ff7f0e", "lag above limit, writes", true});
  svg += legend(top.top, top_legend);

  // Bottom: replicas against what was needed, inside [floor, ceiling], with freezes shaded.
  std::map<std::string, const char*> shown;
  for (const auto& e : freeze_episodes(result, t1)) {
    svg += band(bottom, e.from, e.to, freeze_color(e.reason), 0.35);
    shown.emplace(e.reason, freeze_color(e.reason));
  }
  svg += axes(bottom, "replicas (primary + read replicas)", "replicas", replicas_axis <= 12 ? 1 : replicas_axis / 6);
  svg += polyline({{t0, static_cast<double>(ceiling)}, {t1, static_cast<double>(ceiling)}}, bottom, "#7f7f7f", false,
                  "2,4");
  svg +=
      polyline({{t0, static_cast<double>(floor)}, {t1, static_cast<double>(floor)}}, bottom, "#7f7f7f", false, "2,4");
  svg += polyline(needed_pts, bottom, "#555555", true, nullptr, 1);  // thin: it moves with every bit of noise
  svg += polyline(current_pts, bottom, "#2ca02c", true);
  svg += polyline(available_pts, bottom, "#9467bd", true, "5,3");
  std::vector<LegendItem> bottom_legend{{"#2ca02c", "replicas"},
                                        {"#9467bd", "available"},
                                        {"#555555", "needed (clairvoyant)"},
                                        {"#7f7f7f", fmt::format("min {} / max {}", floor, ceiling)}};
  for (const auto& [reason, color] : shown) bottom_legend.push_back({color, "frozen: " + reason, true});
  svg += legend(bottom.top, bottom_legend);
  svg += "</svg>\n";
  return svg;
}

}  // namespace dha::decide
