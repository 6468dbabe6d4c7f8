//===- Report.cpp - the tuning log and the report -------------------------===//

#include "int21/AgentSearch/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace int21::search;
namespace json = llvm::json;

std::string int21::search::trialToJSONLine(const Blackboard &board,
                                           const Trial &trial) {
  const Kernel &kernel = board.kernels()[trial.candidate.kernel];
  json::Object knobs;
  for (const auto &[name, value] : trial.candidate.schedule.knobs)
    knobs[name] = value;
  json::Object object{
      {"trial", trial.id},
      {"kernel", trial.candidate.kernel},
      {"kernel_name", kernel.name},
      {"signature", kernel.signature},
      {"agent", trial.candidate.agent},
      {"parent", trial.candidate.parent
                     ? json::Value(static_cast<int64_t>(*trial.candidate.parent))
                     : json::Value(nullptr)},
      {"default", trial.isDefault},
      // The kernels a merged kernel replaces (see Fusion.h), null for the
      // model's own kernels.
      {"merge_of", kernel.mergeOf
                       ? json::Value(json::Array{kernel.mergeOf->first,
                                                 kernel.mergeOf->second})
                       : json::Value(nullptr)},
      {"template", trial.candidate.schedule.sequence},
      {"knobs", std::move(knobs)},
      {"hash", llvm::utohexstr(trial.hash, /*LowerCase=*/true)},
      {"outcome", outcomeName(trial.outcome)},
      {"compile_s", trial.compileSeconds},
      {"at_s", trial.at},
  };
  if (trial.outcome == Outcome::Ok) {
    // Timed beside the default: as timed, and the default's time beside it
    // (median_ms is scaled to the default trial's machine state).
    if (trial.defaultNowMs > 0) {
      object["measured_ms"] = trial.measuredMs;
      object["default_now_ms"] = trial.defaultNowMs;
    }
    object["median_ms"] = trial.time.medianMs;
    object["min_ms"] = trial.time.minMs;
    object["max_ms"] = trial.time.maxMs;
    object["spread"] = trial.time.spread;
    object["reps"] = trial.time.reps;
    object["max_error"] = trial.maxError;
  } else {
    object["error"] = trial.error;
  }
  std::string line;
  llvm::raw_string_ostream os(line);
  os << json::Value(std::move(object));
  return line;
}

namespace {
const char *const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                               "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

/// Best time so far against the kernel's trial count: one step line for the
/// whole team and one per agent (its own candidates' best so far).
void writeConvergence(const Blackboard &board, unsigned kernel,
                      llvm::raw_ostream &os) {
  const std::vector<unsigned> &ids = board.trialsOf(kernel);
  std::vector<std::string> names = {"all"};
  std::map<std::string, std::vector<std::pair<unsigned, double>>> series;
  double all = INFINITY, low = INFINITY, high = 0;
  std::map<std::string, double> bestOf;
  for (auto [x, id] : llvm::enumerate(ids)) {
    const Trial &trial = board.trials()[id];
    const std::string &agent = trial.candidate.agent;
    if (!series.count(agent) && agent != "default")
      names.push_back(agent);
    series[agent];
    if (trial.outcome != Outcome::Ok)
      continue;
    double ms = trial.time.medianMs;
    low = std::min(low, ms);
    high = std::max(high, ms);
    if (ms < all) {
      all = ms;
      series["all"].push_back({x + 1, ms});
    }
    auto it = bestOf.find(agent);
    if (agent != "default" && (it == bestOf.end() || ms < it->second)) {
      bestOf[agent] = ms;
      series[agent].push_back({x + 1, ms});
    }
  }
  const double width = 640, height = 360, left = 70, right = 150, top = 30,
               bottom = 50;
  if (!(high > 0)) {
    low = 0;
    high = 1;
  }
  if (high - low < 1e-9 * high)
    high = low * 1.01 + 1e-9;
  double n = std::max<size_t>(ids.size(), 2);
  auto px = [&](double x) {
    return left + (x - 1) / (n - 1) * (width - left - right);
  };
  auto py = [&](double y) {
    return top + (high - y) / (high - low) * (height - top - bottom);
  };
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
     << "\" height=\"" << height << "\" font-family=\"sans-serif\" "
     << "font-size=\"11\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
     << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\">"
     << json::fixUTF8(board.kernels()[kernel].name)
     << ": best time against trials</text>\n";
  // Axes with their ranges.
  os << "<line x1=\"" << left << "\" y1=\"" << height - bottom << "\" x2=\""
     << width - right << "\" y2=\"" << height - bottom
     << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top
     << "\" x2=\"" << left << "\" y2=\"" << height - bottom
     << "\" stroke=\"black\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    double y = low + (high - low) * i / 4;
    os << "<text x=\"" << left - 6 << "\" y=\"" << py(y) + 4
       << "\" text-anchor=\"end\">" << llvm::format("%.3g", y) << "</text>\n";
    double x = 1 + (n - 1) * i / 4;
    os << "<text x=\"" << px(x) << "\" y=\"" << height - bottom + 16
       << "\" text-anchor=\"middle\">" << llvm::format("%.0f", x)
       << "</text>\n";
  }
  os << "<text x=\"" << (left + width - right) / 2 << "\" y=\""
     << height - 10 << "\" text-anchor=\"middle\">trials</text>\n"
     << "<text x=\"14\" y=\"" << (top + height - bottom) / 2
     << "\" transform=\"rotate(-90 14," << (top + height - bottom) / 2
     << ")\" text-anchor=\"middle\">median time (ms)</text>\n";
  for (auto [i, name] : llvm::enumerate(names)) {
    const auto &points = series[name];
    const char *color = name == "all" ? "black" : kColors[(i - 1) % 8];
    if (!points.empty()) {
      os << "<polyline fill=\"none\" stroke=\"" << color
         << "\" stroke-width=\"" << (name == "all" ? 2.5 : 1.5)
         << "\" points=\"";
      // A step line, held to the last trial.
      for (auto [k, point] : llvm::enumerate(points)) {
        if (k)
          os << px(point.first) << "," << py(points[k - 1].second) << " ";
        os << px(point.first) << "," << py(point.second) << " ";
      }
      os << px(n) << "," << py(points.back().second) << "\"/>\n";
    }
    os << "<text x=\"" << width - right + 10 << "\" y=\"" << top + 16 * i + 4
       << "\" fill=\"" << color << "\">" << json::fixUTF8(name) << "</text>\n";
  }
  os << "</svg>\n";
}
} // namespace

/// A default schedule this many times its roofline bound is listed as far
/// from it.
static constexpr double kFarFromBound = 3.0;

llvm::Error int21::search::writeReport(const Blackboard &board,
                                       const TuneResult &result,
                                       llvm::StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError("cannot create the report directory '" +
                                   dir + "': " + ec.message());
  auto open = [&](const llvm::Twine &name,
                  std::unique_ptr<llvm::raw_fd_ostream> &os) -> llvm::Error {
    std::error_code ec;
    std::string path = (dir + "/" + name).str();
    os = std::make_unique<llvm::raw_fd_ostream>(path, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + path +
                                     "': " + ec.message());
    return llvm::Error::success();
  };

  std::unique_ptr<llvm::raw_fd_ostream> md;
  if (llvm::Error error = open("report.md", md))
    return error;
  *md << "# int21 tuning report\n\n"
      << result.kernels.size() << " kernels, " << result.trials
      << " trials in " << llvm::format("%.1f", result.seconds) << " s: "
      << llvm::format("%.2f", result.speedup)
      << "x faster than the default schedules (kernel times weighted by "
         "their instances in the model), kernels timed on "
      << threadsText(result.threads) << ".\n\n"
      << "Search ms is the fastest time the search measured; best ms the "
         "winner's time measured again after the search, beside the default "
         "(\"confirmed\"), or the search's where it was not timed again. A "
         "winner that failed or was no faster then gave way to the default "
         "(below the table).\n\n"
      << "| # | kernel | class | instances | trials | default ms | search ms "
         "| best ms | speed-up | roofline ms | found by | schedule |\n"
      << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (auto [k, summary] : llvm::enumerate(result.kernels)) {
    *md << "| " << k << " | " << summary.name << " | " << summary.kernelClass
        << " | " << summary.instances << " | " << summary.trials << " | ";
    if (!summary.error.empty()) {
      *md << "- | - | - | - | - | not tuned: " << summary.error << " | |\n";
      continue;
    }
    *md << llvm::format("%.4f", summary.defaultMs) << " | "
        << llvm::format("%.4f", summary.searchMs) << " | "
        << llvm::format("%.4f", summary.bestMs)
        << (summary.confirmed && summary.demoted.empty() ? " (confirmed)" : "")
        << " | "
        << llvm::format("%.2fx", summary.defaultMs / summary.bestMs) << " | "
        << llvm::format("%.4f", summary.rooflineMs) << " | "
        << summary.winnerAgent << " | `" << describe(summary.winner)
        << "` |\n";
  }

  for (auto [k, summary] : llvm::enumerate(result.kernels))
    if (!summary.demoted.empty())
      *md << "\nKernel " << k << " kept its default schedule: "
          << summary.demoted << ".\n";

  // Kernels whose default schedule is more than 3x their roofline bound: a
  // structure the templates lack, not a reason for more trials. Those under
  // 5 us are left out (their call and thread fork/join cost dominates).
  std::string far;
  for (auto [k, summary] : llvm::enumerate(result.kernels)) {
    if (!summary.error.empty() || summary.rooflineMs <= 0 ||
        summary.defaultMs < 0.005 ||
        summary.defaultMs <= kFarFromBound * summary.rooflineMs)
      continue;
    far += llvm::formatv("| {0} | {1} | {2} | {3:F4} | {4:F4} | {5:F1}x |\n",
                         k, summary.name, summary.kernelClass,
                         summary.defaultMs, summary.bestMs,
                         summary.defaultMs / summary.rooflineMs)
               .str();
  }
  if (!far.empty())
    *md << "\nFar from its bound (the default above "
        << llvm::format("%.0f", kFarFromBound)
        << "x the roofline; kernels under 5 us left out):\n\n"
        << "| # | kernel | class | default ms | best ms | default / roofline |\n"
        << "|---|---|---|---|---|---|\n"
        << far;

  // Merges: a merged kernel replaces its parts where it beats their best
  // times by more than the noise.
  if (llvm::any_of(result.kernels,
                   [](const KernelSummary &s) { return s.mergeOf; })) {
    *md << "\nMerges (a producer group fused into its consumer; kernels "
        << "`merge P+C` above). " << result.mergedSites
        << " sites of the model merged.\n\n"
        << "| # | producer | consumer | parts' best ms | merged best ms | "
           "speed-up over parts | sites merged |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (auto [k, summary] : llvm::enumerate(result.kernels)) {
      if (!summary.mergeOf)
        continue;
      *md << "| " << k << " | " << summary.mergeOf->first << " | "
          << summary.mergeOf->second << " | ";
      if (!summary.error.empty()) {
        *md << "- | - | - | " << summary.error << " |\n";
        continue;
      }
      *md << llvm::format("%.4f", summary.partsMs) << " | "
          << llvm::format("%.4f", summary.bestMs) << " | "
          << llvm::format("%.2fx", summary.partsMs / summary.bestMs) << " | "
          << summary.mergedSites << " |\n";
    }
  }

  // Per agent: proposals, outcomes, improvements of a kernel's best.
  struct Stats {
    unsigned trials = 0, ok = 0, improved = 0, winners = 0;
  };
  std::map<std::string, Stats> agents;
  std::map<std::string, unsigned> outcomes;
  std::vector<double> best(board.kernels().size(), INFINITY);
  for (const Trial &trial : board.trials()) {
    Stats &stats = agents[trial.candidate.agent];
    ++stats.trials;
    ++outcomes[outcomeName(trial.outcome).str()];
    if (trial.outcome != Outcome::Ok)
      continue;
    ++stats.ok;
    double &b = best[trial.candidate.kernel];
    if (trial.time.medianMs < b) {
      if (b != INFINITY)
        ++stats.improved;
      b = trial.time.medianMs;
    }
  }
  // A merged kernel wins only where the model takes it.
  for (const KernelSummary &summary : result.kernels)
    if (summary.error.empty() && (!summary.mergeOf || summary.mergedSites))
      ++agents[summary.winnerAgent].winners;
  *md << "\n| agent | trials | correct | improved a best | kernels won |\n"
      << "|---|---|---|---|---|\n";
  for (const auto &[name, stats] : agents)
    *md << "| " << name << " | " << stats.trials << " | " << stats.ok << " | "
        << stats.improved << " | " << stats.winners << " |\n";
  *md << "\nOutcomes:";
  for (const auto &[name, count] : outcomes)
    *md << " " << name << " " << count << ";";
  *md << "\n\nConvergence (best time against trials, per agent):\n\n";
  for (size_t k = 0; k < board.kernels().size(); ++k) {
    std::unique_ptr<llvm::raw_fd_ostream> svg;
    std::string name = "kernel-" + std::to_string(k) + ".svg";
    if (llvm::Error error = open(name, svg))
      return error;
    writeConvergence(board, k, *svg);
    *md << "![kernel " << k << "](" << name << ")\n";
  }
  std::unique_ptr<llvm::raw_fd_ostream> log;
  if (llvm::Error error = open("log.jsonl", log))
    return error;
  for (const Trial &trial : board.trials())
    *log << trialToJSONLine(board, trial) << "\n";
  return llvm::Error::success();
}

std::string int21::search::summarizeTuning(const TuneResult &result) {
  std::string line;
  llvm::raw_string_ostream os(line);
  size_t merges = llvm::count_if(result.kernels, [](const auto &kernel) {
    return kernel.mergeOf.has_value();
  });
  os << "tuned " << result.kernels.size() - merges << " kernels in "
     << result.trials << " trials (" << result.reused
     << " reused from the knowledge base): "
     << llvm::format("%.2f", result.speedup)
     << "x faster than the default schedules";
  if (merges)
    os << ", fusion: " << result.merges.size() << " of " << merges
       << " merges applied (" << result.mergedSites << " sites)";
  return line;
}
