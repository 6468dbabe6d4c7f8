//===- Progress.cpp - what a search says while it runs, and its result ----===//

#include "Progress.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace int21::search;

llvm::Error ProgressLines::openLog() {
  if (options.logPath.empty())
    return llvm::Error::success();
  std::error_code ec;
  logFile = std::make_unique<llvm::raw_fd_ostream>(options.logPath, ec);
  if (ec)
    return llvm::createStringError("cannot write the tuning log '" +
                                   options.logPath + "': " + ec.message());
  return llvm::Error::success();
}

void ProgressLines::log(const Trial &trial) {
  if (!logFile)
    return;
  *logFile << trialToJSONLine(board, trial) << "\n";
  logFile->flush();
}

void ProgressLines::start(const AgentTeam &team) {
  const std::vector<Kernel> &kernels = board.kernels();
  size_t merges = llvm::count_if(
      kernels, [](const Kernel &kernel) { return kernel.mergeOf; });
  os << "tuning " << kernels.size() - merges << " kernels";
  if (merges)
    os << " and " << merges << (merges == 1 ? " merge" : " merges");
  os << " with " << team.members().size() << " agents (";
  for (auto [i, agent] : llvm::enumerate(team.members()))
    os << (i ? ", " : "") << agent->name();
  unsigned total = budget.total();
  os << "), " << (total ? std::to_string(total) + " trials" : "no trial limit");
  if (options.seconds > 0)
    os << ", at most " << llvm::format("%.0f", options.seconds) << " s";
  os << ", timed on " << threadsText(options.threads) << "\n";
}

void ProgressLines::kernel(unsigned kernel, bool force) {
  const Kernel &work = board.kernels()[kernel];
  const Trial *base = board.defaultTrial(kernel);
  const Trial *best = board.best(kernel);
  std::string line;
  llvm::raw_string_ostream out(line);
  out << "[" << kernel + 1 << "/" << board.kernels().size() << "] " << work.name
      << ": ";
  if (const std::optional<KnowledgeRecord> &record = knowledge.reused(kernel))
    out << "from the knowledge base, "
        << llvm::format("%.3f", record->time.medianMs) << " ms ("
        << llvm::format("%.2f", record->speedup()) << "x)";
  else
    out << board.trialsOf(kernel).size() << " trials";
  if (best && base && base->outcome == Outcome::Ok)
    out << ", best " << llvm::format("%.3f", best->time.medianMs) << " ms ("
        << llvm::format("%.2f", base->time.medianMs / best->time.medianMs)
        << "x)";
  if (budget.total())
    out << "  [" << budget.spent() << "/" << budget.total() << "]";
  if (options.progressBar) {
    if (line.size() > 118)
      line = line.substr(0, 115) + "...";
    os << "\r" << line << std::string(120 - line.size(), ' ');
    os.flush();
  } else if (force) {
    os << line << "\n";
  }
}

void ProgressLines::searchEnded() {
  if (options.progressBar)
    os << "\n";
  for (unsigned k = 0; k < board.kernels().size(); ++k)
    if (!options.progressBar)
      kernel(k, /*force=*/true);
}

void ProgressLines::confirming(size_t kernels) {
  if (!options.progressBar)
    os << "timing the winners of " << kernels
       << " kernels again beside their defaults\n";
}

void ProgressLines::demoted(unsigned k, const Candidate &winner,
                            const Confirmation &verdict) {
  os << "[" << k + 1 << "/" << board.kernels().size() << "] "
     << board.kernels()[k].name << ": kept the default schedule: "
     << "the search's winner (" << winner.agent << ", "
     << llvm::format("%.2f", board.defaultTrial(k)->time.medianMs /
                                 board.best(k)->time.medianMs)
     << "x in the search) " << verdict.why << "\n";
}

std::string int21::search::kernelClass(
    const int21::schedule::ScheduleChoice &choice) {
  llvm::StringRef sequence = choice.sequence;
  // The template's name without its target ("cpu.", "gpu.").
  llvm::StringRef kind = sequence.substr(sequence.find('.') + 1);
  llvm::ArrayRef<int64_t> dims = choice.dims;
  if (kind == "matmul" || kind == "batch_matmul") {
    std::string what = kind == "matmul" ? "matmul" : "batched matmul";
    // M rows of a batch-1 head or a decoder step: weight streaming.
    if (!dims.empty() && dims.front() <= 16)
      return "skinny " + what + " (M=" + std::to_string(dims.front()) + ")";
    return what;
  }
  if (kind == "matmul_transposed")
    return "matmul, transposed (filters along vectors)";
  if (kind == "matmul_panels")
    return "matmul, constant weight in panels";
  if (kind == "matmul_panels_transposed")
    return "matmul, transposed, weight in panels (filters along vectors)";
  if (kind == "conv2d_nchw" && dims.size() == 9 && dims[4] > 0) {
    int64_t taps = dims[3] / dims[4];
    int64_t window = 1;
    while (window * window < taps)
      ++window;
    std::string what = "convolution";
    if (window * window == taps)
      what += " " + std::to_string(window) + "x" + std::to_string(window);
    if (dims[7] != 1 || dims[8] != 1)
      what += " stride " + std::to_string(dims[7]);
    return what;
  }
  if (kind == "conv2d_nchw")
    return "convolution";
  if (kind == "depthwise_conv2d_nchw")
    return "depthwise convolution or pooling";
  // f, oh, ow, c, kh, kw, ih, iw.
  if (kind == "conv2d_filter_lanes" && dims.size() == 8)
    return "convolution " + std::to_string(dims[4]) + "x" +
           std::to_string(dims[5]) + " (filters along vectors)";
  // c, oh, ow, kh, kw, ih, iw, lanes.
  if (kind == "depthwise_channel_lanes" && dims.size() == 8)
    return "depthwise convolution " + std::to_string(dims[3]) + "x" +
           std::to_string(dims[4]) + " (channels along vectors)";
  if (kind == "grouped_conv2d_nchw")
    return "grouped convolution";
  if (kind.starts_with("elementwise"))
    return "elementwise";
  if (kind.starts_with("outer_forall") || kind.starts_with("tile_fuse"))
    return "other (reductions, data movement)";
  return kind.str();
}

TuneResult int21::search::summarizeSearch(const Blackboard &board,
                                          const KnowledgePolicy &knowledge,
                                          const Winners &winners,
                                          const TrialBudget &budget,
                                          llvm::ArrayRef<SiteKey> sites,
                                          const TuneOptions &options) {
  TuneResult result;
  double before = 0, after = 0;
  for (unsigned k = 0; k < board.kernels().size(); ++k) {
    const Kernel &kernel = board.kernels()[k];
    KernelSummary summary;
    summary.signature = kernel.signature;
    summary.name = kernel.name;
    if (!kernel.choices.empty())
      summary.kernelClass = kernelClass(kernel.choices.front());
    summary.instances = kernel.instances;
    summary.trials = board.trialsOf(k).size();
    summary.rooflineMs = budget.roofline()[k];
    summary.mergeOf = kernel.mergeOf;
    if (const std::optional<KnowledgeRecord> &record = knowledge.reused(k)) {
      summary.defaultMs = record->defaultMs;
      summary.bestMs = summary.searchMs = record->time.medianMs;
      summary.winnerAgent = "knowledge base";
      summary.winner = record->schedule;
      result.schedules[kernel.signature] = record->schedule;
      if (!kernel.mergeOf) {
        ++result.reused;
        before += summary.defaultMs * kernel.instances;
        after += summary.bestMs * kernel.instances;
      }
      result.kernels.push_back(summary);
      continue;
    }
    const Trial *base = board.defaultTrial(k);
    const Trial *best = board.best(k);
    if (!base || base->outcome != Outcome::Ok) {
      summary.error = base             ? base->error
                      : kernel.mergeOf ? "merge not tried"
                                       : "not measured";
      result.kernels.push_back(summary);
      continue;
    }
    summary.defaultMs = base->time.medianMs;
    summary.searchMs = best->time.medianMs;
    if (const Confirmation *confirmed = winners.verdict(k)) {
      const Confirmation &verdict = *confirmed;
      summary.confirmed = true;
      if (!verdict.kept)
        summary.demoted =
            best->candidate.agent + "'s winner, " +
            llvm::formatv("{0:F2}", summary.defaultMs / summary.searchMs)
                .str() +
            "x in the search: " + verdict.why;
    }
    best = winners.keptBest(k);
    summary.bestMs = winners.keptMs(k);
    // "default", or "fusion" for a merge that no agent improved.
    summary.winnerAgent = best->candidate.agent;
    summary.winner = best->candidate.schedule;
    if (!best->isDefault)
      result.schedules[kernel.signature] = best->candidate.schedule;
    if (!kernel.mergeOf) {
      before += summary.defaultMs * kernel.instances;
      after += summary.bestMs * kernel.instances;
    }
    result.kernels.push_back(summary);
  }

  // The merges that beat their parts, best gain per site first; the sites
  // they merge (greedily, a group in one merge at most) then replace their
  // parts' best times with the merged kernel's.
  for (auto [k, summary] : llvm::enumerate(result.kernels)) {
    if (!summary.mergeOf || !summary.error.empty())
      continue;
    auto [producer, consumer] = *summary.mergeOf;
    const KernelSummary &p = result.kernels[producer];
    const KernelSummary &c = result.kernels[consumer];
    summary.partsMs = p.bestMs + c.bestMs;
    if (summary.bestMs < summary.partsMs * (1 - options.mergeMargin))
      result.merges.push_back({p.signature, c.signature, summary.signature,
                               summary.partsMs - summary.bestMs});
  }
  llvm::stable_sort(result.merges,
                    [](const FusionMerge &a, const FusionMerge &b) {
                      return a.gainMs > b.gainMs;
                    });
  llvm::StringMap<unsigned> bySignature;
  for (auto [k, kernel] : llvm::enumerate(board.kernels()))
    bySignature[kernel.signature] = k;
  llvm::StringSet<> used;
  for (unsigned i : selectSites(sites, result.merges)) {
    KernelSummary &merged = result.kernels[bySignature.lookup(sites[i].merged)];
    ++merged.mergedSites;
    ++result.mergedSites;
    after -= merged.partsMs - merged.bestMs;
    used.insert(merged.signature);
  }
  // A merge whose every site lost to a better overlapping one is no merge.
  llvm::erase_if(result.merges, [&](const FusionMerge &merge) {
    return !used.contains(merge.merged);
  });
  result.trials = board.trials().size();
  result.speedup = after > 0 ? before / after : 1;
  result.seconds = budget.elapsed();
  result.threads = options.threads;
  return result;
}
