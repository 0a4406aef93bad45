#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dha/decide/simulation.hpp"

namespace dha::decide {
namespace {

constexpr double kWidth = 960;
constexpr double kLeft = 70;
constexpr double kRight = 150;  // room for the legend
constexpr double kPanelHeight = 220;
constexpr double kTop1 = 40;
constexpr double kTop2 = kTop1 + kPanelHeight + 60;
constexpr double kHeight = kTop2 + kPanelHeight + 50;

// A "nice" upper bound for an axis: 1, 2 or 5 times a power of ten.
double nice_max(double v) {
  if (!(v > 0)) return 1;
  const double p = std::pow(10, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= v) return m * p;
  return 10 * p;
}

struct Panel {
  double top;
  double t0, t1, ymax;
  double x(double t) const { return kLeft + (t - t0) / std::max(t1 - t0, 1.0) * (kWidth - kLeft - kRight); }
  double y(double v) const { return top + kPanelHeight - std::clamp(v / ymax, 0.0, 1.0) * kPanelHeight; }
};

std::string axes(const Panel& p, const std::string& title, const std::string& unit) {
  std::string s;
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = p.top + kPanelHeight;
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", x0, p.top - 12, title);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#333\"/>\n", x0, p.top, y0);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#333\"/>\n", x0, y0, x1);
  for (int i = 0; i <= 4; ++i) {
    const double v = p.ymax * i / 4;
    const double y = p.y(v);
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>\n", x0, y, x1, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{:g}</text>\n", x0 - 6, y + 4, v);
  }
  for (int i = 0; i <= 6; ++i) {
    const double t = p.t0 + (p.t1 - p.t0) * i / 6;
    const double x = p.x(t);
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#333\"/>\n", x, y0, x, y0 + 4);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{:.1f}h</text>\n", x, y0 + 17,
                     (t - p.t0) / 3600.0);
  }
  s += fmt::format("<text x=\"14\" y=\"{:.1f}\" font-size=\"11\" transform=\"rotate(-90 14 {:.1f})\" "
                   "text-anchor=\"middle\">{}</text>\n",
                   p.top + kPanelHeight / 2, p.top + kPanelHeight / 2, unit);
  return s;
}

std::string polyline(const std::vector<std::pair<double, double>>& pts, const Panel& p, const char* color,
                     bool step, const char* dash = nullptr) {
  std::string s = fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} points=\"", color,
                              dash ? 1.6 : 2.4, dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "");
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (step && i > 0) s += fmt::format("{:.1f},{:.1f} ", p.x(pts[i].first), p.y(pts[i - 1].second));
    s += fmt::format("{:.1f},{:.1f} ", p.x(pts[i].first), p.y(pts[i].second));
  }
  s += "\"/>\n";
  return s;
}

std::string legend(double top, const std::vector<std::pair<const char*, std::string>>& items) {
  std::string s;
  double y = top + 10;
  for (const auto& [color, label] : items) {
    s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"3\"/>\n",
                     kWidth - kRight + 12, y, kWidth - kRight + 32, color);
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", kWidth - kRight + 38, y + 4, label);
    y += 18;
  }
  return s;
}

}  // namespace

std::string render_svg(const SimulationResult& result, const model::DhaSpec& spec, const LoadTrace& load,
                       const SimulationParams& params) {
  const auto& metric = spec.metrics.front();
  const std::string type(model::to_string(metric.type));
  const double target = metric.target_in_query_unit();
  const double t0 = static_cast<double>(load.start());
  const double t1 = static_cast<double>(std::max(load.end(), load.start() + 1));

  std::vector<std::pair<double, double>> load_pts, capacity_pts, current_pts, available_pts;
  double load_max = 0;
  const double sample = std::max(1.0, (t1 - t0) / 600);  // ~600 points are plenty for 960 px
  for (double t = t0; t <= t1; t += sample) {
    const auto v = load.at(type, t);
    const double value = v && std::isfinite(*v) ? *v : 0;
    load_pts.emplace_back(t, value);
    load_max = std::max(load_max, value);
  }
  double replicas_max = 0;
  for (const auto& s : result.steps) {
    const double reads = std::max(s.available_replicas - params.primary_count, 1);
    capacity_pts.emplace_back(static_cast<double>(s.time), reads * target);
    load_max = std::max(load_max, reads * target);
    current_pts.emplace_back(static_cast<double>(s.time), s.current_replicas);
    available_pts.emplace_back(static_cast<double>(s.time), s.available_replicas);
    replicas_max = std::max<double>(replicas_max, std::max(s.current_replicas, s.desired_replicas));
  }
  replicas_max = std::max<double>(replicas_max, spec.max_replicas);

  const Panel top{kTop1, t0, t1, nice_max(load_max * 1.05)};
  // A multiple of 4 so the 4 grid steps fall on whole replicas.
  const Panel bottom{kTop2, t0, t1, std::ceil((replicas_max + 1) / 4) * 4};
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      kWidth, kHeight);
  const std::string unit = metric.type == model::MetricType::ReadCPUUtilization ? "millicores" : "connections";
  svg += axes(top, type + ": total read load and capacity at target", unit);
  svg += polyline(load_pts, top, "#d62728", false);
  svg += polyline(capacity_pts, top, "#1f77b4", true);
  svg += legend(top.top, {{"#d62728", "load"}, {"#1f77b4", "capacity at target"}});
  svg += axes(bottom, "replicas (primary + read replicas)", "replicas");
  svg += polyline(current_pts, bottom, "#2ca02c", true);
  svg += polyline(available_pts, bottom, "#9467bd", true, "5,3");
  svg += legend(bottom.top, {{"#2ca02c", "replicas"}, {"#9467bd", "available"}});
  svg += "</svg>\n";
  return svg;
}

}  // namespace dha::decide
