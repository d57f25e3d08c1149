#include "apps/cuzk-bench/timeline_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace cuzk::bench {
namespace {

struct Span {
  engine::Micros a, b;
  const char* color;
  const char* stage;
};

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

const char* kPrepare = "#d9d9d9";
const char* kQueue = "#bab0ac";
const char* kSynth = "#4e79a7";
const char* kWait = "#f28e2b";
const char* kBackend = "#e15759";
const char* kFinQueue = "#edc948";
const char* kFinalize = "#59a14f";

}  // namespace

std::string render_timeline_svg(const std::vector<TimelineJob>& jobs, const std::string& title) {
  engine::Micros t0 = ~engine::Micros(0), t1 = 0;
  for (const auto& j : jobs) {
    const auto& r = j.result;
    if (r.submitted) t0 = std::min(t0, r.submitted);
    for (const auto& p : r.partitions) {
      for (engine::Micros t : {p.queued, p.dispatched, p.synth_start})
        if (t) t0 = std::min(t0, t);
      for (engine::Micros t : {p.finalize_end, p.backend_end, p.synth_end}) t1 = std::max(t1, t);
    }
    t1 = std::max(t1, r.completed);
  }
  if (t0 == ~engine::Micros(0) || t1 <= t0) t0 = 0, t1 = std::max<engine::Micros>(t1, 1);
  const double span_ms = double(t1 - t0) / 1000.0;

  const int label_w = 170, plot_w = 1100, row_h = 12, gap = 3, top = 64;
  auto x = [&](engine::Micros t) { return label_w + double(t - t0) / double(t1 - t0) * plot_w; };

  // Rows: job partitions, then worker lanes.
  struct Row {
    std::string label;
    std::vector<Span> spans;
    std::vector<std::string> tips;
  };
  std::vector<Row> job_rows;
  std::map<std::pair<int, int>, Row> lanes;  // (stage order, worker) -> lane
  for (const auto& j : jobs) {
    const auto& r = j.result;
    for (const auto& p : r.partitions) {
      Row row;
      row.label = j.label + (r.partitions.size() > 1 ? " p" + std::to_string(p.index) : "");
      auto add = [&](engine::Micros a, engine::Micros b, const char* color, const char* stage) {
        if (a && b && b >= a) {
          row.spans.push_back({a, b, color, stage});
          row.tips.push_back(j.label + " partition " + std::to_string(p.index) + ": " + stage + " " +
                             fmt((b - a) / 1000.0) + " ms");
        }
      };
      add(r.submitted, p.queued, kPrepare, "prepare");
      add(p.queued, p.dispatched, kQueue, "queue");
      add(p.synth_start, p.synth_end, kSynth, "synthesis");
      add(p.synth_end, p.backend_start, kQueue, "backend queue");
      add(p.backend_start, p.backend_locked, kWait, "device wait");
      add(p.backend_locked, p.backend_end, kBackend, "backend");
      add(p.backend_end, p.finalize_start, kFinQueue, "finalize queue");
      add(p.finalize_start, p.finalize_end, kFinalize, "finalize");
      job_rows.push_back(std::move(row));
      auto lane = [&](int order, int worker, const char* name, engine::Micros a, engine::Micros b, const char* color) {
        if (worker < 0 || !a || b < a) return;
        Row& l = lanes[{order, worker}];
        if (l.label.empty()) l.label = std::string(name) + " " + std::to_string(worker);
        l.spans.push_back({a, b, color, name});
        l.tips.push_back(j.label + " p" + std::to_string(p.index) + " on " + l.label + ": " + fmt((b - a) / 1000.0) +
                         " ms");
      };
      lane(0, p.synth_worker, "synthesis", p.synth_start, p.synth_end, kSynth);
      lane(1, p.backend_worker, "backend", p.backend_start, p.backend_locked, kWait);
      lane(1, p.backend_worker, "backend", p.backend_locked, p.backend_end, kBackend);
      lane(2, p.finalizer, "finalize", p.finalize_start, p.finalize_end, kFinalize);
    }
  }

  const int n_rows = int(job_rows.size()), n_lanes = int(lanes.size());
  const int lanes_top = top + n_rows * (row_h + gap) + 36;
  const int height = lanes_top + n_lanes * (row_h * 2 + gap) + 70;
  const int width = label_w + plot_w + 20;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"monospace\" font-size=\"10\">\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  o << "<text x=\"10\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << esc(title) << "</text>\n";
  o << "<text x=\"10\" y=\"34\">" << jobs.size() << " jobs, " << n_rows << " partitions, " << fmt(span_ms)
    << " ms from first submission to last result</text>\n";
  // Legend.
  const std::pair<const char*, const char*> legend[] = {{kPrepare, "prepare"},          {kQueue, "queued"},
                                                        {kSynth, "synthesis"},          {kWait, "device wait"},
                                                        {kBackend, "backend (device)"}, {kFinQueue, "finalize queue"},
                                                        {kFinalize, "finalize"}};
  int lx = label_w;
  for (auto& [c, n] : legend) {
    o << "<rect x=\"" << lx << "\" y=\"40\" width=\"10\" height=\"10\" fill=\"" << c << "\"/><text x=\"" << lx + 13
      << "\" y=\"49\">" << n << "</text>\n";
    lx += 30 + int(std::string(n).size()) * 6;
  }
  // Time axis: about ten ticks at a round step.
  double raw = span_ms / 10.0;
  double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-3))));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  const int axis_bottom = height - 30;
  for (double t = 0; t <= span_ms + 1e-9; t += step) {
    double px = label_w + t / span_ms * plot_w;
    o << "<line x1=\"" << fmt(px) << "\" y1=\"" << top - 6 << "\" x2=\"" << fmt(px) << "\" y2=\"" << axis_bottom
      << "\" stroke=\"#eee\"/>\n<text x=\"" << fmt(px) << "\" y=\"" << axis_bottom + 12 << "\" text-anchor=\"middle\">"
      << (step >= 1000 ? fmt(t / 1000) + " s" : fmt(t) + " ms") << "</text>\n";
  }
  auto draw_row = [&](const Row& r, int y, int h) {
    o << "<text x=\"" << label_w - 6 << "\" y=\"" << y + h - 2 << "\" text-anchor=\"end\">" << esc(r.label)
      << "</text>\n";
    for (std::size_t i = 0; i < r.spans.size(); ++i) {
      const auto& s = r.spans[i];
      double a = x(s.a), w = std::max(0.8, x(s.b) - a);
      o << "<rect x=\"" << fmt(a) << "\" y=\"" << y << "\" width=\"" << fmt(w) << "\" height=\"" << h << "\" fill=\""
        << s.color << "\"><title>" << esc(r.tips[i]) << "</title></rect>\n";
    }
  };
  o << "<text x=\"10\" y=\"" << top - 8 << "\" font-weight=\"bold\">partitions</text>\n";
  for (int i = 0; i < n_rows; ++i) draw_row(job_rows[i], top + i * (row_h + gap), row_h);
  o << "<text x=\"10\" y=\"" << lanes_top - 10 << "\" font-weight=\"bold\">workers</text>\n";
  int i = 0;
  for (auto& [k, lane] : lanes) draw_row(lane, lanes_top + (i++) * (row_h * 2 + gap), row_h * 2);
  o << "</svg>\n";
  return o.str();
}

}  // namespace cuzk::bench
