//===- CostModelAgent.cpp - proposals ranked by a model of the measurements ===//
//
// For the template of the kernel's best schedule, a ridge regression of
// log(time / the kernel's default time) on the knobs (each size's position
// in its domain in log2, its square and the pairwise products; log2 of each
// size; one-hot alternatives) is fitted on every correct trial of that
// template: this kernel's, and with a quarter of the weight those of the
// other kernels that have the template (the same tile sizes tend to do
// alike on similar work, so the model ranks well before this kernel has
// many measurements of its own). Many proposals (mutations of the best few,
// the best schedules of the other kernels fitted to this one's domains,
// random points) are ranked by the model and only the most promising are
// sent to be measured. Until there are enough measurements to fit, it
// proposes them unranked.
//
//===----------------------------------------------------------------------===//

#include "AgentSupport.h"

#include <cmath>
#include <limits>

using namespace int21::search;
namespace schedule = int21::schedule;

namespace {
constexpr size_t kMinPoints = 5;
constexpr unsigned kPool = 256;
constexpr double kRidge = 0.1;
/// The weight of another kernel's trial against one of the kernel's own.
constexpr double kOtherKernelWeight = 0.25;
/// The best schedules of each other kernel offered to the pool.
constexpr size_t kBorrowed = 3;

/// The features of a schedule of `choice`.
std::vector<double> features(const schedule::ScheduleChoice &choice,
                             const Schedule &schedule) {
  std::vector<double> x = {1.0}, sizes;
  for (const schedule::KnobDomain &domain : choice.domains) {
    auto it = schedule.knobs.find(domain.name);
    int64_t value = it == schedule.knobs.end() ? 0 : it->second;
    if (domain.alternative) {
      for (int64_t option : domain.options)
        if (option != domain.options.front())
          x.push_back(value == option ? 1.0 : 0.0);
      continue;
    }
    double low = std::log2(std::max<int64_t>(1, domain.options.front()));
    double high = std::log2(std::max<int64_t>(1, domain.options.back()));
    double size = std::log2(std::max<int64_t>(1, value));
    sizes.push_back((size - low) / std::max(1.0, high - low));
    // The size itself: a 16-lane vector fills an AVX-512 register whatever
    // the dimensions.
    x.push_back(size / 8);
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    x.push_back(sizes[i]);
    x.push_back(sizes[i] * sizes[i]);
    for (size_t j = i + 1; j < sizes.size(); ++j)
      x.push_back(sizes[i] * sizes[j]);
  }
  return x;
}

/// Solves (X^T W X + ridge I) w = X^T W y by Gaussian elimination.
std::vector<double> fitRidge(const std::vector<std::vector<double>> &rows,
                             const std::vector<double> &y,
                             const std::vector<double> &weight) {
  size_t n = rows.front().size();
  std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0));
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j)
        a[i][j] += weight[r] * rows[r][i] * rows[r][j];
      a[i][n] += weight[r] * rows[r][i] * y[r];
    }
  for (size_t i = 1; i < n; ++i) // The intercept is not shrunk.
    a[i][i] += kRidge;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col]))
        pivot = r;
    std::swap(a[col], a[pivot]);
    if (std::fabs(a[col][col]) < 1e-12)
      continue;
    for (size_t r = 0; r < n; ++r) {
      if (r == col)
        continue;
      double f = a[r][col] / a[col][col];
      for (size_t c = col; c <= n; ++c)
        a[r][c] -= f * a[col][c];
    }
  }
  std::vector<double> w(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (std::fabs(a[i][i]) >= 1e-12)
      w[i] = a[i][n] / a[i][i];
  return w;
}

class CostModelAgent final : public Agent {
public:
  explicit CostModelAgent(uint64_t seed) : rng(seed) {}
  llvm::StringRef name() const override { return "cost-model"; }

  std::vector<Candidate> propose(const Blackboard &board, unsigned kernel,
                                 unsigned count) override {
    const Kernel &work = board.kernels()[kernel];
    std::vector<Candidate> out;
    std::optional<detail::RankedTrials> found =
        detail::bestOfKernel(board, kernel);
    if (!found)
      return out;
    const std::vector<const Trial *> &ranked = found->ranked;
    const Trial *best = found->best;
    const std::string &sequence = best->candidate.schedule.sequence;
    const schedule::ScheduleChoice *choice = found->choice;

    // The training set: every correct trial of the template, on any kernel
    // whose default ran, in that kernel's own domains.
    std::vector<std::vector<double>> rows;
    std::vector<double> y, weight;
    size_t own = 0;
    for (const Trial &trial : board.trials()) {
      unsigned k = trial.candidate.kernel;
      const Trial *base = board.defaultTrial(k);
      const schedule::ScheduleChoice *theirs =
          board.kernels()[k].findChoice(sequence);
      if (trial.outcome != Outcome::Ok ||
          trial.candidate.schedule.sequence != sequence || !theirs || !base ||
          base->outcome != Outcome::Ok)
        continue;
      rows.push_back(features(*theirs, trial.candidate.schedule));
      y.push_back(std::log(trial.time.medianMs / base->time.medianMs));
      weight.push_back(k == kernel ? 1.0 : kOtherKernelWeight);
      own += k == kernel;
    }
    std::vector<double> weights;
    if (rows.size() >= kMinPoints && own > 0)
      weights = fitRidge(rows, y, weight);

    // The pool: the other kernels' best schedules, mutations of the best
    // few, and random points.
    struct Scored {
      double predicted;
      Schedule schedule;
      unsigned parent;
    };
    std::vector<Scored> pool;
    auto predict = [&](const Schedule &schedule) {
      if (weights.empty())
        return std::numeric_limits<double>::quiet_NaN();
      std::vector<double> x = features(*choice, schedule);
      double predicted = 0;
      for (size_t k = 0; k < x.size(); ++k)
        predicted += weights[k] * x[k];
      return predicted;
    };
    // What won on the other kernels of this template, fitted to this one.
    for (unsigned k = 0; k < board.kernels().size(); ++k) {
      if (k == kernel || !board.kernels()[k].findChoice(sequence))
        continue;
      size_t borrowed = 0;
      for (const Trial *trial : detail::rankedTrials(board, k)) {
        if (borrowed == kBorrowed)
          break;
        if (trial->candidate.schedule.sequence != sequence || trial->isDefault)
          continue;
        Schedule fitted = detail::fitToChoice(*choice, trial->candidate.schedule);
        std::string why;
        if (!isValidSchedule(work, fitted, why))
          continue;
        ++borrowed;
        pool.push_back({predict(fitted), std::move(fitted), trial->id});
      }
    }
    size_t parents = std::min<size_t>(5, ranked.size());
    for (unsigned i = 0; i < kPool; ++i) {
      const Trial *parent = ranked[i % parents];
      if (parent->candidate.schedule.sequence != sequence)
        parent = best;
      std::optional<Schedule> s;
      if (i % 4 == 3) {
        s = randomSchedule(*choice, rng);
        std::string why;
        if (!isValidSchedule(work, *s, why))
          s.reset();
      } else {
        bool alternatives = i % 8 == 1;
        s = detail::mutate(work, parent->candidate.schedule, 1 + i % 3,
                           alternatives, rng);
      }
      if (!s)
        continue;
      double predicted = predict(*s);
      pool.push_back({predicted, std::move(*s), parent->id});
    }
    if (!weights.empty())
      std::stable_sort(pool.begin(), pool.end(),
                       [](const Scored &a, const Scored &b) {
                         return a.predicted < b.predicted;
                       });
    for (Scored &scored : pool) {
      if (out.size() >= count)
        break;
      if (detail::alreadyProposed(board, work, scored.schedule, out))
        continue;
      out.push_back(detail::makeCandidate(kernel, std::move(scored.schedule),
                                          name(), scored.parent));
    }
    return out;
  }

private:
  std::mt19937_64 rng;
};
} // namespace

std::unique_ptr<Agent> int21::search::createCostModelAgent(uint64_t seed) {
  return std::make_unique<CostModelAgent>(seed);
}
