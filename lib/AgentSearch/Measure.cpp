//===- Measure.cpp - the correctness gate and the timer -------------------===//

#include "int21/AgentSearch/Measure.h"

#include "int21/Runtime/Tensors.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <thread>
#include <vector>

using namespace int21::search;
using namespace int21::runtime;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::pair<double, double> int21::search::toleranceFor(DType dtype,
                                                      double scale) {
  scale = std::max(scale, 1e-30);
  switch (dtype) {
  case DType::F64:
    return {1e-9, 1e-12 * scale};
  case DType::F32:
    return {1e-3, 1e-4 * scale};
  case DType::F16:
    return {1e-2, 1e-2 * scale};
  case DType::BF16:
    return {4e-2, 4e-2 * scale};
  default:
    return {0, 0};
  }
}

static double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  double position = p * (values.size() - 1);
  size_t low = static_cast<size_t>(position);
  size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (position - low);
}

llvm::Expected<MeasureReport>
int21::search::measureEngine(llvm::StringRef referencePath,
                             llvm::StringRef candidatePath,
                             const MeasureOptions &options) {
  auto reference = Engine::load(referencePath);
  if (!reference)
    return reference.takeError();
  auto candidate = Engine::load(candidatePath);
  if (!candidate)
    return candidate.takeError();
  if ((*reference)->inputs() != (*candidate)->inputs() ||
      (*reference)->outputs() != (*candidate)->outputs())
    return llvm::createStringError(
        "the candidate's inputs or outputs differ from the reference's");

  std::mt19937_64 rng(options.seed);
  std::vector<Tensor> inputs;
  for (const TensorSpec &spec : (*reference)->inputs())
    inputs.push_back(randomTensor(spec, rng));
  (*reference)->setThreads(std::max(1u, std::thread::hardware_concurrency()));
  auto expected = (*reference)->run(inputs);
  if (!expected)
    return expected.takeError();
  (*candidate)->setThreads(options.threads);
  auto got = (*candidate)->run(inputs);
  if (!got)
    return got.takeError();

  MeasureReport report;
  report.correct = true;
  for (size_t k = 0; k < got->size(); ++k) {
    const Tensor &want = (*expected)[k];
    double scale = 0;
    for (int64_t i = 0, n = want.numElements(); i < n; ++i) {
      double v = std::fabs(elementAt(want, i));
      if (std::isfinite(v))
        scale = std::max(scale, v);
    }
    auto [rtol, atol] = toleranceFor(want.dtype(), scale);
    Comparison cmp = compareTensors((*got)[k], want, rtol, atol);
    report.maxError = std::max(report.maxError, cmp.maxAbs);
    if (cmp.bad && report.correct) {
      report.correct = false;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "output " << k << ": " << cmp.bad << " of " << want.numElements()
         << " elements differ from the reference (first at " << cmp.firstBad
         << ": " << elementAt((*got)[k], cmp.firstBad) << " vs "
         << elementAt(want, cmp.firstBad) << ", rel_l2 " << cmp.relL2 << ")";
      report.mismatch = text;
    }
  }
  if (!report.correct)
    return report;

  // Timing on the caller's buffers: no allocation inside the loop. The
  // reference writes into its own outputs, compared above and free now.
  std::vector<const void *> in;
  for (const Tensor &t : inputs)
    in.push_back(t.data());
  struct Timed {
    const Engine *engine;
    std::vector<void *> out;
    unsigned batch = 1;
    std::vector<double> samples;
    double previousMedian = 0;
  };
  auto timed = [](const Engine &engine, std::vector<Tensor> &outputs) {
    Timed t{&engine, {}};
    for (Tensor &tensor : outputs)
      t.out.push_back(tensor.data());
    return t;
  };
  Timed cand = timed(**candidate, *got);
  Timed ref = timed(**reference, *expected);
  auto runBatch = [&](Timed &t, unsigned count) -> llvm::Expected<double> {
    Clock::time_point start = Clock::now();
    for (unsigned i = 0; i < count; ++i)
      if (llvm::Error error = t.engine->run(in, t.out))
        return std::move(error);
    return msSince(start) / count;
  };
  // Warm-up: pages, caches and the thread pool.
  llvm::Expected<double> first = runBatch(cand, 2);
  if (!first)
    return first.takeError();
  // A candidate gives up when it is slow twice: on a busy machine one
  // preemption makes a few runs of a microsecond kernel look slower than
  // any bound, and a candidate that gave up can no longer win.
  unsigned warmReps = 2;
  if (options.giveUpMs > 0 && *first > options.giveUpMs) {
    llvm::Expected<double> again = runBatch(cand, 2);
    if (!again)
      return again.takeError();
    *first = std::min(*first, *again);
    warmReps += 2;
  }
  if (options.giveUpMs > 0 && *first > options.giveUpMs) {
    report.time.medianMs = report.time.minMs = report.time.maxMs = *first;
    report.time.reps = warmReps;
    return report;
  }
  std::vector<Timed *> engines = {&cand};
  if (options.paired) {
    (*reference)->setThreads(options.threads);
    engines.push_back(&ref);
  }
  for (Timed *t : engines) {
    double warm = *first;
    if (t != &cand) {
      llvm::Expected<double> again = runBatch(*t, 2);
      if (!again)
        return again.takeError();
      warm = *again;
    }
    // Samples of at least half a millisecond, so that the clock's
    // resolution and the call overhead do not dominate tiny kernels.
    t->batch = std::max(
        1u, static_cast<unsigned>(std::ceil(0.5 / std::max(warm, 1e-6))));
  }
  Clock::time_point start = Clock::now();
  while (cand.samples.size() < options.maxReps) {
    for (Timed *t : engines) {
      llvm::Expected<double> sample = runBatch(*t, t->batch);
      if (!sample)
        return sample.takeError();
      t->samples.push_back(*sample);
    }
    size_t count = cand.samples.size();
    if (count < options.minReps)
      continue;
    if (msSince(start) > options.seconds * 1000)
      break;
    if (count % options.minReps == 0) {
      // Stable: five more samples moved every median by under 1%.
      bool stable = true;
      for (Timed *t : engines) {
        double median = percentile(t->samples, 0.5);
        stable &= t->previousMedian > 0 &&
                  std::fabs(median - t->previousMedian) < 0.01 * median;
        t->previousMedian = median;
      }
      if (stable)
        break;
    }
  }
  const std::vector<double> &samples = cand.samples;
  if (options.paired)
    report.referenceMs = percentile(ref.samples, 0.5);
  report.time.medianMs = percentile(samples, 0.5);
  report.time.minMs = *std::min_element(samples.begin(), samples.end());
  report.time.maxMs = *std::max_element(samples.begin(), samples.end());
  report.time.spread =
      (percentile(samples, 0.9) - percentile(samples, 0.1)) /
      report.time.medianMs;
  report.time.reps = samples.size() * cand.batch;
  return report;
}

llvm::json::Value int21::search::toJSON(const MeasureReport &report) {
  return llvm::json::Object{{"correct", report.correct},
                            {"mismatch", report.mismatch},
                            {"max_error", report.maxError},
                            {"median_ms", report.time.medianMs},
                            {"min_ms", report.time.minMs},
                            {"max_ms", report.time.maxMs},
                            {"spread", report.time.spread},
                            {"reps", report.time.reps},
                            {"reference_ms", report.referenceMs}};
}

bool int21::search::fromJSON(const llvm::json::Value &value,
                             MeasureReport &report, llvm::json::Path path) {
  llvm::json::ObjectMapper o(value, path);
  int64_t reps = 0;
  bool ok = o && o.map("correct", report.correct) &&
            o.map("mismatch", report.mismatch) &&
            o.map("max_error", report.maxError) &&
            o.map("median_ms", report.time.medianMs) &&
            o.map("min_ms", report.time.minMs) &&
            o.map("max_ms", report.time.maxMs) &&
            o.map("spread", report.time.spread) && o.map("reps", reps) &&
            o.mapOptional("reference_ms", report.referenceMs);
  report.time.reps = static_cast<unsigned>(reps);
  return ok;
}

//===----------------------------------------------------------------------===//
// Machine peaks
//===----------------------------------------------------------------------===//

namespace {
typedef float Vec16 __attribute__((vector_size(64)));

/// Twelve independent chains of 16-lane multiply-adds: enough in flight to
/// fill the FMA pipes. Returns floating-point operations per second.
template <typename Body> double timeFMAs(Body body) {
  Clock::time_point start = Clock::now();
  double flops = body();
  return flops / (msSince(start) / 1000);
}

#define INT21_FMA_KERNEL                                                       \
  Vec16 acc[12];                                                               \
  for (int i = 0; i < 12; ++i)                                                 \
    acc[i] = Vec16{} + 1.0f * i;                                               \
  Vec16 a = Vec16{} + 0.999999f, c = Vec16{} + 1e-7f;                          \
  for (long it = 0; it < iterations; ++it)                                     \
    for (int i = 0; i < 12; ++i)                                               \
      acc[i] = acc[i] * a + c;                                                 \
  float sink = 0;                                                              \
  for (int i = 0; i < 12; ++i)                                                 \
    sink += acc[i][0];                                                         \
  *out = sink;                                                                 \
  return 2.0 * 16 * 12 * iterations;

__attribute__((target("avx512f,fma"))) double fmaAVX512(long iterations,
                                                         float *out) {
  INT21_FMA_KERNEL
}
__attribute__((target("avx2,fma"))) double fmaAVX2(long iterations,
                                                   float *out) {
  INT21_FMA_KERNEL
}
double fmaGeneric(long iterations, float *out) { INT21_FMA_KERNEL }
#undef INT21_FMA_KERNEL
} // namespace

MachinePeaks int21::search::measurePeaks(unsigned threads) {
  MachinePeaks peaks;
  float sink = 0;
  long iterations = 2'000'000;
  auto fma = [&] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
      return fmaAVX512(iterations, &sink);
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return fmaAVX2(iterations, &sink);
    return fmaGeneric(iterations, &sink);
  };
  double best = 0;
  for (int i = 0; i < 3; ++i)
    best = std::max(best, timeFMAs(fma));
  peaks.flopsPerSecond = best * std::max(1u, threads);

  // Streaming reads of 64 MiB, more than any cache; integer sums, which the
  // compiler may vectorize (float sums it may not reorder).
  std::vector<uint64_t> data(8 << 20, 1);
  double bestBandwidth = 0;
  uint64_t total = 0;
  for (int pass = 0; pass < 3; ++pass) {
    Clock::time_point start = Clock::now();
    uint64_t sums[8] = {};
    for (size_t i = 0; i < data.size(); i += 8)
      for (size_t j = 0; j < 8; ++j)
        sums[j] += data[i + j];
    for (uint64_t sum : sums)
      total += sum;
    double seconds = msSince(start) / 1000;
    bestBandwidth =
        std::max(bestBandwidth, data.size() * sizeof(uint64_t) / seconds);
  }
  sink += static_cast<float>(total & 1);
  // One core does not saturate memory; more threads share it.
  peaks.bytesPerSecond = bestBandwidth * std::min(2u, std::max(1u, threads));
  if (sink == 12345.678f) // Keep the loops from being optimised away.
    llvm::errs() << "";
  return peaks;
}

double int21::search::rooflineMs(const Kernel &kernel,
                                 const MachinePeaks &peaks) {
  if (peaks.flopsPerSecond <= 0 || peaks.bytesPerSecond <= 0)
    return 0;
  // Memory bandwidth was measured beyond the caches: a kernel whose data
  // fits in them is bound by its arithmetic alone.
  constexpr double kCacheBytes = 8 << 20;
  double memory =
      kernel.bytes > kCacheBytes ? kernel.bytes / peaks.bytesPerSecond : 0;
  return 1000 * std::max(kernel.flops / peaks.flopsPerSecond, memory);
}
